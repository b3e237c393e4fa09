/**
 * A shown set saved between processes — the command line's stand-in for a
 * session: `llm-wiki recall` saves what
 * its last run showed (page ids, vault kind, rank, mode, the query's hash —
 * never its text) to `meta/cache/cli-shown.json` of the active vault, and
 * `llm-wiki feedback` judges only those pages, for an hour.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecallResult } from "../recall-operation.ts";
import { vaultArea, writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { FeedbackSession, type ShownPage, type VaultKind } from "./feedback-session.ts";

/** How long a recall's shown set can be judged. */
export const CLI_SHOWN_MAX_AGE_MS = 60 * 60_000;
const SCHEMA = 1;

/** A page as saved: what a judgment needs, nothing of the query but its hash. */
export type SavedShownPage = Omit<ShownPage, "turn" | "opened" | "cited">;

interface ShownFile {
  schema: typeof SCHEMA;
  /** When the recall ran (ISO). */
  at: string;
  shown: SavedShownPage[];
}

/** Where a vault keeps the CLI's last shown set. */
export function cliShownPath(vault: VaultPaths): string {
  return join(vault.meta, "cache", "cli-shown.json");
}

/**
 * Saves what `result` showed in place of the previous run's set (an empty
 * set when it showed nothing). The ranks and hash are computed as every
 * session computes them; no event is written.
 */
export function saveCliShown(
  vault: VaultPaths,
  result: Pick<RecallResult, "query" | "results" | "modeUsed">,
  embedModel: string | undefined,
  now: Date = new Date(),
): void {
  const scratch = new FeedbackSession({ implicit: false, vault: () => undefined });
  scratch.recordShown(result, embedModel);
  const shown = scratch.shown().map(
    ({ vault: kind, page, queryHash, rank, mode, embedModel: model }): SavedShownPage => ({
      vault: kind,
      page,
      queryHash,
      rank,
      mode,
      ...(model ? { embedModel: model } : {}),
    }),
  );
  const file: ShownFile = { schema: SCHEMA, at: now.toISOString(), shown };
  writeFileAtomic(cliShownPath(vault), `${JSON.stringify(file)}\n`, vaultArea(vault));
}

/** What `loadCliShown` found. */
export interface LoadedShown {
  shown: SavedShownPage[];
  /** Why nothing can be judged: no recall saved, or its set is older than an hour. */
  missing?: "none" | "expired";
}

const KINDS: readonly VaultKind[] = ["project", "personal"];

function isSaved(value: unknown): value is SavedShownPage {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    KINDS.includes(v.vault as VaultKind) &&
    typeof v.page === "string" &&
    typeof v.queryHash === "string" &&
    typeof v.rank === "number" &&
    typeof v.mode === "string" &&
    (v.embedModel === undefined || typeof v.embedModel === "string")
  );
}

/** The last recall's shown set, when it is younger than an hour (fields checked, not trusted). */
export function loadCliShown(vault: VaultPaths, now: Date = new Date()): LoadedShown {
  let data: Partial<ShownFile>;
  try {
    data = JSON.parse(readFileSync(cliShownPath(vault), "utf8")) as Partial<ShownFile>;
  } catch {
    return { shown: [], missing: "none" };
  }
  if (data.schema !== SCHEMA || !Array.isArray(data.shown)) return { shown: [], missing: "none" };
  const at = Date.parse(String(data.at));
  const age = now.getTime() - at;
  // A set from well in the future (a clock set back) is not trusted either.
  if (!Number.isFinite(at) || age < -60_000 || age > CLI_SHOWN_MAX_AGE_MS)
    return { shown: [], missing: "expired" };
  return { shown: data.shown.filter(isSaved) };
}
