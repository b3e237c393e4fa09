/**
 * The background term model (background-terms.ts) as shares: how common a
 * word is in general software English. Parsed on first use, once per
 * process: it is constant data shipped with the package.
 */
import { BACKGROUND_PASSAGES, BACKGROUND_TERMS } from "./background-terms.ts";

let counts: Map<string, number> | undefined;

function table(): Map<string, number> {
  if (counts) return counts;
  const map = new Map<string, number>();
  for (const line of BACKGROUND_TERMS.split("\n")) {
    const space = line.lastIndexOf(" ");
    if (space > 0) map.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  counts = map;
  return map;
}

/**
 * The share of background passages holding all of `stems` (a phrase's
 * words, taken as independent, so a phrase is rarer than its rarest word),
 * smoothed so an unseen word is rare, not impossible.
 */
export function backgroundShare(stems: readonly string[]): number {
  const map = table();
  let share = 1;
  for (const stem of stems) share *= ((map.get(stem) ?? 0) + 0.5) / (BACKGROUND_PASSAGES + 1);
  return share;
}
