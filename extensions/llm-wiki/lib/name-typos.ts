/**
 * A two-word name typed with one slip: "warm pol size" names the page
 * "Warm pools". A short word is too ambiguous to repair alone (a dozen
 * words are one edit from "pol"), but beside its neighbour only a spelling
 * that completes a name the vault holds is taken, so the name itself is the
 * evidence. Only words ordinary writing never uses are tried (the
 * background model lists no such stem), at most a few per query, each at a
 * few hundred map lookups.
 */
import { STOP_WORDS } from "./index/lex-query.ts";
import { backgroundCount } from "./lexical/background.ts";
import { ftsTokens } from "./lexical/fts-tokens.ts";
import { oneEditAway } from "./lexical/spelling.ts";

/** Shorter words have too many neighbours; longer ones are left to the index's spelling repair. */
const MIN_LETTERS = 3;
const MAX_LETTERS = 6;
/** Words tried per query at most. */
const MAX_TRIED = 2;

/** A name the query holds once one of its words is respelled. */
export interface RepairedName {
  /** The name's key in the words table (its stems). */
  key: string;
  /** The query word respelled, and its spelling in the name. */
  from: string;
  to: string;
}

/** Whether `word` (lower case) may be a slip worth trying against the names. */
function tryable(word: string): boolean {
  if (word.length < MIN_LETTERS || word.length > MAX_LETTERS) return false;
  if (!/^[a-z]+$/.test(word) || STOP_WORDS.has(word)) return false;
  const [stem] = ftsTokens(word);
  return stem !== undefined && backgroundCount(stem) === 0;
}

/**
 * Two-word names (`hasName` on their stem keys) that `tokens` (the query's
 * words, lower case) hold once one unusual word is respelled one edit away,
 * beside a neighbour that is not a stop word. `stemOf` reads a word as the
 * name table does.
 */
export function repairedNames(
  tokens: readonly string[],
  stemOf: (word: string) => string,
  hasName: (key: string) => boolean,
): RepairedName[] {
  const out: RepairedName[] = [];
  let tried = 0;
  for (let i = 0; i < tokens.length && tried < MAX_TRIED; i += 1) {
    const word = tokens[i] as string;
    if (!tryable(word)) continue;
    tried += 1;
    const neighbours = [i - 1, i + 1].filter((j) => {
      const n = tokens[j];
      return n !== undefined && n.length > 1 && !STOP_WORDS.has(n);
    });
    if (neighbours.length === 0) continue;
    // Sorted, so the first spelling that completes a name is the same on every run.
    for (const spelling of oneEditAway(word).sort()) {
      const stem = stemOf(spelling);
      if (stem === "") continue;
      const found = neighbours
        .map((j) =>
          j < i
            ? `${stemOf(tokens[j] as string)} ${stem}`
            : `${stem} ${stemOf(tokens[j] as string)}`,
        )
        .find(hasName);
      if (found !== undefined) {
        out.push({ key: found, from: word, to: spelling });
        break;
      }
    }
  }
  return out;
}
