/**
 * A tool's `supersedes` on a page that already exists. What a tool writes
 * is an agent's claim, as established as a draft (vault/supersession.ts),
 * yet a relation added to an existing `stable` or verified page would be
 * judged by that page's standing: an agent could retire a reviewed page by
 * adding `--relation supersedes:…` to another reviewed page. So on an
 * existing page that is not a draft, a tool's `supersedes` is recorded as
 * `contradicts` (a competing claim: recall shows both, lint asks a person to
 * decide), with a warning that says so and how to accept it. On a draft, or
 * on a page the tool creates (a draft), it stays `supersedes` and the one
 * rule of vault/supersession.ts judges it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Relation } from "../vault/relations.ts";
import { establishment } from "../vault/supersession.ts";

/** `relations` as a tool may add them to the existing page `id` at `path`, and a warning per one changed. */
export function toolRelationsForExisting(
  vault: VaultPaths,
  id: string,
  path: string,
  relations: readonly Relation[],
): { relations: Relation[]; diagnostics: Diagnostic[] } {
  if (!relations.some((r) => r.type === "supersedes")) {
    return { relations: [...relations], diagnostics: [] };
  }
  let draftLike = false;
  try {
    const parsed = parsePage(id, path, readFileSync(join(vault.dir, path)));
    draftLike = parsed.ok && establishment(parsed.page) === 0;
  } catch {
    draftLike = false;
  }
  if (draftLike) return { relations: [...relations], diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const out = relations.map((r) => {
    if (r.type !== "supersedes") return r;
    diagnostics.push(
      diagnostic(
        "page_supersedes_as_competing",
        "warning",
        `${path} is not a draft, so a tool's claim that it supersedes ${r.target} is recorded as "contradicts" (a competing claim recall shows beside it); a person accepts it with: llm-wiki resolve-conflict --selected ${id} --other ${r.target} --relation supersedes`,
        { path },
      ),
    );
    return { ...r, type: "contradicts" };
  });
  return { relations: out, diagnostics };
}
