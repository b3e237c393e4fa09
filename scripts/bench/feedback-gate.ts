/**
 * The feedback benchmark's decision rule, as a function of the figures a
 * report holds — so the decision can be recomputed from a committed
 * baseline (test/feedback-benchmark.test.ts) as well as from a fresh run
 * (scripts/benchmark-feedback.ts, `--check`), and the two never drift.
 */
import { FEEDBACK_MAX } from "../../extensions/llm-wiki/lib/feedback/projection.ts";
import type { ReplayOutcome } from "./feedback-replay.ts";
import { type Comparison, compare } from "./feedback-stats.ts";

/** The largest held-out nDCG@10 loss tolerated (the "1 point"). */
export const HELDOUT_MAX_LOSS = 0.01;

/** The rule, as the report states it. */
export const FEEDBACK_GATE_RULE =
  "on by default only if, on every vault, repeated-use nDCG@10 gains (mean Δ > 0 and the 95 % CI's lower bound ≥ 0; a Δ the same on every seed is one run, judged by its value), held-out nDCG@10 loses at most 0.01 (mean Δ ≥ −0.01), and the automatic false-positive rate is not higher (mean Δ ≤ 0)";

/** One vault's figures over all seeds, as a report records them. */
export interface VaultFigures {
  repeated: { ndcg10: Comparison; mrr: Comparison };
  heldout: { ndcg10: Comparison; mrr: Comparison };
  autoFalsePositiveRate: Comparison;
}

/** The replay's properties over all seeds, as a report records them. */
export interface GateChecks {
  setChanged: number;
  maxAbsAdjustment: number;
  judgedRelevantMovedDown: number;
}

/** A vault's figures over its seeds' replays: off, on and the paired difference. */
export function vaultFigures(runs: readonly ReplayOutcome[]): VaultFigures {
  const series = (pick: (r: ReplayOutcome) => { off: number; on: number }): Comparison =>
    compare(
      runs.map((r) => pick(r).off),
      runs.map((r) => pick(r).on),
    );
  const slice = (key: "repeated" | "heldout") => ({
    ndcg10: series((r) => ({ off: r[key].off.ndcg10 ?? 0, on: r[key].on.ndcg10 ?? 0 })),
    mrr: series((r) => ({ off: r[key].off.mrr ?? 0, on: r[key].on.mrr ?? 0 })),
  });
  return {
    repeated: slice("repeated"),
    heldout: slice("heldout"),
    autoFalsePositiveRate: series((r) => ({
      off: r.autoFalsePositive.off / Math.max(1, r.autoFalsePositive.negatives),
      on: r.autoFalsePositive.on / Math.max(1, r.autoFalsePositive.negatives),
    })),
  };
}

/** A vault's replay properties over its seeds (sums, and the largest adjustment). */
export function aggregateChecks(
  runs: readonly ReplayOutcome[],
): GateChecks & { judgedRelevantChecked: number } {
  return {
    setChanged: runs.reduce((n, r) => n + r.checks.setChanged, 0),
    maxAbsAdjustment: Math.max(0, ...runs.map((r) => r.checks.maxAbsAdjustment)),
    judgedRelevantChecked: runs.reduce((n, r) => n + r.checks.judgedRelevantChecked, 0),
    judgedRelevantMovedDown: runs.reduce((n, r) => n + r.checks.judgedRelevantMovedDown, 0),
  };
}

export interface GateVault {
  metrics: VaultFigures;
  checks: GateChecks;
}

export interface GateDecision {
  enabled: boolean;
  /** Each part of the rule that did not hold, naming its vault. */
  failures: string[];
}

/** Whether feedback in ranking may be on by default, given every vault's figures. */
export function decideFeedbackGate(vaults: Readonly<Record<string, GateVault>>): GateDecision {
  const failures: string[] = [];
  for (const [name, { metrics: f, checks }] of Object.entries(vaults)) {
    const gain = f.repeated.ndcg10.delta;
    if (!(gain.mean > 0)) failures.push(`${name}: repeated-use nDCG@10 Δ ${gain.mean} ≤ 0`);
    else if (gain.ci95 && gain.ci95[0] < 0)
      failures.push(`${name}: repeated-use nDCG@10 Δ's CI lower bound ${gain.ci95[0]} < 0`);
    const loss = f.heldout.ndcg10.delta.mean;
    if (loss < -HELDOUT_MAX_LOSS)
      failures.push(`${name}: held-out nDCG@10 Δ ${loss} < −${HELDOUT_MAX_LOSS}`);
    const fp = f.autoFalsePositiveRate.delta.mean;
    if (fp > 0) failures.push(`${name}: automatic false-positive rate Δ ${fp} > 0`);
    // The properties the gate relies on: feedback reorders, within its bound, never against a judgment.
    if (checks.setChanged > 0) failures.push(`${name}: ${checks.setChanged} result sets changed`);
    if (checks.maxAbsAdjustment > FEEDBACK_MAX + 1e-9)
      failures.push(`${name}: adjustment ${checks.maxAbsAdjustment} > ${FEEDBACK_MAX}`);
    if (checks.judgedRelevantMovedDown > 0)
      failures.push(`${name}: ${checks.judgedRelevantMovedDown} judged-relevant pages moved down`);
  }
  return { enabled: failures.length === 0, failures };
}
