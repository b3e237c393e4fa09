/**
 * The lexical scoring's ablation rows: the scoring recall used before issue
 * 26 (BM25 k1 1.2, b 0.6, no proximity, no feedback, query words not joined),
 * each lever added alone, and the default. `pnpm benchmark:retrieval` runs
 * them on the fixture; `node scripts/bench/beir-ablation.ts DIR…` on BEIR
 * collections beside plain FTS5 BM25.
 */
import {
  DEFAULT_SCORING,
  type LexicalScoring,
  withScoring,
} from "../../extensions/llm-wiki/lib/lexical/scoring.ts";

/** Before issue 26 (the feedback rows below add the first feedback design to it). */
const BEFORE = withScoring(DEFAULT_SCORING, {
  bm25: { k1: 1.2, b: [0.6, 0.6, 0.6] },
  proximity: 0,
  feedback: {
    docs: 0,
    terms: 10,
    weight: 0.3,
    minConfidence: 0.45,
    smallVault: { pages: 0, minConfidence: 0.45 },
    sharpness: 0,
  },
  joinWords: false,
});

/** The default before feedback was strengthened for vaults of 200 pages or more. */
const PREVIOUS = withScoring(DEFAULT_SCORING, {
  bm25: { b: [0.4, 0.4, 0.4] },
  feedback: {
    terms: 10,
    weight: 0.3,
    minConfidence: 0.45,
    smallVault: { pages: 0, minConfidence: 0.45 },
    sharpness: 0.25,
  },
});

/** Named scorings, the first the old one and the last recall's default. */
export const LEXICAL_ABLATIONS: ReadonlyArray<{ name: string; scoring: LexicalScoring }> = [
  { name: "before (k1 1.2 b 0.6)", scoring: BEFORE },
  { name: "+ joined words", scoring: withScoring(BEFORE, { joinWords: true }) },
  { name: "+ BM25F per column", scoring: withScoring(BEFORE, { bm25: { perField: true } }) },
  { name: "+ headings x2", scoring: withScoring(BEFORE, { bm25: { heading: 2 } }) },
  { name: "title weight 8", scoring: withScoring(BEFORE, { bm25: { weights: [1.5, 8, 1] } }) },
  { name: "b 0.4", scoring: withScoring(BEFORE, { bm25: { b: [0.4, 0.4, 0.4] } }) },
  { name: "b 0.5", scoring: withScoring(BEFORE, { bm25: { b: [0.5, 0.5, 0.5] } }) },
  { name: "k1 1.6", scoring: withScoring(BEFORE, { bm25: { k1: 1.6 } }) },
  { name: "+ proximity 0.5", scoring: withScoring(BEFORE, { proximity: 0.5 }) },
  {
    name: "+ feedback ungated",
    scoring: withScoring(BEFORE, { feedback: { docs: 10, minConfidence: 0 } }),
  },
  {
    name: "+ feedback gated 0.45",
    scoring: withScoring(BEFORE, { feedback: { docs: 10, minConfidence: 0.45 } }),
  },
  {
    name: "+ feedback gated 0.45, sharp",
    scoring: withScoring(BEFORE, { feedback: { docs: 10, minConfidence: 0.45, sharpness: 0.25 } }),
  },
  { name: "previous default (b 0.4, gate 0.45)", scoring: PREVIOUS },
  {
    name: "previous, gate 0.2, sharpness 0.5",
    scoring: withScoring(PREVIOUS, { feedback: { minConfidence: 0.2, sharpness: 0.5 } }),
  },
  {
    name: "default, b 0.4",
    scoring: withScoring(DEFAULT_SCORING, { bm25: { b: [0.4, 0.4, 0.4] } }),
  },
  {
    name: "default, 10 terms, weight 0.3",
    scoring: withScoring(DEFAULT_SCORING, { feedback: { terms: 10, weight: 0.3 } }),
  },
  {
    name: "default, sharpness 0.5",
    scoring: withScoring(DEFAULT_SCORING, { feedback: { sharpness: 0.5 } }),
  },
  {
    name: "default, gate 0.45 everywhere",
    scoring: withScoring(DEFAULT_SCORING, {
      feedback: { minConfidence: 0.45, smallVault: { pages: 0, minConfidence: 0.45 } },
    }),
  },
  {
    name: "default, gate 0.2 everywhere",
    scoring: withScoring(DEFAULT_SCORING, {
      feedback: { smallVault: { pages: 0, minConfidence: 0.2 } },
    }),
  },
  { name: "default", scoring: DEFAULT_SCORING },
];
