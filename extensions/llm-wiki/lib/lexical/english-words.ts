/**
 * Whether a word is ordinary English (english-stems.ts, from the en_US
 * Hunspell dictionary): spelling repair never reads one as a typo of a
 * vault's word ("senior" is not "sensor"). The list is split once, on the
 * first word asked about, and searched by halves.
 */
import { ENGLISH_STEMS } from "./english-stems.ts";

let stems: readonly string[] | undefined;

/** Whether `stem` (stemmed as the index stems) is the stem of an English word. */
export function isEnglishStem(stem: string): boolean {
  stems ??= ENGLISH_STEMS.split("\n");
  let lo = 0;
  let hi = stems.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = stems[mid] ?? "";
    if (at === stem) return true;
    if (at < stem) lo = mid + 1;
    else hi = mid;
  }
  return false;
}
