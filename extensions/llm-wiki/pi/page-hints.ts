/**
 * The pages a wiki tool just wrote, named for the background reindex so it
 * looks at them alone instead of every page (see `RefreshOptions.changed`).
 */

/**
 * `paths` (relative to `.llm-wiki/`, as the service reports them) when every
 * one is a page under `wiki/`; otherwise undefined, and the pass looks at
 * every page, as it must when it cannot be told what changed.
 */
export function pageHints(paths: ReadonlyArray<string | undefined>): string[] | undefined {
  const out: string[] = [];
  for (const path of paths) {
    if (path === undefined || !path.startsWith("wiki/") || !path.endsWith(".md")) return undefined;
    out.push(path);
  }
  return out;
}
