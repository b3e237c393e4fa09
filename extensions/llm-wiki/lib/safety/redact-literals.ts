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
 * case), looked for in the lower-cased text. Every occurrence counts,
 * overlapping ones included. All-ASCII sets (the secret rules' literals)
 * are found by two automata in one pass over the text, lower-casing as it
 * reads; any other by a regular expression.
 */
export function literalFinder(
  literals: readonly string[],
  anyCase: readonly string[],
): (text: string) => FoundLiterals {
  const exact = matcherOf(literals);
  const folded = matcherOf(anyCase, true);
  let last: { text: string; found: FoundLiterals } | undefined;
  return (text) => {
    if (last?.text === text) return last.found;
    // Two sets, asked with the rules' own (constant) strings: a tagged key
    // made per question cost more than the scan.
    const hits = new Set<string>();
    const foldedHits = new Set<string>();
    // Lower-casing never takes an ASCII letter away, so a literal written in
    // any case is found in the lower-cased text; a character outside ASCII
    // may lower-case into one (the Kelvin sign into "k"), so a text holding
    // one is also lower-cased whole and read again for what that adds.
    if (exact instanceof AsciiAutomaton && folded instanceof AsciiAutomaton) {
      const outside = scanAscii(text, exact, folded, hits, foldedHits);
      if (outside && anyCase.length > 0) folded.find(text.toLowerCase(), foldedHits);
    } else {
      exact.find(text, hits);
      if (anyCase.length > 0) folded.find(text.toLowerCase(), foldedHits);
    }
    const found: FoundLiterals = {
      has: (literal, folded = false) => (folded ? foldedHits : hits).has(literal),
    };
    last = { text, found };
    return found;
  };
}

const NOT_ASCII = /[^\p{ASCII}]/u;

/** Adds to `hits` every literal of a set found in a text. */
interface Matcher {
  find(text: string, hits: Set<string>): void;
}

/** The matcher for `set`; a `folding` one reads upper-case ASCII letters as lower case. */
function matcherOf(set: readonly string[], folding = false): Matcher {
  const unique = [...new Set(set)].filter((l) => l.length > 0);
  return unique.some((l) => NOT_ASCII.test(l))
    ? new LookaheadMatcher(unique)
    : new AsciiAutomaton(unique, folding);
}

/**
 * A zero-width look-ahead tries every position; longest first, so what it
 * takes at a position is the longest literal there, and every shorter one
 * there is a prefix of it, added with it.
 */
class LookaheadMatcher implements Matcher {
  private readonly pattern: RegExp;
  private readonly prefixes: Map<string, string[]>;

  constructor(unique: string[]) {
    const sorted = unique.sort((a, b) => b.length - a.length);
    this.prefixes = new Map(sorted.map((l) => [l, sorted.filter((s) => l.startsWith(s))]));
    this.pattern = new RegExp(`(?=(${sorted.map(escapeLiteral).join("|")}))`, "g");
  }

  find(text: string, hits: Set<string>): void {
    for (const match of text.matchAll(this.pattern)) {
      for (const literal of this.prefixes.get(match[1] ?? "") ?? []) hits.add(literal);
    }
  }
}

/** ASCII code units: the automaton's alphabet; any other character ends every match under way. */
const ASCII = 128;

/**
 * Aho–Corasick over ASCII: a state per prefix of a literal, and for each
 * state and character the state of the longest literal prefix that ends
 * there, so each character costs one table read. A table entry is the next
 * state's row offset (state × 128) with its lowest bit set where some literal
 * ends there: one read says both where to go and whether to report. `ends[s]`
 * lists the literals that end at state s (its own, and those ending in a
 * suffix). A `folding` automaton reads an upper-case ASCII letter as its
 * lower case, in the table itself.
 */
class AsciiAutomaton implements Matcher {
  readonly next: Int32Array;
  readonly ends: Array<readonly string[] | undefined>;

  constructor(unique: readonly string[], folding = false) {
    // The trie: state 0 is the empty prefix.
    const children: Array<Map<number, number>> = [new Map()];
    const own: Array<string[]> = [[]];
    for (const literal of unique) {
      let s = 0;
      for (let i = 0; i < literal.length; i += 1) {
        const c = literal.charCodeAt(i);
        let t = children[s]?.get(c);
        if (t === undefined) {
          t = children.length;
          children.push(new Map());
          own.push([]);
          children[s]?.set(c, t);
        }
        s = t;
      }
      own[s]?.push(literal);
    }
    const states = children.length;
    const goto = new Int32Array(states * ASCII);
    const next = new Int32Array(states * ASCII);
    const fail = new Int32Array(states);
    const ends: Array<readonly string[] | undefined> = new Array(states).fill(undefined);
    // Breadth first, so a state's fallback is complete before its children's.
    // A state's rows are its fallback's whole (one native copy each, not 128
    // reads a state: the first redaction of a process built this in the
    // interpreter), then its own children over them; a child's literals and
    // its `next` entry (state row and end bit) are known once its fallback is.
    const queue: number[] = [0];
    for (let q = 0; q < queue.length; q += 1) {
      const s = queue[q] ?? 0;
      const back = fail[s] ?? 0;
      if (s !== 0) {
        goto.copyWithin(s * ASCII, back * ASCII, back * ASCII + ASCII);
        next.copyWithin(s * ASCII, back * ASCII, back * ASCII + ASCII);
      }
      for (const [c, t] of children[s] ?? []) {
        goto[s * ASCII + c] = t;
        const tail = s === 0 ? 0 : (goto[back * ASCII + c] ?? 0);
        fail[t] = tail;
        const found = [...(own[t] ?? []), ...(ends[tail] ?? [])];
        ends[t] = found.length > 0 ? found : undefined;
        const entry = t * ASCII + (ends[t] === undefined ? 0 : 1);
        // Folding, an upper-case letter reads as its lower case's entry.
        if (!(folding && c >= 65 && c <= 90)) next[s * ASCII + c] = entry;
        if (folding && c >= 97 && c <= 122) next[s * ASCII + c - 32] = entry;
        queue.push(t);
      }
    }
    this.next = next;
    this.ends = ends;
  }

  find(text: string, hits: Set<string>): void {
    scanAscii(text, this, NO_LITERALS, hits, hits);
  }
}

/** An automaton that finds nothing: the other half of a one-set scan. */
const NO_LITERALS = new AsciiAutomaton([]);

/** Adds the literals ending at the state of row offset `row` to `hits`. */
function report(automaton: AsciiAutomaton, row: number, hits: Set<string>): void {
  for (const literal of automaton.ends[row / ASCII] ?? []) hits.add(literal);
}

/**
 * Both sets in one pass: `exact` over the text as written into `hits`,
 * `folded` (built folding) over it with ASCII letters lower-cased into
 * `foldedHits`. True when the text holds a character outside ASCII (where
 * both automata start again).
 */
function scanAscii(
  text: string,
  exact: AsciiAutomaton,
  folded: AsciiAutomaton,
  hits: Set<string>,
  foldedHits: Set<string>,
): boolean {
  const exactNext = exact.next;
  const foldedNext = folded.next;
  // Row offsets of the current states; an entry's lowest bit says a literal ends.
  let e = 0;
  let f = 0;
  let outside = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= ASCII) {
      e = 0;
      f = 0;
      outside = true;
      continue;
    }
    const toE = exactNext[e + c] ?? 0;
    const toF = foldedNext[f + c] ?? 0;
    e = toE & ~1;
    f = toF & ~1;
    if (((toE | toF) & 1) === 0) continue;
    if ((toE & 1) === 1) report(exact, e, hits);
    if ((toF & 1) === 1) report(folded, f, foldedHits);
  }
  return outside;
}
