/**
 * A tool's `supersedes`. What a tool writes is an agent's claim, as
 * established as a draft (vault/supersession.ts), yet a relation is judged
 * by the standing of the page that declares it: an agent could retire a
 * reviewed page by adding `--relation supersedes:…` to another reviewed
 * page, or by writing a new page it calls `stable`. So a tool's
 * `supersedes` stays one only on a draft (a page the tools create is one
 * unless told otherwise); on any other page it is recorded as `contradicts`
 * (a competing claim: recall shows both, lint asks a person to decide),
 * with a warning that says so and how to accept it.
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
  return draftLike
    ? { relations: [...relations], diagnostics: [] }
    : asCompeting(id, path, relations);
}

/** `relations` as a tool may give them to a page it creates with `status`. */
export function toolRelationsForNew(
  id: string,
  path: string,
  status: unknown,
  relations: readonly Relation[],
): { relations: Relation[]; diagnostics: Diagnostic[] } {
  if (status === "draft" || !relations.some((r) => r.type === "supersedes")) {
    return { relations: [...relations], diagnostics: [] };
  }
  return asCompeting(id, path, relations);
}

/** Each `supersedes` of `relations` as `contradicts`, with a warning for each. */
function asCompeting(
  id: string,
  path: string,
  relations: readonly Relation[],
): { relations: Relation[]; diagnostics: Diagnostic[] } {
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
