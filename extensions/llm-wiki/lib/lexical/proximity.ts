/**
 * Term proximity for BM25 (after Rasolofo and Savoy's BM25TP): two query
 * terms close together in a page's body or title are stronger evidence than
 * the same words far apart. Each pair of distinct query terms found within
 * a few words of each other adds 1/d² per nearby pair of occurrences,
 * saturated like a term frequency and weighted by the rarer term's IDF.
 * Pure: tokens in, a number out.
 */
import type { TokenizedDoc } from "./bm25.ts";

/** Words apart at most for two occurrences to count as near. */
export const PROXIMITY_WINDOW = 5;
/** Query terms considered: pairs grow with the square of this. */
const MAX_TERMS = 12;

/** A query term as proximity sees it: its first index term and its IDF. */
export interface ProximityTerm {
  stem: string;
  weight: number;
}

/** Σ 1/d² over occurrence pairs of two sorted position lists at most `window` apart. */
function nearness(a: ArrayLike<number>, b: ArrayLike<number>, window: number): number {
  let sum = 0;
  let from = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    while (from < b.length && (b[from] ?? 0) < x - window) from += 1;
    for (let k = from; k < b.length; k += 1) {
      const y = b[k] ?? 0;
      if (y > x + window) break;
      const d = Math.abs(x - y);
      if (d > 0) sum += 1 / (d * d);
    }
  }
  return sum;
}

declare const distinctBrand: unique symbol;
/** A query's proximity terms with no stem repeated: what `proximityScore` reads. */
export type DistinctTerms = readonly ProximityTerm[] & { readonly [distinctBrand]: true };

/**
 * `terms` without repeated stems (a word and its plural), the first kept:
 * worked out once per query by the caller, since the same list is scored
 * against every page of the pool.
 */
export function distinctTerms(terms: readonly ProximityTerm[]): DistinctTerms {
  const seen = new Set<string>();
  return terms.filter(
    (t) => !seen.has(t.stem) && seen.add(t.stem) !== undefined,
  ) as readonly ProximityTerm[] as DistinctTerms;
}

/**
 * The proximity score of a page for a query's terms: Σ over term pairs of
 * min(IDF) × saturated nearness (at most k1 + 1 per pair).
 */
export function proximityScore(
  doc: TokenizedDoc,
  terms: DistinctTerms,
  k1: number,
  window = PROXIMITY_WINDOW,
): number {
  const found: Array<{ weight: number; lists: Array<Int32Array | undefined> }> = [];
  for (const term of terms) {
    if (found.length >= MAX_TERMS) break;
    const title = doc.positions[1].get(term.stem);
    const body = doc.positions[2].get(term.stem);
    if (title !== undefined || body !== undefined)
      found.push({ weight: term.weight, lists: [title, body] });
  }
  let score = 0;
  for (let i = 0; i < found.length; i += 1) {
    for (let j = i + 1; j < found.length; j += 1) {
      const a = found[i];
      const b = found[j];
      if (!a || !b) continue;
      let tp = 0;
      for (let c = 0; c < 2; c += 1) {
        const x = a.lists[c];
        const y = b.lists[c];
        if (x && y) tp += nearness(x, y, window);
      }
      if (tp > 0) score += Math.min(a.weight, b.weight) * ((tp * (k1 + 1)) / (tp + k1));
    }
  }
  return score;
}
