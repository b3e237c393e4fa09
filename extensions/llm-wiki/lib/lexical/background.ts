/**
 * The background term model (background-terms.ts) as shares: how common a
 * word is in general software English. Terms are looked up in the shipped
 * text one at a time and remembered: a short-lived process (a hook, a CLI
 * recall) asks for a dozen words and should not parse twelve thousand.
 */
import { BACKGROUND_PASSAGES, BACKGROUND_TERMS } from "./background-terms.ts";

const known = new Map<string, number>();
/** Words remembered at most; queries bring new words forever in a long-lived server. */
const KNOWN_MAX = 50_000;

/** Passages holding `stem` (0 when the model does not list it). */
function countOf(stem: string): number {
  const cached = known.get(stem);
  if (cached !== undefined) return cached;
  // Lines are "term count"; a term holds no space, so "\nterm " finds exactly its line.
  const head = `${stem} `;
  const at = BACKGROUND_TERMS.startsWith(head)
    ? 0
    : ((i) => (i < 0 ? -1 : i + 1))(BACKGROUND_TERMS.indexOf(`\n${head}`));
  let count = 0;
  if (at >= 0 && stem !== "" && !stem.includes("\n")) {
    const end = BACKGROUND_TERMS.indexOf("\n", at);
    count = Number(BACKGROUND_TERMS.slice(at + head.length, end < 0 ? undefined : end)) || 0;
  }
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
  for (const stem of stems) share *= (countOf(stem) + 0.5) / (BACKGROUND_PASSAGES + 1);
  return share;
}
