/**
 * What one seed of the feedback replay simulates, drawn before anything is
 * asked: which wordings of each need the users type (the rest are held
 * out), the users' click model, how often each need comes back, the order
 * of the asks, the sessions they fall into and the days between them, and
 * the paraphrase edit of every ask. Each of these draws from its own seeded
 * stream, so a seed varies every one of them, the same seed always gives
 * the same plan, and changing one draw leaves the others as they were.
 * Only the clicks themselves are drawn during the replay (they depend on
 * the rankings the engine returns), from a stream of their own too.
 */
import type { BenchmarkQuery } from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import { mulberry32 } from "../test-models/mulberry32.ts";
import { type ClickModel, drawClickModel } from "./feedback-click-model.ts";
import { type ParaphraseEdit, paraphrase } from "./feedback-paraphrase.ts";

/** One need: its wordings, of which `asked` are typed in training (drawn per seed). */
export interface ReplayNeed {
  asked: number;
  wordings: readonly BenchmarkQuery[];
}

/** What the replay asks of a vault: needs whose wordings a seed splits, and fixed held-out questions. */
export interface ReplayQuestions {
  needs: readonly ReplayNeed[];
  /** Questions about needs never trained (measured only, every seed). */
  otherHeldout: readonly BenchmarkQuery[];
}

/** The replay's shape, every option but the seed. */
export interface PlanOptions {
  /** Mean number of times a trained wording is asked (each draws 1 … 2·rounds − 1). */
  rounds: number;
  /** Mean asks per session (each session draws 1 … 2·turnsPerSession − 1). */
  turnsPerSession: number;
  /** Share of asks with a paraphrase edit. */
  noiseRate: number;
  /** A fixed click model instead of one drawn per seed (specs that need, say, every turn judged). */
  clickModel?: ClickModel;
}

/** One simulated ask. */
export interface PlannedAsk {
  need: BenchmarkQuery;
  text: string;
  edit: ParaphraseEdit;
}

/** One simulated session: its day (0 = the first) and its asks in order. */
export interface PlannedSession {
  day: number;
  asks: PlannedAsk[];
}

/** Everything a seed simulates but the clicks. */
export interface ReplayPlan {
  seed: number;
  clickModel: ClickModel;
  /** The wordings asked in training (repeated use is measured on these). */
  train: BenchmarkQuery[];
  /** Wordings of trained needs never asked, then the other needs' questions. */
  heldout: BenchmarkQuery[];
  /** Times each trained wording is asked, by query id. */
  askCounts: Record<string, number>;
  sessions: PlannedSession[];
  /** Days from the first session to the last (measurement is the day after). */
  days: number;
}

/** A PRNG per (seed, vault, purpose): each draw of the plan has its own stream. */
export function seededStream(seed: number, vault: string, purpose: string): () => number {
  let h = 2166136261;
  for (const c of `${vault}\u0000${purpose}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return mulberry32((h ^ Math.imul(seed, 0x9e3779b1)) >>> 0);
}

/** A Fisher–Yates shuffle. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** An integer drawn uniformly from 1 … 2·mean − 1 (mean `mean`). */
function aroundMean(mean: number, rand: () => number): number {
  return 1 + Math.floor(rand() * Math.max(1, 2 * mean - 1));
}

/** The plan of seed `seed` on vault `vault`. */
export function planReplay(
  vault: string,
  questions: ReplayQuestions,
  seed: number,
  options: PlanOptions,
): ReplayPlan {
  const stream = (purpose: string) => seededStream(seed, vault, purpose);
  // Which wordings users type: a different subset of each need's wordings per seed.
  const split = stream("wordings");
  const train: BenchmarkQuery[] = [];
  const heldoutWordings: BenchmarkQuery[] = [];
  for (const need of questions.needs) {
    const order = shuffled(need.wordings, split);
    train.push(...order.slice(0, need.asked));
    heldoutWordings.push(...order.slice(need.asked));
  }
  // Which needs come back, and how often.
  const repeats = stream("repeats");
  const askCounts: Record<string, number> = {};
  const asks: BenchmarkQuery[] = [];
  for (const q of train) {
    const count = aroundMean(options.rounds, repeats);
    askCounts[q.id] = count;
    for (let i = 0; i < count; i += 1) asks.push(q);
  }
  // The order of the asks, the sessions they fall into and the days between sessions.
  const order = stream("order");
  const queue = shuffled(asks, order);
  const words = stream("paraphrase");
  const sessions: PlannedSession[] = [];
  let day = 0;
  for (let at = 0; at < queue.length; ) {
    const length = aroundMean(options.turnsPerSession, order);
    const turns = queue.slice(at, at + length).map((need) => {
      const asked = paraphrase(need.text, words, options.noiseRate);
      return { need, text: asked.text, edit: asked.edit };
    });
    if (sessions.length > 0) day += 1 + Math.floor(order() * 3);
    sessions.push({ day, asks: turns });
    at += length;
  }
  return {
    seed,
    clickModel: options.clickModel ?? drawClickModel(stream("clicks-model")),
    train,
    heldout: [...heldoutWordings, ...questions.otherHeldout],
    askCounts,
    sessions,
    days: day + 1,
  };
}
