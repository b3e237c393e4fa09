/**
 * The body links that make a declared relation count: the relation graph
 * (vault/relation-graph.ts) keeps a relation only when the page's body also
 * links its target, so a writer given a relation the body does not link
 * appends one line for it, e.g. `Supersedes [[decisions/old-cache]].`
 */
import { extractLinks, LinkResolver } from "../vault/links.ts";
import type { Relation } from "../vault/relations.ts";

const VERB: Record<string, string> = {
  supports: "Supports",
  contradicts: "Contradicts",
  qualifies: "Qualifies",
  supersedes: "Supersedes",
  derived_from: "Derived from",
  related_to: "Related to",
};

/** One line per relation, naming it and linking its target. */
export function relationLinkLines(relations: readonly Relation[]): string[] {
  return relations.map((r) =>
    r.type === "applies_under"
      ? `Applies instead of [[${r.target}]] under: ${r.scope ?? ""}.`
      : `${VERB[r.type] ?? r.type} [[${r.target}]].`,
  );
}

/**
 * A test of whether a body links a target page, resolving its links against
 * `ids` (the vault's pages, and the `targets` as if they were pages) as the
 * registry does.
 */
export function bodyLinker(
  pageId: string,
  ids: Iterable<string>,
  targets: readonly string[],
): (body: string, target: string) => boolean {
  const resolver = new LinkResolver([...ids, ...targets]);
  return (body, target) =>
    extractLinks(pageId, body).some((link) => {
      const r = resolver.resolve(link.target);
      return r.status === "resolved" && r.id === target;
    });
}

/**
 * `body` with a link line appended for each relation whose target it does
 * not link yet, and those relations' targets.
 */
export function bodyWithRelationLinks(
  body: string,
  relations: readonly Relation[],
  links: (body: string, target: string) => boolean,
): { body: string; added: string[] } {
  const missing = relations.filter((r) => !links(body, r.target));
  if (missing.length === 0) return { body, added: [] };
  const lines = relationLinkLines(missing).join("\n");
  const text = body.trimEnd() === "" ? `${lines}\n` : `${body.trimEnd()}\n\n${lines}\n`;
  return { body: text, added: [...new Set(missing.map((r) => r.target))] };
}
