/**
 * Pages stale by code (a path they name was deleted or changed
 * substantially after their date, a symbol they name is gone), as lint's
 * `stale_reference` and recall's `stale` label find them. While HEAD is
 * unchanged this is read from the code-refs cache and runs no git, which is
 * why status asks for it only on request (`code: true`).
 */
import { codeStates } from "../code-refs/code-state.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";

/** Ids of the pages of `registry` whose named code moved on. */
export function staleByCode(owner: object, vault: VaultPaths, registry: Registry): Set<string> {
  const pages = [...registry.pages.values()].map((p) => {
    const hash = registry.hashes.get(p.id);
    return hash === undefined ? { id: p.id, path: p.path } : { id: p.id, path: p.path, hash };
  });
  const out = new Set<string>();
  for (const [id, state] of codeStates(owner, vault, pages)) {
    if (state.stale.length > 0) out.add(id);
  }
  return out;
}
