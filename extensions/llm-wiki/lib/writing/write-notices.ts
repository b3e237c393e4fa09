/**
 * What a page write says about its neighbours, without stopping the write:
 * links to pages that do not exist (`link_unresolved`, the older system's
 * default "warn" mode: the write proceeds, each unresolved target named
 * once) or to several (`link_ambiguous`), and a new title that nearly
 * repeats an existing page's (`page_near_duplicate`: case, punctuation,
 * plural or word order aside), naming that page; `sources` entries that
 * name no page, no `raw/` file and no URL (`source_unknown`) or several
 * pages (`source_ambiguous`).
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { nearNameKey } from "../name-match.ts";
import { sourceProblems } from "../source-refs.ts";
import { extractLinks, LinkResolver } from "../vault/links.ts";
import { nameKey } from "../vault/name-key.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { redactText } from "../vault/redaction.ts";
import type { Relation } from "../vault/relations.ts";

/** The vault's pages (its registry's). */
export type KnownPages = ReadonlyMap<string, PageMeta>;

/**
 * One warning per distinct link target in `body` (of page `pageId`, which
 * counts as existing) that names no page or several; a relation target is
 * said to be one. `elsewhere` names targets that exist though no page does
 * (an older system's trajectory packet).
 */
export function linkNotices(
  pageId: string,
  path: string,
  body: string,
  relations: readonly Relation[],
  pages: KnownPages,
  elsewhere: (target: string) => boolean = () => false,
): Diagnostic[] {
  const resolver = new LinkResolver([...pages.keys(), pageId]);
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const relationTargets = new Set(relations.map((r) => r.target));
  const targets = [...extractLinks(pageId, body).map((l) => l.target), ...relationTargets];
  for (const target of targets) {
    if (seen.has(target)) continue;
    seen.add(target);
    const resolved = resolver.resolve(target);
    const what = relationTargets.has(target) ? "Relation target" : "Wikilink target";
    if (resolved.status === "missing" && !elsewhere(target)) {
      out.push(
        diagnostic(
          "link_unresolved",
          "warning",
          `${what} "${target}" does not match any page; the page was written, and the link counts once that page exists`,
          { path, repair: `create it (wiki_ensure_page) or link an existing page` },
        ),
      );
    } else if (resolved.status === "ambiguous") {
      out.push(
        diagnostic(
          "link_ambiguous",
          "warning",
          `${what} "${target}" matches multiple pages (${resolved.candidates.join(", ")})`,
          { path, repair: "link the page by its full id" },
        ),
      );
    }
  }
  return out;
}

/**
 * A notice for each existing page other than `pageId` (in another folder,
 * or under another slug) whose title repeats or nearly repeats `title`.
 */
export function nearDuplicateNotices(
  pageId: string,
  path: string,
  title: string,
  pages: KnownPages,
): Diagnostic[] {
  const key = nearNameKey(title);
  if (key === "") return [];
  const exact = nameKey(title);
  const out: Diagnostic[] = [];
  for (const page of pages.values()) {
    if (page.id === pageId || nearNameKey(page.title) !== key) continue;
    const how = nameKey(page.title) === exact ? "repeats" : "nearly repeats";
    out.push(
      diagnostic(
        "page_near_duplicate",
        "warning",
        `the title "${title}" ${how} "${page.title}" of ${page.path} (${page.id}); if they are the same subject, link or extend that page instead of keeping two`,
        { path, repair: `link [[${page.id}]] from ${path}, or merge the two pages` },
      ),
    );
  }
  return out;
}

/**
 * One warning per entry of `sources` (given to the page at `path`) that
 * names no page, no file under `raw/` and no URL, or several pages. The
 * write stands: a source may be captured later, and lint keeps asking.
 */
export function sourceNotices(
  vault: VaultPaths,
  path: string,
  sources: readonly string[],
  pages: KnownPages,
): Diagnostic[] {
  return sourceProblems(vault, pages, sources).map(({ ref, candidates }) =>
    candidates
      ? diagnostic(
          "source_ambiguous",
          "warning",
          `Source "${ref}" matches multiple pages (${candidates.join(", ")}); the page was written with it as given`,
          { path, repair: "name the source by its full page id" },
        )
      : diagnostic(
          "source_unknown",
          "warning",
          `Source "${ref}" names no page, no file under raw/ and no URL; the page was written with it as given, and lint reports it until it names one`,
          {
            path,
            repair:
              "capture the source (wiki_capture_source) or write the id of an existing page or captured source",
          },
        ),
  );
}

/**
 * `result` of an observation or retro write with `sourceNotices` for the
 * `sources` it was given (redacted as the page stores them), read against
 * the vault's pages only when there are sources to check.
 */
export function withSourceNotices<T extends { path?: string; diagnostics: Diagnostic[] }>(
  vault: VaultPaths,
  result: T,
  sources: readonly string[] | undefined,
  pages: () => KnownPages,
): T {
  if (!result.path || !sources || sources.length === 0) return result;
  const stored = sources.map((s) => redactText(s.trim(), {})).filter((s) => s !== "");
  result.diagnostics.push(...sourceNotices(vault, result.path, stored, pages()));
  return result;
}
