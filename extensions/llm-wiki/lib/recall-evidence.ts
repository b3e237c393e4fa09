/**
 * Whether a lexical hit is evidence that the prompt is about this vault,
 * not an ordinary coding prompt that shares a few words with it. A matched
 * term counts by how much more common it is in this vault than in general
 * software English (the background model), by how well it tells the vault's
 * pages apart (a word on every page, like the project's name, does not),
 * and by how solidly the page holds it. "test", "version" or "install" are
 * as common in any project's text as in the vault and count for nothing;
 * the vault's own names and jargon count fully. Pure and model-free.
 */
import type { TermMatch } from "./index/qmd-lexical.ts";
import { backgroundShare } from "./lexical/background.ts";

/** A term this many times more common in the vault than in the background counts fully. */
export const SPECIFIC_RATIO = 20;
/**
 * …and only when that many pages holding it would be this surprising (in
 * nats) at the background's rate: one page of a small vault holding "yes"
 * is chance, five pages holding "tombstone", or one holding a name the
 * background never saw, are not.
 */
export const SURPRISE_NATS = 6;
/** A term on at most about a third of the vault's pages tells them apart fully (its IDF ≥ 1). */
export const DISCRIMINATING_IDF = 1;
/** The most one term's specificity counts (1 is "fully specific"). */
export const MAX_SPECIFICITY = 1.5;
/**
 * Evidence a page needs for automatic recall: more than one fully specific,
 * solidly held term, or one the background (almost) never holds (tuned on the train split of the ordinary prompts and
 * the example vault's questions; see benchmarks/retrieval-baseline.json).
 */
export const AUTOMATIC_EVIDENCE = 1.25;

/** One matched term's evidence, as `--explain` shows it. */
export interface TermEvidence {
  term: string;
  /** Occurrences in the page's path, title and body. */
  counts: [number, number, number];
  /** BM25 contribution to the page's score. */
  score: number;
  /** Share of the vault's pages holding it. */
  vaultShare: number;
  /** Share of background passages holding it. */
  backgroundShare: number;
  /** 0..1.5: specificity × discrimination × presence. */
  evidence: number;
}

export interface PageEvidence {
  /** Sum of the terms' evidence. */
  total: number;
  terms: TermEvidence[];
}

const clamp01 = (x: number) => Math.max(0, Math.min(1, x));
const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

/** One term's evidence on one page. */
/** ln(n!), exact for small n and by Stirling's series beyond. */
function logFactorial(n: number): number {
  if (n < 20) {
    let sum = 0;
    for (let i = 2; i <= n; i += 1) sum += Math.log(i);
    return sum;
  }
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n);
}

/**
 * −ln P(X ≥ k) for X ~ Poisson(λ): how surprising k or more pages are at
 * the background rate. At or below the expected count it is under ln 2 and
 * taken as 0; above it, the tail's first term (which dominates the tail)
 * stands for it, in constant time however large k is.
 */
export function poissonSurprise(k: number, lambda: number): number {
  if (k <= 0) return 0;
  if (lambda <= 0) return Number.POSITIVE_INFINITY;
  if (k <= lambda) return 0;
  return lambda - k * Math.log(lambda) + logFactorial(k);
}

/**
 * A number with a unit or a plural ("400s", "180ms", "10k", "5xx"): the
 * background model holds no numbers, so each would look like a name only
 * this vault uses, and "400s" (HTTP errors) is also "400 s" of a timeout.
 * A bare number stays evidence: "port 8089" names this vault's service.
 */
const NUMBER = /^\d+[a-z]{1,2}$/;

/** One matched term's evidence on one page. */
export function termEvidence(match: TermMatch): TermEvidence {
  const vaultShare = (match.df + 0.5) / (match.documents + 1);
  const background = backgroundShare(match.stems);
  const numeric = NUMBER.test(match.term);
  const ratio = numeric ? 0 : Math.log(vaultShare / background) / Math.log(SPECIFIC_RATIO);
  const surprise = poissonSurprise(match.df, match.documents * background) / SURPRISE_NATS;
  // Past "fully specific", a word the background (almost) never holds — a
  // project's own name or identifier — counts up to half as much again, so
  // it alone can carry automatic recall; an ordinary word never does.
  const specificity = Math.max(0, Math.min(ratio, surprise, MAX_SPECIFICITY));
  const discrimination = clamp01(match.idf / DISCRIMINATING_IDF);
  // BM25's saturated frequency: 1 for one body occurrence in a page of average length.
  const presence = match.idf > 0 ? clamp01((match.asWritten ?? match.score) / match.idf) : 0;
  return {
    term: match.term,
    counts: match.counts,
    score: match.score,
    vaultShare: round(vaultShare),
    backgroundShare: round(background, 6),
    evidence: round(specificity * discrimination * presence),
  };
}

/** The evidence of all matched terms of one page. */
export function pageEvidence(matches: readonly TermMatch[]): PageEvidence {
  const terms = matches.map(termEvidence);
  // "retry … retrying" is one word of evidence, not two: the same stems count once, at their best.
  const best = new Map<string, number>();
  matches.forEach((m, i) => {
    const key = m.stems.join(" ");
    best.set(key, Math.max(best.get(key) ?? 0, terms[i]?.evidence ?? 0));
  });
  return { total: round([...best.values()].reduce((sum, e) => sum + e, 0)), terms };
}
