/**
 * The quality bar on the seed fixture (test/fixtures/retrieval): the lexical
 * mode alone, model-free, through the real indexing and retrieval path, must
 * beat the old heuristic scorer's figures (docs/retrieval-benchmark.md). The
 * full ablation over every mode lives in `pnpm benchmark:retrieval`.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadBenchmarkFixture } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { MEMORY_GATES, memoryGateFailures } from "../scripts/bench/memory-gates.ts";
import { type ModeRun, runFixture } from "../scripts/bench/retrieval-run.ts";

/** The old heuristic scorer's figures on the same fixture: the floor to beat. */
const OLD_SCORER = {
  all: { candidateRecall20: 0.873, mrr: 0.785, ndcg10: 0.759, autoFalsePositiveRate: 0.2 },
  heldout: { candidateRecall20: 0.733, mrr: 0.672 },
} as const;

describe("lexical retrieval on the seed fixture", () => {
  let run: ModeRun;

  beforeAll(async () => {
    const fixture = loadBenchmarkFixture(
      join(import.meta.dirname, "fixtures", "retrieval", "queries.json"),
    );
    run = await runFixture(fixture, "lexical", "none");
    process.stderr.write(
      `[measure] lexical fixture: all ${JSON.stringify(run.report.all)}; held-out ${JSON.stringify(run.report.heldout)}; automatic recall rate ${run.autoRecallRate}\n`,
    );
  });

  it("ran every query lexically", () => {
    expect(run.modesUsed).toEqual({ lexical: 150 });
    expect(run.report.all.queryCount).toBe(150);
    expect(run.report.heldout.queryCount).toBe(45);
  });

  it("beats the old scorer on all queries: Recall@20, MRR, nDCG@10", () => {
    const all = run.report.all;
    expect(all.candidateRecall20).toBeGreaterThanOrEqual(OLD_SCORER.all.candidateRecall20);
    expect(all.mrr).toBeGreaterThanOrEqual(OLD_SCORER.all.mrr);
    expect(all.ndcg10).toBeGreaterThanOrEqual(OLD_SCORER.all.ndcg10);
  });

  it("keeps automatic recall's false-positive rate at or below the old scorer's", () => {
    expect(run.report.all.autoFalsePositiveRate).not.toBeNull();
    expect(run.report.all.autoFalsePositiveRate).toBeLessThanOrEqual(
      OLD_SCORER.all.autoFalsePositiveRate,
    );
  });

  it("meets the memory gates: every judged conflict whole, the card in the top three, the evidence found, no false positive", () => {
    // Absolute thresholds (scripts/bench/memory-gates.ts), not the baseline's
    // figures: a change that drops a conflict's other side fails here.
    const assembled = run.candidateBundles.assembled.all;
    expect(assembled.contradictionCoverage).toBe(MEMORY_GATES.minContradictionCoverage);
    expect(assembled.canonicalAt3).toBeGreaterThanOrEqual(MEMORY_GATES.minCanonicalAt3);
    expect(assembled.evidenceRecall20).toBeGreaterThanOrEqual(MEMORY_GATES.minEvidenceRecall20);
    expect(run.answers.assembled.all.autoFalsePositiveRate).toBe(0);
    expect(memoryGateFailures(run)).toEqual([]);
  });

  it("beats the old scorer on the held-out queries: Recall@20 and MRR", () => {
    const heldout = run.report.heldout;
    expect(heldout.candidateRecall20).toBeGreaterThanOrEqual(OLD_SCORER.heldout.candidateRecall20);
    expect(heldout.mrr).toBeGreaterThanOrEqual(OLD_SCORER.heldout.mrr);
  });
});
