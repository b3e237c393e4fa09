/**
 * In-place edits of one page's front matter that change only the bytes they
 * mean to: the page is read once, the caller splices its line into the
 * block, and the new text replaces the file atomically only if the file
 * still holds the bytes that were read (a concurrent editor's save wins).
 * Used by verify, mark-ingested and mark-distilled; each names its own
 * diagnostics.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isInside, writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";

const FRONTMATTER = /^(\uFEFF?---[ \t]*(\r?\n))([\s\S]*?\r?\n)?(---|\.\.\.)[ \t]*(\r?\n|$)/;

/** A page opened for a front-matter edit. */
export interface FrontmatterSite {
  abs: string;
  /** The bytes read; the write happens only while the file still holds them. */
  before: Buffer;
  text: string;
  /** Offset of the block's first line (after the opening fence). */
  start: number;
  /** The block between the fences, each line with its line ending. */
  block: string;
  /** The page's line ending, from its opening fence. */
  eol: string;
}

/** Why a page cannot be edited in place. */
export type FrontmatterSiteProblem = "unsafe" | "no_frontmatter";

/**
 * Opens the page at vault-relative `rel`: "unsafe" unless it is a plain file
 * under `wiki/`, "no_frontmatter" without a front-matter block.
 */
export function openFrontmatter(
  vault: VaultPaths,
  rel: string,
): FrontmatterSite | FrontmatterSiteProblem {
  const abs = join(vault.dir, rel);
  if (!isInside(vault.wiki, abs) || lstatSync(abs).isSymbolicLink()) return "unsafe";
  const before = readFileSync(abs);
  const text = before.toString("utf8");
  const fm = FRONTMATTER.exec(text);
  if (!fm) return "no_frontmatter";
  return {
    abs,
    before,
    text,
    start: fm[1]?.length ?? 0,
    block: fm[3] ?? "",
    eol: fm[2] ?? "\n",
  };
}

/** The page's text with `lines` (each ending in the page's line ending) added at the end of the block. */
export function appendToBlock(site: FrontmatterSite, lines: string): string {
  const at = site.start + site.block.length;
  return `${site.text.slice(0, at)}${lines}${site.text.slice(at)}`;
}

/** Writes `after` atomically unless the file changed since it was opened; false when it did. */
export function commitEdit(site: FrontmatterSite, after: string): boolean {
  if (!readFileSync(site.abs).equals(site.before)) return false;
  writeFileAtomic(site.abs, after);
  return true;
}
