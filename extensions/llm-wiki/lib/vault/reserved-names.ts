/**
 * File names under `wiki/` that are never pages. OKF v0.2 reserves
 * `index.md` (a folder's catalog) and `log.md` (the bundle's activity log),
 * compared case-insensitively, and `@zosmaai/pi-llm-wiki` skips both names
 * at every depth whatever the vault's mode, so a vault shared by both tools
 * has the same pages in each. Slugs never produce them (see slug.ts).
 */

/** Base names (lower case, without `.md`) that no page may have. */
export const RESERVED_PAGE_NAMES: ReadonlySet<string> = new Set(["index", "log"]);

/**
 * True when the file at `rel` (any path whose last segment is a file name,
 * e.g. `wiki/index.md` or `wiki/concepts/LOG.md`) is a reserved view, not a page.
 */
export function isReservedWikiFile(rel: string): boolean {
  const name = rel.slice(Math.max(rel.lastIndexOf("/"), rel.lastIndexOf("\\")) + 1).toLowerCase();
  return name.endsWith(".md") && RESERVED_PAGE_NAMES.has(name.slice(0, -3));
}
