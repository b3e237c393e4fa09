/**
 * Lexical scoring's parameters and the second pass over the candidate pool:
 * term proximity and pseudo-relevance feedback on top of BM25(F). Recall
 * uses DEFAULT_SCORING; the retrieval benchmark's ablation rows vary it.
 */

import type { TokenizedDoc } from "./bm25.ts";
import { type Bm25Params, type CorpusStats, DEFAULT_BM25, idf, saturated } from "./bm25.ts";
import { distinctTerms, proximityScore } from "./proximity.ts";
import { type FeedbackParams, feedbackTerms } from "./relevance-feedback.ts";

/** Everything lexical ranking can vary. */
export interface LexicalScoring {
  bm25: Bm25Params;
  /** Weight of the proximity score (0: off). */
  proximity: number;
  feedback: FeedbackParams;
  /** Query words also searched written together (code-aware; see index/code-tokens.ts). */
  joinWords: boolean;
}

/**
 * What recall ranks with: BM25 over QMD's columns, proximity at 0.5 and
 * feedback from the best 10 pages (20 terms, 0.6 of the query's weight),
 * each page weighing exp(0.75 × (its score − the best)), when the best
 * page's confidence reaches 0.2 — 0.45 in a vault of fewer than 200 pages
 * (20 × the feedback pages); chosen on the even-numbered queries of
 * Cranfield and LoCoMo and the fixture's gates (see
 * docs/retrieval-benchmark.md). At 0.2 in the fixture's 46-page vault,
 * feedback moved asked-for pages off first place.
 */
export const DEFAULT_SCORING: Readonly<LexicalScoring> = Object.freeze({
  bm25: DEFAULT_BM25,
  proximity: 0.5,
  feedback: {
    docs: 10,
    terms: 20,
    weight: 0.6,
    minConfidence: 0.2,
    smallVault: { pages: 200, minConfidence: 0.45 },
    sharpness: 0.75,
  },
  joinWords: true,
});

let current: Readonly<LexicalScoring> = DEFAULT_SCORING;

/** The scoring a lexical search opened now uses: DEFAULT_SCORING unless a benchmark changed it. */
export function lexicalScoring(): Readonly<LexicalScoring> {
  return current;
}

/**
 * Makes lexical searches opened from now on in this process score with
 * `scoring` (undefined: back to DEFAULT_SCORING). For the benchmark's
 * ablation rows only; recall never calls it.
 */
export function setLexicalScoring(scoring: Readonly<LexicalScoring> | undefined): void {
  current = scoring ?? DEFAULT_SCORING;
}

/** `base` with some parts replaced. */
export function withScoring(
  base: Readonly<LexicalScoring>,
  change: {
    bm25?: Partial<Bm25Params>;
    proximity?: number;
    feedback?: Partial<FeedbackParams>;
    joinWords?: boolean;
  },
): LexicalScoring {
  return {
    bm25: { ...base.bm25, ...change.bm25 },
    proximity: change.proximity ?? base.proximity,
    feedback: { ...base.feedback, ...change.feedback },
    joinWords: change.joinWords ?? base.joinWords,
  };
}

/** Feedback stems counted per batch, for each one still to be kept: most are kept. */
const FEEDBACK_BATCH = 1.5;

/** A pool page after the first pass. */
export interface PoolEntry {
  doc: TokenizedDoc | undefined;
  score: number;
}

/** A query term as the second pass needs it. */
export interface SecondPassTerm {
  stems: readonly string[];
  weight: number;
}

/**
 * Second-pass scores for `pool` (first-pass scores in place): proximity
 * first, then feedback terms drawn from the best pages when the query is
 * clear enough. `documentFrequency` counts the pages holding each stem (a
 * stem at `tooCommon` or more is left out: a word on that many pages says
 * little and a bounded probe cannot tell how many more).
 */
export function secondPass(
  pool: PoolEntry[],
  terms: readonly SecondPassTerm[],
  ceiling: number,
  stats: CorpusStats,
  scoring: Readonly<LexicalScoring>,
  exclude: ReadonlySet<string>,
  documentFrequency: (stems: string[]) => Map<string, number>,
  tooCommon: number,
): number[] {
  const k1 = scoring.bm25.k1;
  const scores = pool.map((p) => p.score);
  if (scoring.proximity > 0 && terms.length > 1) {
    const near = distinctTerms(
      terms.flatMap((t) =>
        t.stems.length === 1 && t.stems[0] ? [{ stem: t.stems[0], weight: t.weight }] : [],
      ),
    );
    pool.forEach((p, i) => {
      if (p.doc && p.score > 0)
        scores[i] = (scores[i] ?? 0) + scoring.proximity * proximityScore(p.doc, near, k1);
    });
  }
  const fb = scoring.feedback;
  if (fb.docs <= 0 || fb.weight <= 0 || ceiling <= 0) return scores;
  const order = pool
    .map((p, i) => ({ doc: p.doc, score: scores[i] ?? 0 }))
    .filter((p): p is { doc: TokenizedDoc; score: number } => p.doc !== undefined && p.score > 0)
    .sort((a, b) => b.score - a.score);
  const best = order[0];
  const gate =
    stats.documents < fb.smallVault.pages ? fb.smallVault.minConfidence : fb.minConfidence;
  if (!best || best.score / ceiling < gate) return scores;
  const own = new Set([...exclude, ...terms.flatMap((t) => t.stems)]);
  const candidates = feedbackTerms(order.slice(0, fb.docs), own, fb.terms * 3, fb.sharpness);
  // The first `fb.terms` candidates of useful frequency are kept, so stems are
  // counted a batch at a time, best first, only until that many are found:
  // counting a stem on many pages is most of the pass's cost, and the
  // candidates after the last one kept were counted for nothing.
  const df = new Map<string, number>();
  const kept: typeof candidates = [];
  for (let at = 0; at < candidates.length && kept.length < fb.terms; ) {
    const batch = candidates.slice(at, at + Math.ceil((fb.terms - kept.length) * FEEDBACK_BATCH));
    at += batch.length;
    const counted = documentFrequency(batch.map((c) => c.stem));
    for (const c of batch) {
      const n = counted.get(c.stem) ?? 0;
      df.set(c.stem, n);
      if (n > 1 && n < tooCommon && kept.length < fb.terms) kept.push(c);
    }
  }
  const sum = kept.reduce((s, c) => s + c.weight, 0);
  if (sum <= 0) return scores;
  // The expansion's mass is `weight` times the original query's (its summed IDF).
  const mass = fb.weight * terms.reduce((s, t) => s + t.weight, 0);
  const expansion = kept.map((c) => ({
    stem: c.stem,
    phrase: [c.stem],
    share: (mass * c.weight) / sum,
    idf: idf(stats.documents, df.get(c.stem) ?? 0),
  }));
  const meanIdf = expansion.reduce((s, e) => s + e.idf, 0) / expansion.length;
  const counts: [number, number, number] = [0, 0, 0];
  pool.forEach((p, i) => {
    if (!p.doc || p.score <= 0) return;
    let add = 0;
    for (const e of expansion) {
      p.doc.countPhrase(e.phrase, counts);
      const f = counts[1] * scoring.bm25.weights[1] + counts[2] * scoring.bm25.weights[2];
      if (f > 0)
        add += ((e.share * e.idf) / meanIdf) * saturated(f, p.doc.length, stats, scoring.bm25);
    }
    scores[i] = (scores[i] ?? 0) + add;
  });
  return scores;
}
