/**
 * Deterministic information-retrieval metrics for the benchmark fixture.
 * Everything is computed from ranked page ids, never from engine scores, so
 * engines with incomparable score scales are measured the same way.
 */
import type { BenchmarkJudgment, BenchmarkQuery, BenchmarkSplit } from "./fixture.ts";

/** What retrieval returned for one benchmark query. */
export interface BenchmarkRun {
  queryId: string;
  /** Explicit search results, best first (at least the top 20 are scored). */
  rankedPageIds: readonly string[];
  /** Pages automatic recall would inject for the query; empty when it stays silent. */
  autoPageIds: readonly string[];
}

/**
 * Scores of one query. `null` means the metric does not apply to it (for
 * example evidence recall on a query without evidence judgments).
 */
export interface QueryMetrics {
  queryId: string;
  recall20: number | null;
  reciprocalRank: number | null;
  ndcg5: number | null;
  ndcg10: number | null;
  canonicalAt3: number | null;
  /** 1 when the first page is a judged canonical (not historical) page; judged queries only. */
  canonicalFirst: number | null;
  evidenceRecall20: number | null;
  contradictionCovered: number | null;
  autoFalsePositive: number | null;
}

/**
 * Means over a query slice, rounded to 6 decimals. A metric is `null` when no
 * query of the slice is eligible for it, so "not measured" never reads as 0.
 */
export interface RetrievalMetrics {
  queryCount: number;
  /** Queries with at least one judgment: the denominator of recall, MRR and nDCG. */
  judgedQueryCount: number;
  candidateRecall20: number | null;
  mrr: number | null;
  ndcg5: number | null;
  ndcg10: number | null;
  canonicalAt3: number | null;
  canonicalFirst: number | null;
  evidenceRecall20: number | null;
  contradictionCoverage: number | null;
  autoFalsePositiveRate: number | null;
}

/** Metrics of the whole fixture and of each split. */
export interface RetrievalMetricReport {
  all: RetrievalMetrics;
  train: RetrievalMetrics;
  heldout: RetrievalMetrics;
}

/** Fixed 6-decimal rounding so a regenerated baseline is byte-identical. */
export function roundMetric(value: number): number {
  return Number(value.toFixed(6));
}

function assertK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

/** Share of the relevant pages found in the top `k`; 0 when nothing is relevant. */
export function recallAt(
  rankedIds: readonly string[],
  relevantIds: ReadonlySet<string>,
  k: number,
): number {
  assertK(k);
  if (relevantIds.size === 0) return 0;
  const found = new Set(rankedIds.slice(0, k).filter((id) => relevantIds.has(id)));
  return found.size / relevantIds.size;
}

/** 1 / rank of the first relevant page; 0 when none is ranked. */
export function reciprocalRank(
  rankedIds: readonly string[],
  relevantIds: ReadonlySet<string>,
): number {
  const index = rankedIds.findIndex((id) => relevantIds.has(id));
  return index < 0 ? 0 : 1 / (index + 1);
}

/** 1 when any relevant page is in the top `k`, else 0. */
export function hitAt(
  rankedIds: readonly string[],
  relevantIds: ReadonlySet<string>,
  k: number,
): number {
  assertK(k);
  return rankedIds.slice(0, k).some((id) => relevantIds.has(id)) ? 1 : 0;
}

/** 1 when every listed page is in the top `k`, else 0 (conflicting claims must surface together). */
export function coversAllAt(
  rankedIds: readonly string[],
  requiredIds: readonly string[],
  k: number,
): number {
  assertK(k);
  const top = new Set(rankedIds.slice(0, k));
  return requiredIds.every((id) => top.has(id)) ? 1 : 0;
}

function dcg(grades: readonly number[]): number {
  return grades.reduce((sum, grade, index) => sum + (2 ** grade - 1) / Math.log2(index + 2), 0);
}

/**
 * nDCG@k with exponential gains 2^grade − 1 and log2 discounts. A page ranked
 * twice counts once, so a repeating engine cannot score above 1.
 */
export function ndcgAt(
  rankedIds: readonly string[],
  gradesById: ReadonlyMap<string, number>,
  k: number,
): number {
  assertK(k);
  const actual = [...new Set(rankedIds)].slice(0, k).map((id) => gradesById.get(id) ?? 0);
  const ideal = [...gradesById.values()].sort((a, b) => b - a).slice(0, k);
  const idealDcg = dcg(ideal);
  return idealDcg === 0 ? 0 : dcg(actual) / idealDcg;
}

/**
 * Judged page ids, all of them or those of one role. Canonical pages a later
 * claim supersedes (`historical`) are relevant but never count as the
 * canonical answer.
 */
export function idsForRole(
  judgments: readonly BenchmarkJudgment[],
  role?: BenchmarkJudgment["role"],
): Set<string> {
  return new Set(
    judgments
      .filter(
        (judgment) =>
          judgment.grade > 0 &&
          (role === undefined ||
            (judgment.role === role && !(role === "canonical" && judgment.historical))),
      )
      .map((judgment) => judgment.pageId),
  );
}

/** 1 when the first ranked page is one of `canonicalIds`, else 0 (also for an empty list). */
export function firstIsOneOf(
  rankedIds: readonly string[],
  canonicalIds: ReadonlySet<string>,
): number {
  const first = rankedIds[0];
  return first !== undefined && canonicalIds.has(first) ? 1 : 0;
}

/** Scores one query against what retrieval returned for it. */
export function evaluateQuery(query: BenchmarkQuery, run: BenchmarkRun): QueryMetrics {
  const ranked = run.rankedPageIds;
  const relevant = idsForRole(query.judgments);
  const canonical = idsForRole(query.judgments, "canonical");
  const evidence = idsForRole(query.judgments, "evidence");
  const grades = new Map(query.judgments.map((judgment) => [judgment.pageId, judgment.grade]));
  const judged = query.judgments.length > 0;
  const conflicts = query.expectedConflicts ?? [];
  return {
    queryId: query.id,
    recall20: judged ? recallAt(ranked, relevant, 20) : null,
    reciprocalRank: judged ? reciprocalRank(ranked, relevant) : null,
    ndcg5: judged ? ndcgAt(ranked, grades, 5) : null,
    ndcg10: judged ? ndcgAt(ranked, grades, 10) : null,
    canonicalAt3: canonical.size > 0 ? hitAt(ranked, canonical, 3) : null,
    canonicalFirst: judged ? firstIsOneOf(ranked, canonical) : null,
    evidenceRecall20: evidence.size > 0 ? recallAt(ranked, evidence, 20) : null,
    contradictionCovered: conflicts.length > 0 ? coversAllAt(ranked, conflicts, 20) : null,
    // Only queries that expect silence can expose an unwanted injection.
    autoFalsePositive:
      query.autoExpectation === "none" ? (run.autoPageIds.length > 0 ? 1 : 0) : null,
  };
}

/** Mean of the values `pick` gives (nulls skipped), rounded; null when there are none. */
export function meanOf<T>(
  scores: readonly T[],
  pick: (metrics: T) => number | null,
): number | null {
  const values = scores.map(pick).filter((value): value is number => value !== null);
  if (values.length === 0) return null;
  return roundMetric(values.reduce((sum, value) => sum + value, 0) / values.length);
}

/** Aggregates per-query scores into slice means. */
export function summarize(scores: readonly QueryMetrics[]): RetrievalMetrics {
  return {
    queryCount: scores.length,
    judgedQueryCount: scores.filter((s) => s.recall20 !== null).length,
    candidateRecall20: meanOf(scores, (s) => s.recall20),
    mrr: meanOf(scores, (s) => s.reciprocalRank),
    ndcg5: meanOf(scores, (s) => s.ndcg5),
    ndcg10: meanOf(scores, (s) => s.ndcg10),
    canonicalAt3: meanOf(scores, (s) => s.canonicalAt3),
    canonicalFirst: meanOf(scores, (s) => s.canonicalFirst),
    evidenceRecall20: meanOf(scores, (s) => s.evidenceRecall20),
    contradictionCoverage: meanOf(scores, (s) => s.contradictionCovered),
    autoFalsePositiveRate: meanOf(scores, (s) => s.autoFalsePositive),
  };
}

/**
 * Matches runs to queries one-to-one. A missing run would silently score 0 and
 * an extra or repeated one means the runner and the fixture disagree, so all
 * three are errors rather than guesses.
 */
export function runsByQuery<R extends { queryId: string }>(
  queries: readonly BenchmarkQuery[],
  runs: readonly R[],
): Map<string, R> {
  const byId = new Map<string, R>();
  for (const run of runs) {
    if (byId.has(run.queryId))
      throw new Error(`duplicate benchmark run for query "${run.queryId}"`);
    byId.set(run.queryId, run);
  }
  const known = new Set(queries.map((query) => query.id));
  for (const id of byId.keys()) {
    if (!known.has(id)) throw new Error(`benchmark run for unknown query "${id}"`);
  }
  for (const query of queries) {
    if (!byId.has(query.id)) throw new Error(`no benchmark run for query "${query.id}"`);
  }
  return byId;
}

/** Scores every query and averages over the whole fixture, the train split and the held-out split. */
export function evaluateBenchmark(
  queries: readonly BenchmarkQuery[],
  runs: readonly BenchmarkRun[],
): RetrievalMetricReport {
  const byId = runsByQuery(queries, runs);
  const slice = (split?: BenchmarkSplit): RetrievalMetrics => {
    const chosen = queries.filter((query) => split === undefined || query.split === split);
    return summarize(
      chosen.map((query) => evaluateQuery(query, byId.get(query.id) as BenchmarkRun)),
    );
  };
  return { all: slice(), train: slice("train"), heldout: slice("heldout") };
}

/**
 * What retrieval returned for one query of the `temporal` category, with the
 * pages dated inside the time window its words name (the window recall would
 * build at the benchmark's fixed `now`).
 */
export interface TemporalRun {
  queryId: string;
  /** Results, best first. */
  rankedPageIds: readonly string[];
  /** Pages dated inside the query's window; absent when the query names no window. */
  inWindowPageIds?: readonly string[];
}

/** Figures of the `temporal` category in one slice, rounded like the others. */
export interface TemporalMetrics {
  queryCount: number;
  /** Temporal queries whose words name a window: the denominator of `firstInWindow`. */
  windowedQueryCount: number;
  recall20: number | null;
  mrr: number | null;
  /** Share of windowed queries whose first result is a page dated inside the window. */
  firstInWindow: number | null;
}

/** Temporal figures of the whole fixture and of each split. */
export interface TemporalMetricReport {
  all: TemporalMetrics;
  train: TemporalMetrics;
  heldout: TemporalMetrics;
}

/**
 * Recall@20, MRR and first-in-window over the `temporal` queries. `runs`
 * covers every query of the fixture (as for `evaluateBenchmark`); only the
 * temporal ones are scored.
 */
export function evaluateTemporal(
  queries: readonly BenchmarkQuery[],
  runs: readonly TemporalRun[],
): TemporalMetricReport {
  const byId = runsByQuery(queries, runs);
  const scored = queries
    .filter((query) => query.category === "temporal")
    .map((query) => {
      const run = byId.get(query.id) as TemporalRun;
      const ranked = run.rankedPageIds;
      const relevant = idsForRole(query.judgments);
      const judged = query.judgments.length > 0;
      const window = run.inWindowPageIds;
      return {
        split: query.split,
        recall20: judged ? recallAt(ranked, relevant, 20) : null,
        reciprocalRank: judged ? reciprocalRank(ranked, relevant) : null,
        firstInWindow: window === undefined ? null : firstIsOneOf(ranked, new Set(window)),
      };
    });
  const slice = (split?: BenchmarkSplit): TemporalMetrics => {
    const chosen = scored.filter((s) => split === undefined || s.split === split);
    return {
      queryCount: chosen.length,
      windowedQueryCount: chosen.filter((s) => s.firstInWindow !== null).length,
      recall20: meanOf(chosen, (s) => s.recall20),
      mrr: meanOf(chosen, (s) => s.reciprocalRank),
      firstInWindow: meanOf(chosen, (s) => s.firstInWindow),
    };
  };
  return { all: slice(), train: slice("train"), heldout: slice("heldout") };
}
