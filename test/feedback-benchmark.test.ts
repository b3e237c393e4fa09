/**
 * The feedback benchmark's gate (scripts/benchmark-feedback.ts): the
 * default of `feedbackRanking` is the committed decision, and a tiny replay
 * through the real vault, index, FeedbackSession and projection keeps the
 * properties the gate relies on.
 */
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARK_NOW, loadBenchmarkFixture } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { FEEDBACK_MAX } from "../extensions/llm-wiki/lib/feedback/projection.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { DEFAULT_CLICK_MODEL } from "../scripts/bench/feedback-click-model.ts";
import { paraphrase } from "../scripts/bench/feedback-paraphrase.ts";
import { runReplay } from "../scripts/bench/feedback-replay.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";

const root = join(import.meta.dirname, "..");

describe("feedback benchmark", () => {
  it("the default of feedbackRanking is the committed baseline's decision", () => {
    const baseline = JSON.parse(
      readFileSync(join(root, "benchmarks", "feedback-baseline.json"), "utf8"),
    ) as { decision: { enabled: boolean; reason: string } };
    expect(typeof baseline.decision.reason).toBe("string");
    expect(DEFAULT_SETTINGS.feedbackRanking).toBe(baseline.decision.enabled);
  });

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
        train: judged.filter((q) => q.split === "train").slice(0, 6),
        heldout: judged.filter((q) => q.split === "heldout").slice(0, 3),
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
});
