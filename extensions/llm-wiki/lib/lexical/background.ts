/**
 * The background term model (background-terms.ts) as shares: how common a
 * word is in general software English. Terms are looked up in the shipped
 * text one at a time (a binary search over its sorted lines) and
 * remembered: a short-lived process (a hook, a CLI recall) asks for a dozen
 * words and should not parse twelve thousand.
 */
import { BACKGROUND_PASSAGES, BACKGROUND_TERMS } from "./background-terms.ts";

const known = new Map<string, number>();
/** Words remembered at most; queries bring new words forever in a long-lived server. */
const KNOWN_MAX = 50_000;

/**
 * The count on `stem`'s line, found by binary search: the lines are sorted
 * by term (code-unit order), so a lookup reads about 17 lines of the text,
 * not the whole of it.
 */
function lookup(stem: string): number {
  let lo = 0;
  let hi = BACKGROUND_TERMS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = BACKGROUND_TERMS.lastIndexOf("\n", mid - 1) + 1;
    const newline = BACKGROUND_TERMS.indexOf("\n", start);
    const end = newline < 0 ? BACKGROUND_TERMS.length : newline;
    const space = BACKGROUND_TERMS.indexOf(" ", start);
    const term = BACKGROUND_TERMS.slice(start, space < 0 || space > end ? end : space);
    if (term === stem) return Number(BACKGROUND_TERMS.slice(start + term.length + 1, end)) || 0;
    if (term < stem) lo = end + 1;
    else hi = start;
  }
  return 0;
}

/** Passages holding `stem` (0 when the model does not list it). */
export function backgroundCount(stem: string): number {
  const cached = known.get(stem);
  if (cached !== undefined) return cached;
  // A term holds no space or line break: such a stem is on no line.
  const count = stem === "" || /[\s]/.test(stem) ? 0 : lookup(stem);
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(stem, count);
  return count;
}

/**
 * The share of background passages holding all of `stems` (a phrase's
 * words, taken as independent, so a phrase is rarer than its rarest word),
 * smoothed so an unseen word is rare, not impossible.
 */
export function backgroundShare(stems: readonly string[]): number {
  let share = 1;
  for (const stem of stems) share *= (backgroundCount(stem) + 0.5) / (BACKGROUND_PASSAGES + 1);
  return share;
}
