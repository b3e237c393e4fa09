/**
 * Which of a fixed set of literals a text contains, in one pass: the
 * prefilter of the secret rules asks this for dozens of literals per text,
 * and one `includes` scan per literal cost more than most rules it skipped.
 */

/** The literals of the set found in a text: as written, or (`anyCase`) in the lower-cased text. */
export interface FoundLiterals {
  has(literal: string, anyCase?: boolean): boolean;
}

const escapeLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * A finder for `literals`, looked for as written, and `anyCase` (lower
 * case), looked for in the lower-cased text. A zero-width look-ahead tries
 * every position; longest first, so what it takes at a position is the
 * longest literal there, and every shorter one there is a prefix of it,
 * added with it. So no occurrence is missed, overlapping ones included.
 */
export function literalFinder(
  literals: readonly string[],
  anyCase: readonly string[],
): (text: string) => FoundLiterals {
  const exact = matcherOf(literals);
  const folded = matcherOf(anyCase);
  let last: { text: string; found: FoundLiterals } | undefined;
  return (text) => {
    if (last?.text === text) return last.found;
    const hits = new Set<string>();
    exact(text, hits, "");
    // Lower-casing never takes an ASCII letter away, so a literal written in any case is found.
    if (anyCase.length > 0) folded(text.toLowerCase(), hits, "\u0000");
    const found: FoundLiterals = {
      has: (literal, folded = false) => hits.has(folded ? `\u0000${literal}` : literal),
    };
    last = { text, found };
    return found;
  };
}

/** Adds to `hits` (each with `tag` before it) every literal of `set` found in `text`. */
function matcherOf(set: readonly string[]): (text: string, hits: Set<string>, tag: string) => void {
  const unique = [...new Set(set)].filter((l) => l.length > 0);
  if (unique.length === 0) return () => {};
  const sorted = unique.sort((a, b) => b.length - a.length);
  const prefixes = new Map(sorted.map((l) => [l, sorted.filter((s) => l.startsWith(s))]));
  const pattern = new RegExp(`(?=(${sorted.map(escapeLiteral).join("|")}))`, "g");
  return (text, hits, tag) => {
    for (const match of text.matchAll(pattern)) {
      for (const literal of prefixes.get(match[1] ?? "") ?? []) hits.add(tag + literal);
    }
  };
}
