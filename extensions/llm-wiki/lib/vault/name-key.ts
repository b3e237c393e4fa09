/**
 * How page names (titles, aliases, tags, ids) are compared everywhere: NFKC,
 * case-folded, whitespace collapsed. `ensurePage`, the dated evidence pages,
 * the exact lookup and lint's duplicate check all agree on what "the same
 * title" means, so no writer creates a page lint then calls a duplicate.
 */
export function nameKey(name: string): string {
  return name.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}
