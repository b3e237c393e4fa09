/**
 * Spelling repair against the vault's own vocabulary: a query word that is
 * on no page, and is not an ordinary word either, is most likely a typo of a
 * word the vault uses ("postgress", "heartbaet"). Its spellings one edit
 * away (a letter dropped, added, changed, or two swapped) are looked up in
 * the index, and the one most pages hold replaces it. Pure: the lookup is
 * handed in.
 */
import { backgroundCount } from "./background.ts";
import { isEnglishStem, isSoftwareNameStem } from "./english-words.ts";
import { ftsTokens } from "./fts-tokens.ts";

/** Shorter words have too many neighbours one edit away to guess from. */
const MIN_LENGTH = 5;
/** Longer words are identifiers or pasted text, not typed words. */
const MAX_LENGTH = 24;
/** Words repaired per query at most: each costs one lookup of its few hundred spellings. */
const MAX_REPAIRS = 2;
const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** A word of the query replaced by a spelling the vault holds. */
export interface SpellingRepair {
  from: string;
  to: string;
}

/** Every lower-case spelling one edit (Damerau) away from `word`. */
export function oneEditAway(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i += 1) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail.length > 0) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const c of LETTERS) {
      out.add(head + c + tail);
      if (tail.length > 0 && c !== tail[0]) out.add(head + c + tail.slice(1));
    }
  }
  out.delete(word);
  return [...out];
}

/**
 * Whether `word` may be a typo worth repairing: a plain Latin word of a
 * typed length that no page holds (`pagesHolding`) and that ordinary
 * writing does not use: neither software English (the background model),
 * an English dictionary ("senior" asked of a vault that says "sensor" is a
 * word the vault lacks, not a typo) nor a dictionary of software names
 * ("mongo" asked of a vault that says "ongoing") lists its stem.
 */
export function repairable(word: string, pagesHolding: number): boolean {
  if (pagesHolding > 0) return false;
  if (word.length < MIN_LENGTH || word.length > MAX_LENGTH) return false;
  if (!/^[a-z]+$/.test(word)) return false;
  const [stem] = ftsTokens(word);
  return (
    stem !== undefined &&
    backgroundCount(stem) === 0 &&
    !isEnglishStem(stem) &&
    !isSoftwareNameStem(stem)
  );
}

/**
 * The repairs for a query's words: each word `repairable` says may be a
 * typo, replaced by its one-edit spelling that the most pages hold
 * (`pagesHolding` counts a batch of words in one lookup; ties go to the
 * first in alphabetical order, so the answer never depends on Set order),
 * shown as the shortest spelling that stems alike.
 */
export function spellingRepairs(
  words: readonly { word: string; pages: number }[],
  pagesHolding: (spellings: readonly string[]) => ReadonlyMap<string, number>,
): SpellingRepair[] {
  const typos = words.filter((w) => repairable(w.word, w.pages)).slice(0, MAX_REPAIRS);
  if (typos.length === 0) return [];
  // Spellings that stem alike are one lookup: the index holds stems.
  const byStem = new Map<string, string>();
  // What a person is shown for a stem: its shortest spelling ("postgres",
  // not "postgrness", which stems alike), the first in alphabetical order.
  const shownFor = new Map<string, string>();
  const spellingsOf = new Map<string, string[]>();
  for (const { word } of typos) {
    const spellings: string[] = [];
    for (const spelling of oneEditAway(word)) {
      const [stem] = ftsTokens(spelling);
      if (stem === undefined) continue;
      const first = byStem.get(stem);
      if (first === undefined) byStem.set(stem, spelling);
      const shown = shownFor.get(first ?? spelling);
      if (
        shown === undefined ||
        spelling.length < shown.length ||
        (spelling.length === shown.length && spelling < shown)
      )
        shownFor.set(first ?? spelling, spelling);
      spellings.push(first ?? spelling);
    }
    spellingsOf.set(word, [...new Set(spellings)]);
  }
  const counts = pagesHolding([...byStem.values()]);
  const repairs: SpellingRepair[] = [];
  for (const { word } of typos) {
    let best: { to: string; pages: number } | undefined;
    for (const spelling of (spellingsOf.get(word) ?? []).sort()) {
      const pages = counts.get(spelling) ?? 0;
      if (pages > 0 && (!best || pages > best.pages)) best = { to: spelling, pages };
    }
    if (best) repairs.push({ from: word, to: shownFor.get(best.to) ?? best.to });
  }
  return repairs;
}
