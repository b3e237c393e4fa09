/**
 * What the feedback benchmark replays, in one place so the script, its
 * `--check` run and the tests that hold the committed baseline to the code
 * all mean the same thing: the two vaults and their queries, the default
 * seeds and replay, and the parameters a baseline records (the replay's,
 * the click model's and the projection's own constants — a change to any of
 * them makes the committed figures stale).
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import {
  BENCHMARK_NOW,
  type BenchmarkQuery,
  loadBenchmarkFixture,
} from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import { PROJECTION_PARAMETERS } from "../../extensions/llm-wiki/lib/feedback/projection.ts";
import { loadOrdinaryPrompts } from "./auto-precision.ts";
import { CLICK_MODEL_RANGES, type ClickModelRanges } from "./feedback-click-model.ts";
import type { ReplayNeed } from "./feedback-plan.ts";
import type { ReplayOptions, ReplayVault } from "./feedback-replay.ts";
import { topicVaultQuestions, topicVaultRewordings, writeTopicVault } from "./topic-vault.ts";

const root = join(import.meta.dirname, "..", "..");

/** Where the committed decision lives. */
export const FEEDBACK_BASELINE = join(root, "benchmarks", "feedback-baseline.json");

/** Seeds of a full run: enough for a t-interval that means something. */
export const DEFAULT_SEED_COUNT = 10;

/** The replay of a full run, every option but the seed. */
export const DEFAULT_REPLAY: Omit<ReplayOptions, "seed" | "clickModel"> = {
  // Means: each trained wording is asked 1 to 5 times, sessions hold 1 to 9 asks.
  rounds: 3,
  turnsPerSession: 5,
  // Four asks in ten carry an edit; the rest repeat the need word for word.
  noiseRate: 0.4,
  now: BENCHMARK_NOW,
};

/** What a seed varies, as the report states it. */
export const DRAWN_PER_SEED = [
  "which wordings of each need are asked (the rest held out)",
  "the click model (examination depth, noise clicks, open, cite and judgment rates)",
  "how many times each asked wording repeats (1 to 2·rounds − 1)",
  "the order of the asks, session lengths (1 to 2·turnsPerSession − 1) and the days between sessions (1 to 3)",
  "each ask's paraphrase edit",
  "the clicks themselves",
] as const;

/** Seeds 1…count. */
export function seedList(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i + 1);
}

/** What a baseline records of how it was made (`replay` in the report). */
export interface ReplayParameters {
  rounds: number;
  turnsPerSession: number;
  noiseRate: number;
  now: string;
  mode: "lexical";
  /** Each seed draws its users' click model from these ranges. */
  clickModel: ClickModelRanges;
  /** What each seed draws afresh. */
  drawnPerSeed: string[];
  feedbackMax: number;
  halfLifeDays: number;
  shownOnlyFloor: number;
  positionEta: number;
  maxPositionWeight: number;
  generalShare: number;
  actionWeights: Readonly<Record<string, number>>;
}

/** The parameters of a replay as the report records them. */
export function replayParameters(
  replay: Omit<ReplayOptions, "seed" | "clickModel"> = DEFAULT_REPLAY,
): ReplayParameters {
  const p = PROJECTION_PARAMETERS;
  return {
    rounds: replay.rounds,
    turnsPerSession: replay.turnsPerSession,
    noiseRate: replay.noiseRate,
    now: replay.now.toISOString(),
    mode: "lexical",
    clickModel: CLICK_MODEL_RANGES,
    drawnPerSeed: [...DRAWN_PER_SEED],
    feedbackMax: p.feedbackMax,
    halfLifeDays: p.halfLifeDays,
    shownOnlyFloor: p.shownOnlyFloor,
    positionEta: p.positionEta,
    maxPositionWeight: p.maxPositionWeight,
    generalShare: p.generalShare,
    actionWeights: { ...p.actionWeights },
  };
}

/** Pages of the generated vault. */
export const TOPIC_PAGES = 1_000;

/** Of a fixture group's five phrasings (ids `…-1` to `…-5`), the ones users ask. */
const ASKED_PHRASINGS = 3;

/** Fixture queries by group (`memory-conflict-4` is a phrasing of `memory-conflict`), in file order. */
function groupsOf(queries: readonly BenchmarkQuery[]): BenchmarkQuery[][] {
  const groups = new Map<string, BenchmarkQuery[]>();
  for (const q of queries) {
    const group = q.id.replace(/-\d+$/, "");
    groups.set(group, [...(groups.get(group) ?? []), q]);
  }
  return [...groups.values()];
}

/** The 1k vault's needs: a training question and its rewordings (`topic-NN-rK`), one asked. */
function topicNeeds(
  questions: readonly BenchmarkQuery[],
  rewordings: readonly BenchmarkQuery[],
): ReplayNeed[] {
  return questions
    .filter((q) => q.split === "train")
    .map((q) => ({
      asked: 1,
      wordings: [q, ...rewordings.filter((r) => r.id.startsWith(`${q.id}-r`))],
    }));
}

/**
 * The benchmark's vaults: the retrieval fixture and the generated
 * 1,000-page topic vault. In both, held-out is other wordings of the
 * training needs (what feedback must carry over to) and questions about
 * other needs (what it must not harm): on the fixture, each seed draws three
 * of a train group's five phrasings to ask and measures the other two,
 * beside the held-out split's groups; on the 1k vault, each seed draws which
 * of a page's question drafts is asked and holds out the rest. The
 * fixture's no-recall queries and the ordinary prompts are the negatives.
 */
export function feedbackVaults(): ReplayVault[] {
  const fixtures = join(root, "test", "fixtures", "retrieval");
  const fixture = loadBenchmarkFixture(join(fixtures, "queries.json"));
  const prompts = loadOrdinaryPrompts(join(fixtures, "ordinary-prompts.json")).map((p) => p.text);
  const topicQuestions = topicVaultQuestions(TOPIC_PAGES);
  return [
    {
      name: "fixture",
      write: (dir) =>
        cpSync(fixture.vaultRoot, dir, {
          recursive: true,
          filter: (src) => !src.includes(join(".llm-wiki", "meta")),
        }),
      questions: {
        needs: groupsOf(fixture.queries.filter((q) => q.split === "train")).map((wordings) => ({
          asked: ASKED_PHRASINGS,
          wordings,
        })),
        otherHeldout: fixture.queries.filter((q) => q.split === "heldout"),
      },
      negatives: [
        ...fixture.queries.filter((q) => q.autoExpectation === "none").map((q) => q.text),
        ...prompts,
      ],
    },
    {
      name: "topic-1k",
      write: (dir) => writeTopicVault(dir, TOPIC_PAGES),
      questions: {
        needs: topicNeeds(topicQuestions, topicVaultRewordings(TOPIC_PAGES)),
        otherHeldout: topicQuestions.filter((q) => q.split === "heldout"),
      },
      negatives: prompts,
    },
  ];
}

/** How many queries a vault's replay measures, whatever the seed draws. */
export function questionCounts(vault: ReplayVault): {
  train: number;
  heldout: number;
  negatives: number;
} {
  const needs = vault.questions.needs;
  return {
    train: needs.reduce((n, need) => n + need.asked, 0),
    heldout:
      needs.reduce((n, need) => n + need.wordings.length - need.asked, 0) +
      vault.questions.otherHeldout.length,
    negatives: vault.negatives.length,
  };
}
