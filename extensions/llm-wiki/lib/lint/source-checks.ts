/**
 * `sources:` checks: an entry that names no page of the vault, no file or
 * folder under its `raw/` and no URL (`source_unknown`), or that could mean
 * several pages (`source_ambiguous`). Recall shows the pages a card's
 * sources name as its evidence, so an entry that names nothing is evidence
 * the reader is promised and never shown.
 */
import { sourceProblems } from "../source-refs.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import type { LintFinding } from "./types.ts";

/** One finding per page and `sources:` entry that names nothing or several pages. */
export function sourceFindings(registry: Registry, vault: VaultPaths): LintFinding[] {
  const out: LintFinding[] = [];
  for (const page of registry.pages.values()) {
    if (page.sources.length === 0) continue;
    for (const problem of sourceProblems(vault, registry.pages, page.sources, registry.names)) {
      const { ref, candidates } = problem;
      out.push(
        candidates
          ? {
              check: "link",
              code: "source_ambiguous",
              severity: "warning",
              message: `${page.path}: sources entry "${ref}" could mean ${candidates.join(" or ")}; write the full page id`,
              path: page.path,
              target: ref,
              candidates,
            }
          : {
              check: "link",
              code: "source_unknown",
              severity: "warning",
              message: `${page.path}: sources entry "${ref}" names no page, no file under raw/ and no URL`,
              path: page.path,
              target: ref,
              repair:
                "write the id of a page or captured source (wiki_capture_source captures one), or remove the entry",
            },
      );
    }
  }
  return out;
}
