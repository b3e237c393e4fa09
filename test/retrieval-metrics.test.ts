import { describe, expect, it } from "vitest";
import type { BenchmarkQuery } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import {
  type BenchmarkRun,
  coversAllAt,
  evaluateBenchmark,
  evaluateQuery,
  evaluateTemporal,
  hitAt,
  ndcgAt,
  recallAt,
  reciprocalRank,
  roundMetric,
} from "../extensions/llm-wiki/lib/bench/metrics.ts";

// The plan's pinned example: one judged contradiction query, one negative query.
const queries: BenchmarkQuery[] = [
  {
    id: "ranked",
    text: "ranked query",
    category: "contradiction",
    split: "train",
    judgments: [
      { pageId: "cards/a", grade: 3, role: "canonical" },
      { pageId: "sources/b", grade: 2, role: "evidence" },
    ],
    autoExpectation: "hit",
    expectedConflicts: ["cards/a", "sources/b"],
  },
  {
    id: "negative",
    text: "unrelated query",
    category: "negative",
    split: "heldout",
    judgments: [],
    autoExpectation: "none",
  },
];

const runs: BenchmarkRun[] = [
  {
    queryId: "ranked",
    rankedPageIds: ["sources/b", "cards/a", "other/x"],
    autoPageIds: ["sources/b"],
  },
  { queryId: "negative", rankedPageIds: ["other/x"], autoPageIds: ["other/x"] },
];

function query(overrides: Partial<BenchmarkQuery> & Pick<BenchmarkQuery, "id">): BenchmarkQuery {
  return {
    text: overrides.id,
    category: "paraphrase",
    split: "train",
    judgments: [],
    autoExpectation: "hit",
    ...overrides,
  };
}

describe("ranking metrics", () => {
  it("computes recall and reciprocal rank", () => {
    expect(recallAt(["x", "a", "b"], new Set(["a", "b"]), 2)).toBe(0.5);
    expect(reciprocalRank(["x", "a", "b"], new Set(["a", "b"]))).toBe(0.5);
  });

  it("scores recall 0 when nothing is relevant and reciprocal rank 0 when nothing relevant is ranked", () => {
    expect(recallAt(["a"], new Set(), 20)).toBe(0);
    expect(reciprocalRank(["x", "y"], new Set(["a"]))).toBe(0);
  });

  it("counts a relevant page once in recall even when retrieval repeats it", () => {
    expect(recallAt(["a", "a"], new Set(["a", "b"]), 2)).toBe(0.5);
  });

  it("computes graded nDCG independent of raw retrieval scores", () => {
    const grades = new Map([
      ["cards/a", 3],
      ["sources/b", 2],
    ]);
    expect(ndcgAt(["cards/a", "sources/b"], grades, 2)).toBe(1);
    expect(ndcgAt(["sources/b", "cards/a"], grades, 2)).toBeGreaterThan(0.8);
    expect(ndcgAt(["sources/b", "cards/a"], grades, 2)).toBeLessThan(1);
    expect(ndcgAt(["sources/b", "cards/a"], grades, 2)).toBeCloseTo(0.834, 3);
  });

  it("uses exponential gains so a grade-3 page outweighs a grade-1 page more than linearly", () => {
    const grades = new Map([
      ["a", 3],
      ["b", 1],
    ]);
    // DCG of [b, a] = 1 + 7/log2(3); ideal = 7 + 1/log2(3).
    const expected = (1 + 7 / Math.log2(3)) / (7 + 1 / Math.log2(3));
    expect(ndcgAt(["b", "a"], grades, 2)).toBeCloseTo(expected, 12);
  });

  it("ignores pages ranked below k in nDCG and scores 0 when none are judged", () => {
    const grades = new Map([["a", 3]]);
    expect(ndcgAt(["x", "y", "a"], grades, 2)).toBe(0);
    expect(ndcgAt(["a"], new Map(), 5)).toBe(0);
  });

  it("counts a repeated page once in nDCG, so repeats cannot score above 1", () => {
    const grades = new Map([
      ["a", 3],
      ["b", 2],
    ]);
    // The repeat is dropped and b moves up to rank 2, giving the ideal order.
    expect(ndcgAt(["a", "a", "b"], grades, 2)).toBe(1);
    expect(ndcgAt(["a", "a"], new Map([["a", 3]]), 2)).toBe(1);
  });

  it("hits at k only when a relevant page is within the top k", () => {
    expect(hitAt(["x", "y", "a"], new Set(["a"]), 3)).toBe(1);
    expect(hitAt(["x", "y", "z", "a"], new Set(["a"]), 3)).toBe(0);
  });

  it("covers conflicting claims only when every one of them is in the top k", () => {
    expect(coversAllAt(["old", "x", "new"], ["old", "new"], 3)).toBe(1);
    expect(coversAllAt(["old", "x", "new"], ["old", "new"], 2)).toBe(0);
  });

  it("rejects a cutoff that is not a positive integer", () => {
    expect(() => recallAt(["a"], new Set(["a"]), 0)).toThrow(RangeError);
    expect(() => ndcgAt(["a"], new Map([["a", 3]]), 2.5)).toThrow(RangeError);
  });

  it("rounds to six decimals", () => {
    expect(roundMetric(1 / 3)).toBe(0.333333);
    expect(roundMetric(2 / 3)).toBe(0.666667);
  });
});

describe("per-query evaluation", () => {
  it("marks metrics that do not apply to a query as null instead of 0", () => {
    const scores = evaluateQuery(queries[1] as BenchmarkQuery, runs[1] as BenchmarkRun);
    expect(scores).toEqual({
      queryId: "negative",
      recall20: null,
      reciprocalRank: null,
      ndcg5: null,
      ndcg10: null,
      canonicalAt3: null,
      canonicalFirst: null,
      evidenceRecall20: null,
      contradictionCovered: null,
      autoFalsePositive: 1,
    });
  });

  it("counts a negative query as a false positive only when automatic recall injected something", () => {
    const negative = query({ id: "n", category: "negative", autoExpectation: "none" });
    const silent = evaluateQuery(negative, { queryId: "n", rankedPageIds: ["x"], autoPageIds: [] });
    expect(silent.autoFalsePositive).toBe(0);
  });

  it("measures evidence recall over evidence judgments only", () => {
    const mixed = query({
      id: "m",
      judgments: [
        { pageId: "concepts/c", grade: 3, role: "canonical" },
        { pageId: "sources/e1", grade: 2, role: "evidence" },
        { pageId: "sources/e2", grade: 2, role: "evidence" },
      ],
    });
    const scores = evaluateQuery(mixed, {
      queryId: "m",
      rankedPageIds: ["concepts/c", "sources/e1"],
      autoPageIds: [],
    });
    expect(scores.recall20).toBeCloseTo(2 / 3, 12);
    expect(scores.evidenceRecall20).toBe(0.5);
    expect(scores.canonicalAt3).toBe(1);
    expect(scores.canonicalFirst).toBe(1);
  });

  it("misses canonical@3 when only evidence reaches the top three", () => {
    const mixed = query({
      id: "m",
      judgments: [
        { pageId: "concepts/c", grade: 3, role: "canonical" },
        { pageId: "sources/e", grade: 2, role: "evidence" },
      ],
    });
    const scores = evaluateQuery(mixed, {
      queryId: "m",
      rankedPageIds: ["sources/e", "x/1", "x/2", "concepts/c"],
      autoPageIds: [],
    });
    expect(scores.canonicalAt3).toBe(0);
    expect(scores.canonicalFirst).toBe(0);
    expect(scores.reciprocalRank).toBe(1);
  });
});

describe("benchmark report", () => {
  it("separates relevance, evidence, contradiction, and auto false-positive measures", () => {
    const report = evaluateBenchmark(queries, runs);
    expect(report.all.candidateRecall20).toBe(1);
    expect(report.all.mrr).toBe(1);
    expect(report.all.canonicalAt3).toBe(1);
    expect(report.all.evidenceRecall20).toBe(1);
    expect(report.all.contradictionCoverage).toBe(1);
    expect(report.all.autoFalsePositiveRate).toBe(1);
    expect(report.train.queryCount).toBe(1);
    expect(report.heldout.queryCount).toBe(1);
  });

  it("reports a metric as null for a slice with no eligible query", () => {
    const report = evaluateBenchmark(queries, runs);
    expect(report.train.autoFalsePositiveRate).toBeNull();
    expect(report.heldout.mrr).toBeNull();
    expect(report.heldout.contradictionCoverage).toBeNull();
    expect(report.heldout.judgedQueryCount).toBe(0);
  });

  it("averages over eligible queries and rounds the means", () => {
    const three = ["a", "b", "c"].map((id) =>
      query({ id, judgments: [{ pageId: `concepts/${id}`, grade: 3, role: "canonical" }] }),
    );
    const report = evaluateBenchmark(three, [
      { queryId: "a", rankedPageIds: ["concepts/a"], autoPageIds: [] },
      { queryId: "b", rankedPageIds: ["x/1", "x/2", "concepts/b"], autoPageIds: [] },
      { queryId: "c", rankedPageIds: [], autoPageIds: [] },
    ]);
    expect(report.all.mrr).toBe(0.444444);
    expect(report.all.candidateRecall20).toBe(0.666667);
    expect(report.all.canonicalAt3).toBe(0.666667);
    expect(report.all.judgedQueryCount).toBe(3);
  });

  it("is identical when evaluated twice or with runs in another order", () => {
    const first = evaluateBenchmark(queries, runs);
    expect(evaluateBenchmark(queries, [...runs].reverse())).toEqual(first);
    expect(JSON.stringify(evaluateBenchmark(queries, runs))).toBe(JSON.stringify(first));
  });

  it("refuses a query without a run, a repeated run, and a run for an unknown query", () => {
    expect(() => evaluateBenchmark(queries, runs.slice(0, 1))).toThrow(
      'no benchmark run for query "negative"',
    );
    expect(() => evaluateBenchmark(queries, [...runs, runs[0] as BenchmarkRun])).toThrow(
      'duplicate benchmark run for query "ranked"',
    );
    expect(() =>
      evaluateBenchmark(queries, [
        ...runs,
        { queryId: "ghost", rankedPageIds: [], autoPageIds: [] },
      ]),
    ).toThrow('benchmark run for unknown query "ghost"');
  });
});

describe("temporal figures", () => {
  const timed = (id: string, split: "train" | "heldout"): BenchmarkQuery => ({
    id,
    text: `${id} last week`,
    category: "temporal",
    split,
    judgments: [{ pageId: "sources/new", grade: 3, role: "evidence" }],
    autoExpectation: "hit",
  });
  const temporalQueries = [
    timed("t1", "train"),
    timed("t2", "train"),
    timed("t3", "heldout"),
    { ...timed("plain", "train"), category: "conceptual" as const },
  ];

  it("scores only temporal queries; first in window only where the query names a window", () => {
    const report = evaluateTemporal(temporalQueries, [
      { queryId: "t1", rankedPageIds: ["sources/new"], inWindowPageIds: ["sources/new"] },
      {
        queryId: "t2",
        rankedPageIds: ["sources/old", "sources/new"],
        inWindowPageIds: ["sources/new"],
      },
      { queryId: "t3", rankedPageIds: ["sources/old"] },
      { queryId: "plain", rankedPageIds: [] },
    ]);
    expect(report.train).toEqual({
      queryCount: 2,
      windowedQueryCount: 2,
      recall20: 1,
      mrr: 0.75,
      firstInWindow: 0.5,
    });
    expect(report.heldout).toEqual({
      queryCount: 1,
      windowedQueryCount: 0,
      recall20: 0,
      mrr: 0,
      firstInWindow: null,
    });
    expect(report.all.queryCount).toBe(3);
  });

  it("refuses a missing run like the other metrics", () => {
    expect(() => evaluateTemporal(temporalQueries, [{ queryId: "t1", rankedPageIds: [] }])).toThrow(
      /no benchmark run/,
    );
  });
});
