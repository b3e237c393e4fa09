/**
 * Exact registry lookup (`wiki_search`): ids, titles, aliases and tags, with
 * exact id/title/alias matches first. No index, no model: instant answers
 * for names the caller already knows.
 */
import { nameKey } from "./name-key.ts";
import type { PageMeta } from "./page.ts";

export type LookupMatch = "id" | "title" | "alias" | "tag" | "partial";

export interface LookupHit {
  id: string;
  title: string;
  type: string;
  role: PageMeta["role"];
  match: LookupMatch;
  description?: string;
}

/** Order of match kinds, best first; merged results from several vaults sort by it too. */
export const MATCH_RANK: Readonly<Record<LookupMatch, number>> = {
  id: 0,
  title: 1,
  alias: 2,
  tag: 3,
  partial: 4,
};

function classify(page: PageMeta, q: string): LookupMatch | undefined {
  const id = nameKey(page.id);
  if (id === q || id.split("/").pop() === q) return "id";
  if (nameKey(page.title) === q) return "title";
  const aliases = page.aliases.map(nameKey);
  if (aliases.includes(q)) return "alias";
  if (page.tags.map(nameKey).includes(q)) return "tag";
  if (q.length >= 2 && [id, nameKey(page.title), ...aliases].some((s) => s.includes(q)))
    return "partial";
  return undefined;
}

/** Pages matching `query`, best match kind first, then by id. */
export function lookupPages(pages: Iterable<PageMeta>, query: string, limit: number): LookupHit[] {
  const q = nameKey(query);
  if (q === "") return [];
  const hits: LookupHit[] = [];
  for (const page of pages) {
    const match = classify(page, q);
    if (match === undefined) continue;
    const hit: LookupHit = {
      id: page.id,
      title: page.title,
      type: page.type,
      role: page.role,
      match,
    };
    if (page.description) hit.description = page.description;
    hits.push(hit);
  }
  hits.sort(
    (a, b) => MATCH_RANK[a.match] - MATCH_RANK[b.match] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return hits.slice(0, limit);
}
