/**
 * Random words for specs: every run writes different names, titles and
 * search terms, so a spec cannot pass on one lucky string.
 */
import { randomInt } from "node:crypto";

const LOWER = "abcdefghijklmnopqrstuvwxyz";

/** A word of `min` to `max` random lowercase letters (letters only: always a search term). */
export function randomWord(min = 4, max = 10): string {
  let w = "";
  for (let i = randomInt(min, max + 1); i > 0; i--) w += LOWER[randomInt(LOWER.length)];
  return w;
}

/** `count` random words separated by spaces. */
export function randomWords(count: number, min = 2, max = 9): string {
  return Array.from({ length: count }, () => randomWord(min, max)).join(" ");
}
