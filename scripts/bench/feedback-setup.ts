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
  loadBenchmarkFixture,
} from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import { PROJECTION_PARAMETERS } from "../../extensions/llm-wiki/lib/feedback/projection.ts";
import { loadOrdinaryPrompts } from "./auto-precision.ts";
import { type ClickModel, DEFAULT_CLICK_MODEL } from "./feedback-click-model.ts";
import type { ReplayOptions, ReplayVault } from "./feedback-replay.ts";
import { topicVaultQuestions, topicVaultRewordings, writeTopicVault } from "./topic-vault.ts";

const root = join(import.meta.dirname, "..", "..");

/** Where the committed decision lives. */
export const FEEDBACK_BASELINE = join(root, "benchmarks", "feedback-baseline.json");

/** Seeds of a full run: enough for a t-interval that means something. */
export const DEFAULT_SEED_COUNT = 10;

/** The replay of a full run, every option but the seed. */
export const DEFAULT_REPLAY: Omit<ReplayOptions, "seed" | "clickModel"> = {
  rounds: 3,
  turnsPerSession: 5,
  // Four asks in ten carry an edit; the rest repeat the need word for word.
  noiseRate: 0.4,
  now: BENCHMARK_NOW,
};

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
  clickModel: ClickModel;
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
    clickModel: DEFAULT_CLICK_MODEL,
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

/** A fixture query's phrasing number within its group (`memory-conflict-4` → 4). */
function phrasing(id: string): number {
  return Number(/-(\d+)$/.exec(id)?.[1] ?? "1");
}

/**
 * The benchmark's vaults: the retrieval fixture and the generated
 * 1,000-page topic vault. In both, held-out is other wordings of the
 * training needs (what feedback must carry over to) and questions about
 * other needs (what it must not harm): on the fixture, the first three of a
 * train group's five phrasings are asked, the other two measured, beside
 * the held-out split's groups; its no-recall queries and the ordinary
 * prompts are the negatives.
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
      train: fixture.queries.filter(
        (q) => q.split === "train" && phrasing(q.id) <= ASKED_PHRASINGS,
      ),
      heldout: [
        ...fixture.queries.filter((q) => q.split === "train" && phrasing(q.id) > ASKED_PHRASINGS),
        ...fixture.queries.filter((q) => q.split === "heldout"),
      ],
      negatives: [
        ...fixture.queries.filter((q) => q.autoExpectation === "none").map((q) => q.text),
        ...prompts,
      ],
    },
    {
      name: "topic-1k",
      write: (dir) => writeTopicVault(dir, TOPIC_PAGES),
      train: topicQuestions.filter((q) => q.split === "train"),
      heldout: [
        ...topicVaultRewordings(TOPIC_PAGES),
        ...topicQuestions.filter((q) => q.split === "heldout"),
      ],
      negatives: prompts,
    },
  ];
}
