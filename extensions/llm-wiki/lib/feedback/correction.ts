/**
 * A recall correction as a readable page: an observation (category
 * `recall-correction`) with the user's words and a link to the corrected
 * page, written before any feedback event, so the correction survives
 * whatever happens to the event log. These pages are also the vault's own
 * evaluation set (`llm-wiki bench vault`) and replay into the feedback
 * projection when the log is gone.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WikiError } from "../diagnostics.ts";
import { isInside } from "../vault/fs-safe.ts";
import { type PageMeta, parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";
import { cleanText, invalid } from "../writing/input.ts";
import {
  createUniquePage,
  type UniquePageSpec,
  type WrittenPageResult,
} from "../writing/unique-page.ts";

export const CORRECTION_CATEGORY = "recall-correction";
/** Slug prefix of correction pages (`wiki/sources/rc-<day>-<title>.md`). */
export const CORRECTION_PREFIX = "rc";
/** The longest correction kept. */
export const CORRECTION_MAX_CHARS = 4_000;

export interface CorrectionInput {
  /** The page recall showed that the user corrected. */
  corrected: Pick<PageMeta, "id" | "title" | "path">;
  /** The user's words: what was wrong, what holds instead. */
  correction: string;
  vaultId: string;
  queryHash: string;
}

/** A correction page as read back. */
export interface CorrectionPage {
  id: string;
  correctedPage: string;
  queryHash: string;
  /** The user's words (the page body's text after its heading). */
  correction: string;
  /** When it was recorded (ms since 1970). */
  at: number;
}

/** A correction written: the page, and whether its lines could not be logged. */
export type CorrectionWrite = WrittenPageResult & {
  ok: true;
  /**
   * The page was written but appending its `page_created` line to
   * `meta/events.jsonl` failed (a full disk, a log that is not a file):
   * the page stands, and is the record.
   */
  logFailure?: unknown;
};

/**
 * Writes the correction's observation page (never overwriting; a retried
 * call is the same page, `created: false`). Throws when the page could not
 * be written; when only the log could not be appended to, returns the page
 * with `logFailure`.
 */
export function writeCorrection(
  vault: VaultPaths,
  input: CorrectionInput,
  now: Date = new Date(),
): CorrectionWrite {
  const write = () => createUniquePage(vault, correctionSpec(input, now), now);
  try {
    return write();
  } catch (error) {
    // The log is appended to only after the page file exists: a failure there leaves the page.
    const path = (error as NodeJS.ErrnoException | undefined)?.path;
    if (error instanceof WikiError || typeof path !== "string" || !isInside(vault.meta, path)) {
      throw error;
    }
    // The same call again finds the page it wrote (same title and body) and writes nothing.
    let found: WrittenPageResult & { ok: true };
    try {
      found = write();
    } catch {
      throw error;
    }
    return found.created ? found : { ...found, created: true, diagnostics: [], logFailure: error };
  }
}

/** The page a correction is written as; deterministic, so a retried call compares equal. */
function correctionSpec(input: CorrectionInput, now: Date): UniquePageSpec {
  const redacted: RedactionCounts = {};
  const text = redactText(cleanText(input.correction, "correction", true), redacted);
  if (text.length > CORRECTION_MAX_CHARS) {
    invalid("correction", `has ${text.length} characters; at most ${CORRECTION_MAX_CHARS}`);
  }
  const title = `Recall correction: ${input.corrected.title}`.slice(0, 200);
  // The link is relative to wiki/sources/, where the page is written.
  const link = `../${input.corrected.path.replace(/^wiki\//, "")}`;
  return {
    prefix: CORRECTION_PREFIX,
    type: "observation",
    title,
    status: "observation",
    tags: [CORRECTION_CATEGORY],
    sources: [],
    fields: {
      category: CORRECTION_CATEGORY,
      corrected_page: input.corrected.id,
      vault_id: input.vaultId,
      query_hash: input.queryHash,
      observed_at: now.toISOString(),
    },
    body: `# ${title}\n\n${text}\n\nCorrects: [${input.corrected.title}](${link})\n`,
    redacted,
    recorded: { kind: "observation_recorded", category: CORRECTION_CATEGORY },
  };
}

/** Every readable correction page of the vault (malformed ones are skipped). */
export function readCorrections(vault: VaultPaths): CorrectionPage[] {
  const folder = join(vault.wiki, "sources");
  let names: string[];
  try {
    names = readdirSync(folder).filter(
      (n) => n.startsWith(`${CORRECTION_PREFIX}-`) && n.endsWith(".md"),
    );
  } catch {
    return [];
  }
  const out: CorrectionPage[] = [];
  for (const name of names.sort()) {
    const id = `sources/${name.slice(0, -3)}`;
    try {
      const parsed = parsePage(id, `wiki/${id}.md`, readFileSync(join(folder, name)));
      if (!parsed.ok) continue;
      const fm = parsed.page.frontmatter;
      if (fm.category !== CORRECTION_CATEGORY) continue;
      const corrected = fm.corrected_page;
      const hash = fm.query_hash;
      if (typeof corrected !== "string" || typeof hash !== "string") continue;
      const when = Date.parse(String(fm.observed_at ?? parsed.page.created ?? ""));
      const body = parsed.page.body
        .replace(/^#[^\n]*\n+/, "")
        .replace(/\n+Corrects: [^\n]*\n*$/, "")
        .trim();
      out.push({
        id,
        correctedPage: corrected,
        queryHash: hash,
        correction: body,
        at: Number.isFinite(when) ? when : 0,
      });
    } catch {
      // unreadable: not a case
    }
  }
  return out;
}
