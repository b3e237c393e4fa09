/**
 * Pseudo-relevance feedback (RM3-style): the words the best first-pass
 * pages share, weighted by how much of each page they make up and by the
 * page's score, become a second, lighter query that reorders the candidate
 * pool. Only the pool's already-tokenized pages are read, so the work is
 * bounded by the pool, not the vault. Pure: tokens in, weighted terms out.
 */
import type { TokenizedDoc } from "./bm25.ts";

/** How feedback runs; `docs` 0 turns it off. */
export interface FeedbackParams {
  /** First-pass pages the expansion terms are drawn from. */
  docs: number;
  /** Expansion terms kept. */
  terms: number;
  /** Weight of the expansion query against the original one (its mass is this share of the query's). */
  weight: number;
  /**
   * The clarity gate: feedback runs only when the first-pass best page's
   * confidence (score over the query's ceiling) reaches this. A vague query's
   * best pages are a poor sample of what it wants; expanding from them drifts.
   */
  minConfidence: number;
  /**
   * The stricter gate of a small vault: under `pages` pages, feedback needs
   * a confidence of `minConfidence`. The relevance model tells the best
   * pages' words from the rest's; when the best pages are a large share of
   * the vault there is little rest, and their shared words are the vault's
   * own vocabulary rather than the query's topic.
   */
  smallVault: { pages: number; minConfidence: number };
  /**
   * How sharply the relevance model favours the best pages: a page's weight
   * is exp(sharpness × (its score − the best score)), as a relevance model's
   * P(D|Q) is a likelihood, so pages well below the best add little; 0
   * weighs pages in proportion to their score.
   */
  sharpness: number;
}

/** A candidate expansion term and its feedback weight (the weights sum to 1). */
export interface FeedbackTerm {
  stem: string;
  weight: number;
}

const NUMERIC = /^\d/;

/**
 * The `limit` terms with the most relevance-model weight over `ranked`
 * (best first, with their scores), leaving out `exclude` (the query's own
 * and stop words), numbers and one- or two-letter terms. Each page weighs
 * by its score as `sharpness` says (see FeedbackParams).
 */
export function feedbackTerms(
  ranked: ReadonlyArray<{ doc: TokenizedDoc; score: number }>,
  exclude: ReadonlySet<string>,
  limit: number,
  sharpness = 0,
): FeedbackTerm[] {
  const top = Math.max(0, ...ranked.map((r) => r.score));
  const weighed = ranked.map(({ doc, score }) => ({
    doc,
    score: score <= 0 ? 0 : sharpness > 0 ? Math.exp(sharpness * (score - top)) : score,
  }));
  const total = weighed.reduce((sum, r) => sum + r.score, 0);
  if (total <= 0 || limit <= 0) return [];
  const mass = new Map<string, number>();
  for (const { doc, score } of weighed) {
    const length = doc.positions[1].length + doc.positions[2].length;
    if (length === 0 || score <= 0) continue;
    const share = score / total / length;
    for (const column of [doc.positions[1], doc.positions[2]]) {
      column.forEachCount((count, stem) => {
        if (stem.length < 3 || exclude.has(stem) || NUMERIC.test(stem)) return;
        mass.set(stem, (mass.get(stem) ?? 0) + share * count);
      });
    }
  }
  const best = [...mass].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
  const sum = best.reduce((s, [, w]) => s + w, 0);
  return sum > 0 ? best.map(([stem, w]) => ({ stem, weight: w / sum })) : [];
}
