/**
 * `stale_reference`: a page names code that was deleted, or that changed
 * substantially after the page's `updated`/`verified` date, or a symbol
 * that was there at that date and is gone (see code-refs/stale-refs.ts and
 * stale-symbols.ts for what counts). One finding per path or symbol (the
 * finding's target), naming the commit; the repair re-verifies the page
 * once it is brought up to date.
 */
import { codeStates } from "../code-refs/code-state.ts";
import { describeStaleRef, staleTarget } from "../code-refs/stale-refs.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import type { LintFinding } from "./types.ts";

/** Findings for every page of `registry` whose named code moved on. */
export function staleReferenceFindings(
  owner: object,
  vault: VaultPaths,
  registry: Registry,
): LintFinding[] {
  const pages = [...registry.pages.values()].map((p) => {
    const hash = registry.hashes.get(p.id);
    return hash === undefined ? { id: p.id, path: p.path } : { id: p.id, path: p.path, hash };
  });
  const out: LintFinding[] = [];
  for (const [id, state] of codeStates(owner, vault, pages)) {
    const page = registry.pages.get(id);
    if (!page) continue;
    for (const ref of state.stale) {
      const finding: LintFinding = {
        check: "stale",
        code: "stale_reference",
        severity: "warning",
        message: `${page.path}: ${describeStaleRef(ref)}; update the page, then mark it verified`,
        path: page.path,
        target: staleTarget(ref),
        repair: `llm-wiki verify ${id}`,
      };
      out.push(finding);
    }
  }
  return out;
}
