/**
 * Marks a page verified against the code: its front matter's top-level
 * `verified:` line is set to a date (inserted before the closing fence when
 * there is none) and not one other byte of the page changes — nothing else
 * is rewritten, reformatted or redacted. A page that changed while this ran
 * is left alone; the write is atomic.
 */
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { recordEvents } from "../vault/events.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { appendToBlock, commitEdit, openFrontmatter } from "./frontmatter-edit.ts";

/** A top-level `verified:` line; the value may be quoted and followed by a comment. */
const VERIFIED_LINE = /^verified:[^\r\n]*$/gm;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface VerifyPageInput {
  /** The page id (`concepts/x`; `[[concepts/x]]`, `wiki/concepts/x.md` read the same). */
  page: string;
  /** The date to record (`YYYY-MM-DD`); default: today (UTC). */
  date?: string;
}

/** What verifying did. */
export interface VerifyPageResult {
  ok: boolean;
  id?: string;
  /** Vault-relative path of the page. */
  path?: string;
  /** The date now in `verified:`. */
  verified?: string;
  /** The value before, when there was one. */
  previous?: string;
  /** False when the page already said this date. */
  changed?: boolean;
  diagnostics: Diagnostic[];
}

function fail(code: string, message: string, path?: string): never {
  throw new WikiError(diagnostic(code, "error", message, path ? { path } : {}));
}

/** Whether `text` names a real calendar day. */
function isDay(text: string): boolean {
  if (!DAY.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/**
 * Sets `verified: <date>` on the page at vault-relative `rel` (id `id`).
 * Throws `WikiError` when it cannot (no front matter, two `verified:` lines,
 * not a plain file under `wiki/`, an invalid date, a concurrent change).
 */
export function verifyPage(
  vault: VaultPaths,
  id: string,
  rel: string,
  date: string | undefined,
  now: Date = new Date(),
): VerifyPageResult {
  const day = date ?? now.toISOString().slice(0, 10);
  if (!isDay(day)) return fail("invalid_input", `date: "${day}" is not a day like 2026-03-01`);
  const site = openFrontmatter(vault, rel);
  if (site === "unsafe") {
    return fail(
      "verify_page_unsafe",
      `${rel} is not a plain file under wiki/; left unchanged`,
      rel,
    );
  }
  if (site === "no_frontmatter") {
    return fail("verify_no_frontmatter", `${rel} has no front matter; left unchanged`, rel);
  }
  const { text, start, block } = site;
  const lines = [...block.matchAll(VERIFIED_LINE)];
  if (lines.length > 1) {
    return fail("verify_ambiguous", `${rel} has more than one verified line; left unchanged`, rel);
  }
  const line = lines[0];
  const previous = line
    ? line[0]
        .slice("verified:".length)
        .replace(/#.*$/, "")
        .trim()
        .replace(/^["']|["']$/g, "")
    : undefined;
  if (previous === day) {
    return { ok: true, id, path: rel, verified: day, previous, changed: false, diagnostics: [] };
  }
  const after = line
    ? `${text.slice(0, start + line.index)}verified: ${day}${text.slice(start + line.index + line[0].length)}`
    : appendToBlock(site, `verified: ${day}${site.eol}`);
  const parsed = parsePage(id, rel, Buffer.from(after, "utf8"));
  const value = parsed.ok ? parsed.page.frontmatter.verified : undefined;
  const readBack = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  if (!parsed.ok || readBack !== day) {
    return fail("verify_not_written", `${rel}: the verified line could not be written safely`, rel);
  }
  // A concurrent editor may have saved since the read: their change wins.
  if (!commitEdit(site, after)) {
    return fail("verify_page_changed", `${rel} changed while being verified; try again`, rel);
  }
  // The page says it now; a log that cannot take the event is a warning.
  const logged = recordEvents(vault, [{ kind: "page_verified", page: id, verified: day }], now);
  const result: VerifyPageResult = {
    ok: true,
    id,
    path: rel,
    verified: day,
    changed: true,
    diagnostics: logged.diagnostics,
  };
  if (previous !== undefined) result.previous = previous;
  return result;
}
