/**
 * The feedback benchmark's gate (scripts/benchmark-feedback.ts): the
 * committed baseline's decision is the rule applied to its own figures, it
 * was made with the code's parameters, and it is the default of
 * `feedbackRanking`; a reduced replay through the real vault, index,
 * FeedbackSession and projection still learns (a repeated-use gain, no
 * held-out loss beyond 0.01), so a change that breaks learning fails here
 * and not only in `pnpm benchmark:feedback --check`.
 */
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARK_NOW, loadBenchmarkFixture } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import {
  ACTION_WEIGHTS,
  FEEDBACK_MAX,
  HALF_LIFE_DAYS,
  SHOWN_ONLY_FLOOR,
} from "../extensions/llm-wiki/lib/feedback/projection.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { CLICK_MODEL_RANGES, DEFAULT_CLICK_MODEL } from "../scripts/bench/feedback-click-model.ts";
import {
  aggregateChecks,
  decideFeedbackGate,
  FEEDBACK_GATE_RULE,
  type GateVault,
  HELDOUT_MAX_LOSS,
  vaultFigures,
} from "../scripts/bench/feedback-gate.ts";
import { paraphrase } from "../scripts/bench/feedback-paraphrase.ts";
import { planReplay } from "../scripts/bench/feedback-plan.ts";
import { fixedQuestions, type ReplayOutcome, runReplay } from "../scripts/bench/feedback-replay.ts";
import {
  DEFAULT_REPLAY,
  DEFAULT_SEED_COUNT,
  FEEDBACK_BASELINE,
  feedbackVaults,
  questionCounts,
  replayParameters,
  seedList,
} from "../scripts/bench/feedback-setup.ts";
import {
  compare,
  estimate,
  formatComparison,
  formatSpread,
} from "../scripts/bench/feedback-stats.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";

const root = join(import.meta.dirname, "..");

interface Baseline {
  seeds: number[];
  replay: Record<string, unknown>;
  rule: string;
  vaults: Record<
    string,
    GateVault & { queries: { train: number; heldout: number; negatives: number } }
  >;
  decision: { enabled: boolean; reason: string };
}

function committedBaseline(): Baseline {
  return JSON.parse(readFileSync(FEEDBACK_BASELINE, "utf8")) as Baseline;
}

/** A value drawn afresh each run in [lo, hi). */
function between(lo: number, hi: number): number {
  return lo + Math.random() * (hi - lo);
}

/** A vault's figures that pass every part of the rule, with `delta` as each difference. */
function passingVault(): GateVault {
  const same = (x: number) => compare([x, x, x], [x, x, x]);
  const gain = between(0.001, 0.05);
  return {
    metrics: {
      // A gain on every seed: the interval's lower bound is above 0.
      repeated: {
        ndcg10: compare([0.7, 0.71, 0.72], [0.7 + gain, 0.71 + gain, 0.72 + gain * 1.1]),
        mrr: same(0.7),
      },
      heldout: { ndcg10: same(0.6), mrr: same(0.6) },
      autoFalsePositiveRate: same(between(0, 0.1)),
    },
    checks: { setChanged: 0, maxAbsAdjustment: FEEDBACK_MAX, judgedRelevantMovedDown: 0 },
  };
}

describe("the feedback gate's rule", () => {
  it("enables feedback when every vault gains on repeated use and loses at most 0.01 held out", () => {
    const loss = between(0, HELDOUT_MAX_LOSS);
    const vault = passingVault();
    vault.metrics.heldout.ndcg10 = compare(
      [0.6, 0.61, 0.62],
      [0.6 - loss, 0.61 - loss, 0.62 - loss],
    );
    expect(decideFeedbackGate({ a: passingVault(), b: vault })).toEqual({
      enabled: true,
      failures: [],
    });
  });

  it("refuses on any one vault's held-out loss beyond 0.01, missing gain, uncertain gain or more false positives", () => {
    const broken: Array<[string, (v: GateVault) => void]> = [
      [
        "held-out",
        (v) => {
          const loss = between(HELDOUT_MAX_LOSS + 0.0005, 0.1);
          v.metrics.heldout.ndcg10 = compare([0.6, 0.6, 0.6], [0.6 - loss, 0.6 - loss, 0.6 - loss]);
        },
      ],
      [
        "repeated-use",
        (v) => {
          v.metrics.repeated.ndcg10 = compare([0.7, 0.7, 0.7], [0.7, 0.7, 0.7]);
        },
      ],
      [
        "CI lower bound",
        (v) => {
          v.metrics.repeated.ndcg10 = compare([0.7, 0.7, 0.7], [0.75, 0.69, 0.7]);
        },
      ],
      [
        "false-positive",
        (v) => {
          v.metrics.autoFalsePositiveRate = compare([0, 0, 0], [0, between(0.01, 0.2), 0]);
        },
      ],
      [
        "result sets changed",
        (v) => {
          v.checks.setChanged = 1;
        },
      ],
      [
        "adjustment",
        (v) => {
          v.checks.maxAbsAdjustment = FEEDBACK_MAX * 1.5;
        },
      ],
      [
        "moved down",
        (v) => {
          v.checks.judgedRelevantMovedDown = 1;
        },
      ],
    ];
    for (const [words, breakIt] of broken) {
      const name = `vault-${Math.random().toString(36).slice(2, 8)}`;
      const bad = passingVault();
      breakIt(bad);
      const decision = decideFeedbackGate({ fine: passingVault(), [name]: bad });
      expect(decision.enabled, words).toBe(false);
      expect(decision.failures).toHaveLength(1);
      expect(decision.failures[0]).toContain(name);
      expect(decision.failures[0]).toContain(words);
    }
  });
});

describe("the feedback benchmark's statistics over seeds", () => {
  it("reports a figure the same on every seed as one run, never as a zero-width interval", () => {
    const x = between(0, 1);
    const n = 2 + Math.floor(Math.random() * 9);
    const same = estimate(Array.from({ length: n }, () => x));
    expect(same).toMatchObject({ oneRun: true, ci95: null, n });
    expect(same.min).toBe(same.max);
    expect(formatSpread(same)).toBe(`one run (the same on all ${n} seeds)`);
    const flat = formatComparison(compare([x, x, x], [x + 0.01, x + 0.01, x + 0.01]));
    expect(flat).toContain("one run");
    expect(flat).not.toContain("[");
    expect(formatSpread(estimate([x]))).toBe("one run (one seed)");
  });

  it("reports figures that vary over seeds with their interval, smallest and largest", () => {
    const values = Array.from({ length: 5 }, () => between(-0.05, 0.05));
    values.push((values[0] ?? 0) + 0.01);
    const e = estimate(values);
    expect(e.oneRun).toBe(false);
    expect(e.min).toBeCloseTo(Math.min(...values), 6);
    expect(e.max).toBeCloseTo(Math.max(...values), 6);
    expect(e.ci95?.[0]).toBeLessThan(e.mean);
    expect(e.ci95?.[1]).toBeGreaterThan(e.mean);
    const text = formatSpread(e);
    expect(text).not.toContain("one run");
    expect(text).toMatch(/^\[[+-]\d\.\d{3}, [+-]\d\.\d{3}\] min [+-]\d\.\d{3} max [+-]\d\.\d{3}$/);
  });

  it("judges a repeated-use gain the same on every seed by its value: one run, no interval to fail", () => {
    const vault = passingVault();
    const gain = between(0.001, 0.05);
    vault.metrics.repeated.ndcg10 = compare([0.7, 0.7, 0.7], [0.7 + gain, 0.7 + gain, 0.7 + gain]);
    expect(vault.metrics.repeated.ndcg10.delta.oneRun).toBe(true);
    expect(decideFeedbackGate({ v: vault }).enabled).toBe(true);
  });
});

describe("what a seed simulates (scripts/bench/feedback-plan.ts)", () => {
  const key = (plan: ReturnType<typeof planReplay>) => ({
    asked: plan.train.map((q) => q.id).sort(),
    clickModel: plan.clickModel,
    askCounts: plan.askCounts,
    order: plan.sessions.flatMap((s) => s.asks.map((a) => a.need.id)),
    sessionLengths: plan.sessions.map((s) => s.asks.length),
    days: plan.sessions.map((s) => s.day),
    edits: plan.sessions.flatMap((s) => s.asks.map((a) => a.edit)),
  });

  it("differs between two seeds in every drawn part, and is the same for the same seed", () => {
    const a = 1 + Math.floor(Math.random() * 1_000_000);
    const b = a + 1 + Math.floor(Math.random() * 1_000);
    for (const vault of feedbackVaults()) {
      const plan = (seed: number) =>
        planReplay(vault.name, vault.questions, seed, { ...DEFAULT_REPLAY });
      const first = key(plan(a));
      const second = key(plan(b));
      expect(key(plan(a)), `${vault.name} seed ${a} twice`).toEqual(first);
      for (const part of Object.keys(first) as Array<keyof typeof first>) {
        expect(second[part], `${vault.name}: ${part} of seeds ${a} and ${b}`).not.toEqual(
          first[part],
        );
      }
    }
  });

  it("asks every drawn wording 1 to 2·rounds − 1 times, holds out the rest, and keeps the counts the report states", () => {
    const seed = 1 + Math.floor(Math.random() * 1_000_000);
    for (const vault of feedbackVaults()) {
      const plan = planReplay(vault.name, vault.questions, seed, { ...DEFAULT_REPLAY });
      const counts = questionCounts(vault);
      expect(plan.train.length, `${vault.name} seed ${seed}`).toBe(counts.train);
      expect(plan.heldout.length, `${vault.name} seed ${seed}`).toBe(counts.heldout);
      const trained = new Set(plan.train.map((q) => q.id));
      expect(plan.heldout.filter((q) => trained.has(q.id))).toEqual([]);
      const asked = new Map<string, number>();
      for (const s of plan.sessions)
        for (const ask of s.asks) asked.set(ask.need.id, (asked.get(ask.need.id) ?? 0) + 1);
      expect(Object.fromEntries(asked)).toEqual(plan.askCounts);
      for (const n of Object.values(plan.askCounts)) {
        expect(n).toBeGreaterThanOrEqual(1);
        expect(n).toBeLessThanOrEqual(2 * DEFAULT_REPLAY.rounds - 1);
      }
      const days = plan.sessions.map((s) => s.day);
      expect(days).toEqual([...days].sort((x, y) => x - y));
      expect(plan.days).toBeGreaterThan(days.at(-1) ?? -1);
      for (const p of [...plan.clickModel.open, ...plan.clickModel.cite, plan.clickModel.judgeRate])
        expect(p >= 0 && p <= 1).toBe(true);
    }
  });
});

describe("the committed baseline (benchmarks/feedback-baseline.json)", () => {
  it("records the decision its own figures give under the rule, and that decision is the default of feedbackRanking", () => {
    const baseline = committedBaseline();
    expect(baseline.rule).toBe(FEEDBACK_GATE_RULE);
    const decision = decideFeedbackGate(baseline.vaults);
    expect(decision.enabled, decision.failures.join("; ")).toBe(baseline.decision.enabled);
    expect(typeof baseline.decision.reason).toBe("string");
    expect(DEFAULT_SETTINGS.feedbackRanking).toBe(baseline.decision.enabled);
  });

  it("was made with the code's parameters, seeds, vaults and queries (else it is stale: run pnpm benchmark:feedback)", () => {
    const baseline = committedBaseline();
    expect(baseline.replay).toEqual(replayParameters());
    // Spelled out, so the projection's own constants are seen to be part of it.
    expect(baseline.replay).toMatchObject({
      feedbackMax: FEEDBACK_MAX,
      halfLifeDays: HALF_LIFE_DAYS,
      shownOnlyFloor: SHOWN_ONLY_FLOOR,
      actionWeights: { ...ACTION_WEIGHTS },
      clickModel: CLICK_MODEL_RANGES,
      rounds: DEFAULT_REPLAY.rounds,
    });
    expect(baseline.seeds).toEqual(seedList(DEFAULT_SEED_COUNT));
    const vaults = feedbackVaults();
    expect(Object.keys(baseline.vaults)).toEqual(vaults.map((v) => v.name));
    for (const v of vaults) {
      expect(baseline.vaults[v.name]?.queries, v.name).toEqual(questionCounts(v));
    }
  });
});

describe("feedback benchmark", () => {
  it("paraphrase noise is deterministic per seed and edits at most one word", () => {
    const text = "how does the cache stay consistent";
    const a = Array.from(
      { length: 20 },
      (
        (r) => () =>
          paraphrase(text, r, 1)
      )(mulberry32(7)),
    );
    const b = Array.from(
      { length: 20 },
      (
        (r) => () =>
          paraphrase(text, r, 1)
      )(mulberry32(7)),
    );
    expect(a).toEqual(b);
    for (const p of a) {
      expect(p.edit).not.toBe("none");
      expect(Math.abs(p.text.split(" ").length - text.split(" ").length)).toBeLessThanOrEqual(1);
    }
    expect(paraphrase(text, mulberry32(1), 0)).toEqual({ text, edit: "none" });
  });

  it("a tiny replay reorders only: same pages, adjustments within ±0.02, judged-relevant pages never move down", async () => {
    const fixture = loadBenchmarkFixture(
      join(root, "test", "fixtures", "retrieval", "queries.json"),
    );
    const judged = fixture.queries.filter((q) => q.judgments.length > 0);
    const outcome = await runReplay(
      {
        name: "fixture-tiny",
        write: (dir) =>
          cpSync(fixture.vaultRoot, dir, {
            recursive: true,
            filter: (src) => !src.includes(join(".llm-wiki", "meta")),
          }),
        questions: fixedQuestions(
          judged.filter((q) => q.split === "train").slice(0, 6),
          judged.filter((q) => q.split === "heldout").slice(0, 3),
        ),
        negatives: fixture.queries.filter((q) => q.autoExpectation === "none").map((q) => q.text),
      },
      {
        seed: 1,
        rounds: 2,
        turnsPerSession: 3,
        noiseRate: 0.3,
        now: BENCHMARK_NOW,
        // Every turn judged, so repeated queries carry explicit relevance to check.
        clickModel: { ...DEFAULT_CLICK_MODEL, judgeRate: 1 },
      },
    );
    expect(outcome.events.shown ?? 0).toBeGreaterThan(0);
    expect(outcome.events.relevant ?? 0).toBeGreaterThan(0);
    expect(outcome.checks.setChanged).toBe(0);
    expect(outcome.checks.maxAbsAdjustment).toBeGreaterThan(0);
    expect(outcome.checks.maxAbsAdjustment).toBeLessThanOrEqual(FEEDBACK_MAX);
    expect(outcome.checks.judgedRelevantChecked).toBeGreaterThan(0);
    expect(outcome.checks.judgedRelevantMovedDown).toBe(0);
    expect(outcome.autoFalsePositive.on).toBeLessThanOrEqual(outcome.autoFalsePositive.off);
  });

  it("a reduced replay still learns on the 1k vault, does no harm on the fixture, held-out loss at most 0.01", async () => {
    // Fewer seeds and rounds than the full run; the fixture's seeds are
    // enough for its mean change to stand out of per-seed noise. The 1k
    // vault's replay takes a minute or more a seed on a busy two-core
    // machine, and one seed is enough there: in the full run every one of
    // its ten seeds gained (+0.008 at the least), and with today's ranking,
    // perfect on its questions, seeds 1 and 2 of this replay both measured
    // no change at all: the second seed only repeated the first one's figures.
    const seeds: Record<string, number> = { fixture: 4, "topic-1k": 1 };
    const vaults: Record<string, GateVault> = {};
    for (const vault of feedbackVaults()) {
      const runs: ReplayOutcome[] = [];
      for (const seed of seedList(seeds[vault.name] ?? 1)) {
        runs.push(await runReplay(vault, { ...DEFAULT_REPLAY, rounds: 2, seed }));
      }
      vaults[vault.name] = { metrics: vaultFigures(runs), checks: aggregateChecks(runs) };
    }
    for (const [name, { metrics, checks }] of Object.entries(vaults)) {
      // Learning shows on the needs asked word for word, or on their other
      // wordings. On the 1k vault it did (the full run: +0.018) while its
      // ranking left room; on the
      // fixture today's ranking leaves feedback nothing it fixes (the full
      // run: -0.000, within noise, so the default is off), and there it must
      // only do no harm beyond noise.
      const gain = metrics.repeated.ndcg10.delta.mean + metrics.heldout.ndcg10.delta.mean;
      // A ranking already perfect without feedback leaves it nothing to learn
      // (the 1k vault's questions since issue 38's question reading).
      const room = metrics.repeated.ndcg10.off.mean < 1 || metrics.heldout.ndcg10.off.mean < 1;
      if (name === "topic-1k" && room)
        expect(gain, `${name} gain on repeated use and other wordings`).toBeGreaterThan(0);
      else if (name === "topic-1k") expect(gain, `${name}: perfect ranking, no change`).toBe(0);
      else
        expect(gain, `${name} change on repeated use and other wordings`).toBeGreaterThanOrEqual(
          -HELDOUT_MAX_LOSS,
        );
      expect(metrics.heldout.ndcg10.delta.mean, `${name} held-out`).toBeGreaterThanOrEqual(
        -HELDOUT_MAX_LOSS,
      );
      expect(metrics.autoFalsePositiveRate.delta.mean, name).toBeLessThanOrEqual(0);
      expect(checks, name).toMatchObject({ setChanged: 0, judgedRelevantMovedDown: 0 });
      expect(checks.maxAbsAdjustment, name).toBeLessThanOrEqual(FEEDBACK_MAX);
    }
  }, 600_000);
});
