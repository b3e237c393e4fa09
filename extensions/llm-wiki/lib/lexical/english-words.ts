/**
 * Words that ordinary writing uses, which spelling repair never reads as a
 * typo of a vault's word: English (english-stems.ts, from the en_US
 * Hunspell dictionary: "senior" is not "sensor") and software names
 * (software-stems.ts, from cspell's software dictionaries: "mongo" is not
 * "ongoing"). Each list is split once, on the first word asked about, and
 * searched by halves.
 */
import { ENGLISH_STEMS } from "./english-stems.ts";
import { SOFTWARE_STEMS } from "./software-stems.ts";

/** A membership test over a sorted list of stems, one a line, split on first use. */
function sortedStems(text: string): (stem: string) => boolean {
  let stems: readonly string[] | undefined;
  return (stem) => {
    stems ??= text.split("\n");
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
  };
}

/** Whether `stem` (stemmed as the index stems) is the stem of an English word. */
export const isEnglishStem = sortedStems(ENGLISH_STEMS);

/** Whether `stem` (stemmed as the index stems) is the stem of a software name. */
export const isSoftwareNameStem = sortedStems(SOFTWARE_STEMS);
