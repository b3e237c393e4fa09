/**
 * A page's excerpt window cut in JavaScript, character for character as
 * SQLite cut it before (`lower`, `instr`, `substr`, `length` on the page
 * text): SQLite's `lower` folds ASCII letters only, its positions count
 * code points, and its `substr` and `length` stop at the first NUL. Cutting here from
 * the page text read once costs a fraction of lower-casing and scanning
 * every hit's page inside SQLite, which took as long as the search itself.
 */
import { tidyWindow, WINDOW_BEFORE, WINDOW_CHARS } from "./qmd-excerpts.ts";

const ASCII_UPPER = /[A-Z]+/g;
const SURROGATE = /[\uD800-\uDFFF]/;
const NOT_ASCII = /[^\p{ASCII}]/u;

/** SQLite's built-in `lower`: ASCII letters only, every other character as it is. */
export function sqliteLower(text: string): string {
  // On ASCII text the native fold is the same, and much faster.
  return NOT_ASCII.test(text)
    ? text.replace(ASCII_UPPER, (m) => m.toLowerCase())
    : text.toLowerCase();
}

/** Code points of `text` before UTF-16 offset `at`. */
function codePointsBefore(text: string, at: number): number {
  let n = 0;
  for (let i = 0; i < at; i += 1) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < at) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    n += 1;
  }
  return n;
}

/** The window SQLite's statement returned: its text, 1-based start and the page's length, in code points. */
export interface BodyWindow {
  text: string;
  start: number;
  length: number;
}

/**
 * A query's words compiled once for every page of its answer: one pattern
 * of the words as alternatives, whose leftmost match is where the first of
 * them starts (a scan of the text per word cost more than the search).
 */
export interface WordFinder {
  readonly pattern: RegExp;
  /** The longest word's length, in UTF-16 code units. */
  readonly longest: number;
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g;

/**
 * `words` without those another of them begins ("heat" before "heattransfer",
 * a question's joined words): wherever such a word starts, the shorter one
 * starts too, so the first of the rest starts where the first of all does,
 * with fewer alternatives for every position of every page.
 */
function leading(words: readonly string[]): string[] {
  const sorted = [...new Set(words)].sort();
  const out: string[] = [];
  // Sorted, a word's shortest prefix among them is the last word kept before it, if any.
  for (const word of sorted) {
    const last = out.at(-1);
    if (last === undefined || !word.startsWith(last)) out.push(word);
  }
  return out;
}

/** The finder of `words` (already folded as SQLite folds: see `sqliteLower`). */
export function wordFinder(all: readonly string[]): WordFinder {
  const words = leading(all);
  let longest = 0;
  for (const word of words) longest = Math.max(longest, word.length);
  // No `u` flag: positions are UTF-16 code units, as `indexOf` counts them.
  const source = words.map((w) => w.replace(REGEX_SPECIAL, "\\$&")).join("|");
  return { pattern: new RegExp(words.length === 0 ? "[^\\s\\S]" : source), longest };
}

const finderOf = (words: readonly string[] | WordFinder): WordFinder =>
  "pattern" in words ? words : wordFinder(words);

/** Characters of a page's start looked through before the whole page is folded and scanned. */
const HEAD_CHARS = 512;

/**
 * Where the first of `words` starts in `doc` folded as SQLite folds it. A
 * word found whole within the page's start ends the search there (folding
 * is character by character, and any earlier occurrence ends before that
 * one's last word could), so a long page is folded whole only when its
 * start holds none.
 */
function firstWord(doc: string, finder: WordFinder): number {
  if (doc.length > HEAD_CHARS) {
    const first = sqliteLower(doc.slice(0, HEAD_CHARS)).search(finder.pattern);
    if (first >= 0 && first + finder.longest <= HEAD_CHARS) return first;
  }
  return sqliteLower(doc).search(finder.pattern);
}

/**
 * The window of `doc` around the first of `words` found (case folded as
 * SQLite folds it): from WINDOW_BEFORE characters before it, WINDOW_CHARS
 * long; from the start when none is found.
 */
export function bodyWindow(doc: string, words: readonly string[] | WordFinder): BodyWindow {
  const first = firstWord(doc, finderOf(words));
  // SQLite's substr and length read the text up to its first NUL; instr reads it all.
  const nul = doc.indexOf("\u0000");
  const head = nul < 0 ? doc : doc.slice(0, nul);
  if (!SURROGATE.test(doc)) {
    // Code units are code points: positions carry over as they are.
    const at = first < 0 ? 1 : first + 1;
    const start = Math.max(1, at - WINDOW_BEFORE);
    return { text: head.slice(start - 1, start - 1 + WINDOW_CHARS), start, length: head.length };
  }
  const at = first < 0 ? 1 : codePointsBefore(doc, first) + 1;
  const start = Math.max(1, at - WINDOW_BEFORE);
  const points = Array.from(head);
  const text = points.slice(start - 1, start - 1 + WINDOW_CHARS).join("");
  return { text, start, length: points.length };
}

/** The excerpt of `doc` for `words` (tidied, ellipses where cut), or undefined for an empty window. */
export function bodyExcerpt(
  doc: string,
  words: readonly string[] | WordFinder,
): string | undefined {
  const w = bodyWindow(doc, words);
  if (!w.text) return undefined;
  // As before: the window's UTF-16 length against the page's length in characters.
  const cutEnd = w.start - 1 + w.text.length < w.length;
  return tidyWindow(w.text, w.start > 1, cutEnd);
}
