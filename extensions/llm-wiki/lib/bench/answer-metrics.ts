/**
 * Metrics of recall's answer (memory bundles), beside the candidate metrics
 * of `metrics.ts`: what the agent is actually handed — items with their
 * bundle part, and the rendered block — scored against the same judgments.
 * Computed from page ids, parts and characters only, never from scores.
 */
import type { BenchmarkQuery, BenchmarkSplit } from "./fixture.ts";
import {
  coversAllAt,
  firstIsOneOf,
  hitAt,
  idsForRole,
  meanOf,
  recallAt,
  reciprocalRank,
  runsByQuery,
} from "./metrics.ts";
import { renderedCharsByPage } from "./rendered-pages.ts";

/** Depth of the answer the metrics read: the first 20 items. */
export const ANSWER_DEPTH = 20;

/**
 * Bundle parts that present a page as evidence: `evidence`, `unpromoted`
 * (evidence no card covers) and `competing` (one side of a conflict, shown
 * with its text next to the other).
 */
export const EVIDENCE_PARTS: ReadonlySet<string> = new Set(["evidence", "unpromoted", "competing"]);

/** One item of recall's answer, in answer order. */
export interface AnswerItem {
  pageId: string;
  /** Its bundle part as recall reports it (`card`, `evidence`, `unpromoted`, …). */
  part: string;
  bundle: number;
}

/** What recall answered for one benchmark query. */
export interface AnswerRun {
  queryId: string;
  /** Explicit recall's items, in order. */
  items: readonly AnswerItem[];
  /** Explicit recall's rendered block (what a model receives). */
  rendered: string;
  /** Pages automatic recall injected; empty when it stayed silent. */
  autoPageIds: readonly string[];
}

/** Scores of one answer; `null` where the metric does not apply to the query. */
export interface AnswerQueryMetrics {
  queryId: string;
  recall20: number | null;
  reciprocalRank: number | null;
  canonicalFirst: number | null;
  canonicalAt3: number | null;
  evidencePrecision20: number | null;
  evidenceRecall20: number | null;
  contradictionCovered: number | null;
  duplicateWaste: number | null;
  contextWaste: number | null;
  autoFalsePositive: number | null;
}

/** Means over a query slice (6 decimals); `null` when no query of the slice is eligible. */
export interface AnswerMetrics {
  queryCount: number;
  recall20: number | null;
  mrr: number | null;
  canonicalFirst: number | null;
  canonicalAt3: number | null;
  evidencePrecision20: number | null;
  evidenceRecall20: number | null;
  contradictionCoverage: number | null;
  duplicateWaste: number | null;
  contextWaste: number | null;
  autoFalsePositiveRate: number | null;
}

/** Answer metrics of the whole fixture and of each split. */
export interface AnswerMetricReport {
  all: AnswerMetrics;
  train: AnswerMetrics;
  heldout: AnswerMetrics;
}

/** Share of items whose page already appeared earlier in the answer; null for an empty answer. */
export function duplicateWaste(pageIds: readonly string[]): number | null {
  if (pageIds.length === 0) return null;
  const seen = new Set<string>();
  let repeats = 0;
  for (const id of pageIds) {
    if (seen.has(id)) repeats += 1;
    seen.add(id);
  }
  return repeats / pageIds.length;
}

/**
 * Share of the rendered block's characters spent on pages with no judgment
 * (frame, preamble and conflict notes count in the total, for no page);
 * null for an empty block.
 */
export function contextWaste(rendered: string, judgedIds: ReadonlySet<string>): number | null {
  if (rendered === "") return null;
  let wasted = 0;
  for (const [id, chars] of renderedCharsByPage(rendered)) if (!judgedIds.has(id)) wasted += chars;
  return wasted / rendered.length;
}

/** Scores one answer against the query's judgments. */
export function evaluateAnswer(query: BenchmarkQuery, run: AnswerRun): AnswerQueryMetrics {
  const items = run.items.slice(0, ANSWER_DEPTH);
  const ids = items.map((item) => item.pageId);
  // A bundle is one memory: its card stands for it (evidence leading a bundle is the card's support).
  const cards = items.filter((item) => item.part === "card").map((item) => item.pageId);
  const relevant = idsForRole(query.judgments);
  const canonical = idsForRole(query.judgments, "canonical");
  const evidence = idsForRole(query.judgments, "evidence");
  const judged = query.judgments.length > 0;
  const evidenceItems = [
    ...new Set(items.filter((item) => EVIDENCE_PARTS.has(item.part)).map((i) => i.pageId)),
  ];
  const conflicts = query.expectedConflicts ?? [];
  const judgedIds = new Set(query.judgments.map((j) => j.pageId));
  return {
    queryId: query.id,
    recall20: judged ? recallAt(ids, relevant, ANSWER_DEPTH) : null,
    reciprocalRank: judged ? reciprocalRank(ids, relevant) : null,
    canonicalFirst: judged ? firstIsOneOf(cards, canonical) : null,
    canonicalAt3: canonical.size > 0 ? hitAt(cards, canonical, 3) : null,
    evidencePrecision20:
      evidenceItems.length > 0
        ? evidenceItems.filter((id) => evidence.has(id)).length / evidenceItems.length
        : null,
    evidenceRecall20: evidence.size > 0 ? recallAt(evidenceItems, evidence, ANSWER_DEPTH) : null,
    // Strict: every side of the judged conflict is in the answer.
    contradictionCovered: conflicts.length > 0 ? coversAllAt(ids, conflicts, ANSWER_DEPTH) : null,
    duplicateWaste: duplicateWaste(ids),
    contextWaste: judged ? contextWaste(run.rendered, judgedIds) : null,
    autoFalsePositive:
      query.autoExpectation === "none" ? (run.autoPageIds.length > 0 ? 1 : 0) : null,
  };
}

/** Aggregates per-answer scores into slice means. */
export function summarizeAnswers(scores: readonly AnswerQueryMetrics[]): AnswerMetrics {
  return {
    queryCount: scores.length,
    recall20: meanOf(scores, (s) => s.recall20),
    mrr: meanOf(scores, (s) => s.reciprocalRank),
    canonicalFirst: meanOf(scores, (s) => s.canonicalFirst),
    canonicalAt3: meanOf(scores, (s) => s.canonicalAt3),
    evidencePrecision20: meanOf(scores, (s) => s.evidencePrecision20),
    evidenceRecall20: meanOf(scores, (s) => s.evidenceRecall20),
    contradictionCoverage: meanOf(scores, (s) => s.contradictionCovered),
    duplicateWaste: meanOf(scores, (s) => s.duplicateWaste),
    contextWaste: meanOf(scores, (s) => s.contextWaste),
    autoFalsePositiveRate: meanOf(scores, (s) => s.autoFalsePositive),
  };
}

/** Scores every answer and averages over the whole fixture and each split. */
export function evaluateAnswers(
  queries: readonly BenchmarkQuery[],
  runs: readonly AnswerRun[],
): AnswerMetricReport {
  const byId = runsByQuery(queries, runs);
  const slice = (split?: BenchmarkSplit): AnswerMetrics =>
    summarizeAnswers(
      queries
        .filter((query) => split === undefined || query.split === split)
        .map((query) => evaluateAnswer(query, byId.get(query.id) as AnswerRun)),
    );
  return { all: slice(), train: slice("train"), heldout: slice("heldout") };
}
