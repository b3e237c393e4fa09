/**
 * Source ids (`SRC-YYYY-MM-DD-NNN`, in a git repository
 * `SRC-YYYY-MM-DD-NNNNNNNN` by the moment of the day, so teammates' captures
 * never share one) and their packet folders. An id is taken
 * by creating its folder with a plain (non-recursive) `mkdir`, which fails
 * when the folder exists, so two captures (in one process or in two) can
 * never be handed the same id, and an existing packet is never reused.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import { findGitRepo } from "../vault/git-state.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** Attempts before giving up: only reached when something keeps creating folders. */
const MAX_ATTEMPTS = 1000;

/** A claimed id and its (empty, new) packet folder. */
export interface SourceSlot {
  id: string;
  /** Absolute path of `raw/sources/<id>/`. */
  dir: string;
  /** Vault-relative path, `raw/sources/<id>`. */
  rel: string;
}

/** Folder that holds the packets of `vault`. */
function sourcesDir(vault: VaultPaths): string {
  return join(vault.raw, "sources");
}

/** The id for day `date` (`YYYY-MM-DD`) and sequence number `n`, at least `width` digits (3; 8 for a moment of the day). */
export function sourceId(date: string, n: number, width = 3): string {
  return `SRC-${date}-${String(n).padStart(width, "0")}`;
}

const DAY_MS = 86_400_000;

/** Highest sequence number already used on `date`; a hint only, the mkdir decides. */
function highestUsed(dir: string, date: string): number {
  const pattern = new RegExp(`^SRC-${date}-(\\d{3,})$`);
  let highest = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = pattern.exec(name);
    if (m?.[1]) highest = Math.max(highest, Number(m[1]));
  }
  return highest;
}

/**
 * Claims the next free id of the day (UTC, like every date in the vault) by
 * creating its packet folder; on a collision tries the next number.
 */
export function allocateSourceId(vault: VaultPaths, now: Date = new Date()): SourceSlot {
  const dir = sourcesDir(vault);
  mkdirSync(dir, { recursive: true });
  const date = now.toISOString().slice(0, 10);
  // In a git repository teammates capture on other machines the same day:
  // the next free number here may be theirs too, and the two packets would
  // meet in a pull. The moment of the day (ms since UTC midnight) keeps the
  // ids apart and in capture order.
  const team = findGitRepo(vault.root) !== undefined;
  const width = team ? 8 : 3;
  const first = team
    ? Math.max(now.getTime() % DAY_MS, highestUsed(dir, date) + 1)
    : highestUsed(dir, date) + 1;
  for (let n = first; n < first + MAX_ATTEMPTS; n += 1) {
    const id = sourceId(date, n, width);
    const abs = join(dir, id);
    try {
      mkdirSync(abs);
      return { id, dir: abs, rel: `raw/sources/${id}` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new WikiError(
    diagnostic(
      "capture_id_exhausted",
      "error",
      `no free source id for ${date} after ${MAX_ATTEMPTS} attempts`,
      { path: "raw/sources" },
    ),
  );
}
