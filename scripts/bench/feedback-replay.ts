/**
 * One seed of the feedback benchmark's replay on one vault: a temporary
 * copy of the vault indexed for lexical search (no model), simulated users
 * asking the training needs — with paraphrase noise — over weeks of
 * simulated time, every answer an explicit recall with feedback in ranking
 * on and every signal written through the real FeedbackSession to the
 * vault's `meta/events.jsonl`; then the same service measured with feedback
 * on and off at the benchmark's fixed moment, on the training needs asked
 * word for word (repeated use), on held-out wordings, and on prompts that
 * must inject nothing (the automatic false-positive rate). What a seed
 * simulates is drawn up front (feedback-plan.ts); only the clicks are drawn
 * as the replay goes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchmarkQuery } from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import {
  evaluateQuery,
  type QueryMetrics,
  type RetrievalMetrics,
  summarize,
} from "../../extensions/llm-wiki/lib/bench/metrics.ts";
import { normalizeForHash } from "../../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import {
  FeedbackSession,
  type FeedbackVault,
} from "../../extensions/llm-wiki/lib/feedback/feedback-session.ts";
import { FEEDBACK_MAX } from "../../extensions/llm-wiki/lib/feedback/projection.ts";
import type { RecallResult } from "../../extensions/llm-wiki/lib/recall-operation.ts";
import { DEFAULT_SETTINGS } from "../../extensions/llm-wiki/lib/settings.ts";
import { readVaultConfig } from "../../extensions/llm-wiki/lib/vault/config.ts";
import { createWikiService, type WikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";
import { type ClickModel, simulateTurn } from "./feedback-click-model.ts";
import {
  type PlanOptions,
  planReplay,
  type ReplayQuestions,
  seededStream,
} from "./feedback-plan.ts";

const DAY_MS = 86_400_000;

/** A vault to replay on, and what is asked of it. */
export interface ReplayVault {
  name: string;
  /** Writes the vault (a folder holding `.llm-wiki/`, without `meta/`) into `dir`. */
  write(dir: string): void;
  /** The needs users ask (a seed draws which of their wordings), and other held-out questions. */
  questions: ReplayQuestions;
  /** Texts automatic recall must stay silent on. */
  negatives: readonly string[];
}

/** Questions with a fixed split: every training query is its own need, asked in its own words. */
export function fixedQuestions(
  train: readonly BenchmarkQuery[],
  heldout: readonly BenchmarkQuery[],
): ReplayQuestions {
  return { needs: train.map((q) => ({ asked: 1, wordings: [q] })), otherHeldout: heldout };
}

export interface ReplayOptions extends PlanOptions {
  seed: number;
  /** The moment measurement happens; training ends the day before. */
  now: Date;
}

/** Figures of one slice, with feedback off and on. */
export interface SliceFigures {
  queries: number;
  /** Queries whose order feedback changed, and of those whose nDCG@10 rose or fell. */
  reordered: number;
  improved: number;
  worsened: number;
  off: Pick<RetrievalMetrics, "ndcg10" | "mrr">;
  on: Pick<RetrievalMetrics, "ndcg10" | "mrr">;
}

/** The properties the gate relies on, as observed in this replay. */
export interface ReplayChecks {
  /** Measured queries whose set of pages differed with feedback on and off (must be 0). */
  setChanged: number;
  /** The largest |adjustment| any result carried (must be ≤ FEEDBACK_MAX). */
  maxAbsAdjustment: number;
  /** (repeated query, page judged relevant for it word for word) pairs checked. */
  judgedRelevantChecked: number;
  /** Of those, pages ranked lower with feedback on than off (must be 0). */
  judgedRelevantMovedDown: number;
}

export interface ReplayOutcome {
  vault: string;
  seed: number;
  pages: number;
  sessions: number;
  turns: number;
  /** Simulated days from the first session to measurement. */
  days: number;
  /** The click model this seed's users followed. */
  clickModel: ClickModel;
  /** Times a trained wording was asked: fewest, most. */
  asksPerNeed: { min: number; max: number };
  /** Logged feedback events by action. */
  events: Record<string, number>;
  repeated: SliceFigures;
  heldout: SliceFigures;
  autoFalsePositive: { negatives: number; off: number; on: number };
  checks: ReplayChecks;
}

/** Page ids of an answer in order, each once (a page can appear in two bundles). */
function rankedIds(result: RecallResult): string[] {
  return [...new Set(result.results.map((r) => r.id))];
}

/**
 * A session recording at simulated time: the service's own recorder takes
 * the clock, and the replay needs its events dated across weeks so decay
 * takes part. Same vault lookup as `WikiService.feedbackSession`.
 */
function simulatedSession(
  service: WikiService,
  clock: () => Date,
  implicit: boolean,
): FeedbackSession {
  const [paths] = service.resolveVaults();
  if (!paths) throw new Error("replay vault not found");
  const vault: FeedbackVault = {
    paths,
    vaultId: readVaultConfig(paths).config.vault_id ?? "",
    page: (id) => service.handles.get(paths).view().pages.get(id),
  };
  return new FeedbackSession({
    implicit,
    now: clock,
    vault: (kind) => (kind === paths.kind ? vault : undefined),
  });
}

/** Runs one seed on one vault; the temporary vault is removed afterwards. */
export async function runReplay(
  target: ReplayVault,
  options: ReplayOptions,
): Promise<ReplayOutcome> {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-feedback-"));
  try {
    target.write(dir);
    const settings = {
      ...DEFAULT_SETTINGS,
      includePersonal: false,
      retrievalMode: "lexical" as const,
    };
    const service = createWikiService({ cwd: dir, vault: dir, settings });
    const indexed = await service.reindex({ scope: "all", components: ["lexical"] });
    if (!indexed.ok)
      throw new Error(`indexing ${target.name} failed: ${JSON.stringify(indexed.diagnostics)}`);
    const [paths] = service.resolveVaults();
    if (!paths) throw new Error(`${target.name}: vault not found`);

    const plan = planReplay(target.name, target.questions, options.seed, options);
    // Clicks depend on the rankings, so they are drawn as the replay goes, from their own stream.
    const clicks = seededStream(options.seed, target.name, "clicks");
    const start = options.now.getTime() - plan.days * DAY_MS;
    // Pages judged relevant for a need asked word for word: they must not move down.
    const judgedRelevant = new Map<string, Set<string>>();
    for (const planned of plan.sessions) {
      const sessionStart = start + planned.day * DAY_MS;
      let clock = new Date(sessionStart);
      const session = simulatedSession(service, () => clock, settings.recallFeedback);
      for (const [t, ask] of planned.asks.entries()) {
        clock = new Date(sessionStart + t * 5 * 60_000);
        const need = ask.need;
        const answer = await service.recall({
          query: ask.text,
          policy: "explicit",
          mode: "lexical",
          refreshIndex: false,
          feedback: true,
          now: clock,
        });
        session.recordShown(answer);
        const grades = new Map(need.judgments.map((j) => [j.pageId, j.grade]));
        const acts = simulateTurn(rankedIds(answer), grades, clicks, plan.clickModel);
        for (const page of acts.opened) session.recordOpened(paths.kind, page);
        session.recordAnswer(
          acts.cited.length > 0 ? `From ${acts.cited.map((p) => `[[${p}]]`).join(", ")}.` : "",
        );
        if (acts.judgment) {
          const judged = await service.recallFeedback(session, {
            vault: paths.kind,
            page: acts.judgment.page,
            judgment: acts.judgment.judgment,
          });
          if (!judged.ok)
            throw new Error(`judgment refused: ${JSON.stringify(judged.diagnostics)}`);
          if (
            acts.judgment.judgment === "relevant" &&
            normalizeForHash(ask.text) === normalizeForHash(need.text)
          ) {
            const pages = judgedRelevant.get(need.id) ?? new Set<string>();
            pages.add(acts.judgment.page);
            judgedRelevant.set(need.id, pages);
          }
        }
        session.endTurn();
      }
    }

    const events: Record<string, number> = {};
    for (const line of readFileSync(paths.events, "utf8").split("\n")) {
      const action = /"kind":"recall_feedback".*"action":"([a-z_]+)"/.exec(line)?.[1];
      if (action) events[action] = (events[action] ?? 0) + 1;
    }

    const checks: ReplayChecks = {
      setChanged: 0,
      maxAbsAdjustment: 0,
      judgedRelevantChecked: 0,
      judgedRelevantMovedDown: 0,
    };
    const measure = async (queries: readonly BenchmarkQuery[]): Promise<SliceFigures> => {
      const scores: Record<"off" | "on", QueryMetrics[]> = { off: [], on: [] };
      const moved = { reordered: 0, improved: 0, worsened: 0 };
      for (const q of queries) {
        const ask = (feedback: boolean) =>
          service.recall({
            query: q.text,
            policy: "explicit",
            mode: "lexical",
            refreshIndex: false,
            feedback,
            now: options.now,
          });
        const off = await ask(false);
        const on = await ask(true);
        const offIds = rankedIds(off);
        const onIds = rankedIds(on);
        if ([...offIds].sort().join("\n") !== [...onIds].sort().join("\n")) checks.setChanged += 1;
        for (const item of on.results) {
          checks.maxAbsAdjustment = Math.max(checks.maxAbsAdjustment, Math.abs(item.feedback ?? 0));
        }
        for (const page of judgedRelevant.get(q.id) ?? []) {
          const before = offIds.indexOf(page);
          const after = onIds.indexOf(page);
          if (before < 0) continue;
          checks.judgedRelevantChecked += 1;
          if (after < 0 || after > before) checks.judgedRelevantMovedDown += 1;
        }
        const before = evaluateQuery(q, { queryId: q.id, rankedPageIds: offIds, autoPageIds: [] });
        const after = evaluateQuery(q, { queryId: q.id, rankedPageIds: onIds, autoPageIds: [] });
        scores.off.push(before);
        scores.on.push(after);
        if (offIds.join("\n") !== onIds.join("\n")) moved.reordered += 1;
        const gain = (after.ndcg10 ?? 0) - (before.ndcg10 ?? 0);
        if (gain > 1e-9) moved.improved += 1;
        if (gain < -1e-9) {
          moved.worsened += 1;
          // What feedback did to a query it hurt, for whoever tunes the click model or weights.
          if (process.env.FEEDBACK_BENCH_DEBUG)
            process.stderr.write(
              `${target.name} ${q.id} worse ${gain.toFixed(3)}: ${offIds.slice(0, 5).join(" ")} → ${onIds.slice(0, 5).join(" ")} | ${on.results
                .slice(0, 5)
                .map((r) => r.feedback ?? 0)
                .join(" ")}\n`,
            );
        }
      }
      const pick = (m: RetrievalMetrics) => ({ ndcg10: m.ndcg10, mrr: m.mrr });
      return {
        queries: queries.length,
        ...moved,
        off: pick(summarize(scores.off)),
        on: pick(summarize(scores.on)),
      };
    };
    const repeated = await measure(plan.train);
    const heldout = await measure(plan.heldout);
    const autoFalsePositive = { negatives: target.negatives.length, off: 0, on: 0 };
    for (const text of target.negatives) {
      for (const feedback of [false, true]) {
        const auto = await service.recall({
          query: text,
          policy: "automatic",
          mode: "lexical",
          feedback,
          now: options.now,
        });
        if (auto.results.length > 0) autoFalsePositive[feedback ? "on" : "off"] += 1;
      }
    }
    if (checks.maxAbsAdjustment > FEEDBACK_MAX + 1e-9) {
      process.stderr.write(
        `${target.name} seed ${options.seed}: adjustment ${checks.maxAbsAdjustment} beyond ±${FEEDBACK_MAX}\n`,
      );
    }
    const pages = service.status().vault?.pages ?? 0;
    await service.close();
    return {
      vault: target.name,
      seed: options.seed,
      pages,
      sessions: plan.sessions.length,
      turns: plan.sessions.reduce((n, x) => n + x.asks.length, 0),
      days: plan.days,
      clickModel: plan.clickModel,
      asksPerNeed: {
        min: Math.min(...Object.values(plan.askCounts)),
        max: Math.max(...Object.values(plan.askCounts)),
      },
      events,
      repeated,
      heldout,
      autoFalsePositive,
      checks,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
