/**
 * The recall operation shared by every host, as one pipeline of named
 * stages, each its own module under recall/ with a typed input and output:
 *
 *   plan      recall/recall-plan.ts       policy, mode, type filter, clock
 *   vaults    recall/recall-vaults.ts     which vaults answer, their views; index refresh
 *   window    temporal/recall-window.ts   time words → a window of days, page dates
 *   retrieve  retrieval.ts                per vault: search, score; fused across vaults
 *             temporal/time-question.ts   a question only about a time: its window's pages
 *   prefer    recall/recall-prefer.ts     bounded preferences: code, feedback, types, freshness
 *   assemble  recall/recall-assemble.ts   memory bundles, host items, conflicts
 *   fit       recall/recall-fit.ts        the `<wiki-recall>` block within the budget
 *
 * Each stage's time is in `RecallResult.stages` (printed by `--explain`),
 * retrieve's with its parts (store, search, score, fuse).
 */
import type { Diagnostic } from "./diagnostics.ts";
import { assembleHits } from "./recall/recall-assemble.ts";
import { fitToBudget } from "./recall/recall-fit.ts";
import { planRecall, type RecallPlan } from "./recall/recall-plan.ts";
import { preferHits } from "./recall/recall-prefer.ts";
import type { RecallInput, RecallResult } from "./recall/recall-types.ts";
import { openVaults, retrievalRequest } from "./recall/recall-vaults.ts";
import { stageClock } from "./recall/stage-clock.ts";
import type { RetrievalHit } from "./retrieval/retrieval-types.ts";
import { retrieve } from "./retrieval.ts";
import type { WikiSettings } from "./settings.ts";
import { recallWindow } from "./temporal/recall-window.ts";
import { answerTimeQuestion, timeQuestion } from "./temporal/time-question.ts";
import { inWindow, type TimeWindow } from "./temporal/time-window.ts";
import type { VaultPaths } from "./vault/paths.ts";
import type { VaultHandles } from "./vault-handles.ts";

export type * from "./recall/recall-types.ts";

/** A recall that searched nothing: ok unless a diagnostic is an error. */
export function emptyRecall(
  base: RecallPlan["base"],
  diagnostics: Diagnostic[],
  stages: RecallResult["stages"] = [],
): RecallResult {
  return {
    ...base,
    ok: !diagnostics.some((d) => d.severity === "error"),
    modeUsed: "none",
    results: [],
    conflicts: [],
    rendered: "",
    renderedPages: [],
    diagnostics,
    trace: [],
    durationMs: 0,
    stages,
  };
}

/** Runs one recall for a host. `vaults` are the candidate vaults, project first. */
export async function recallOperation(
  handles: VaultHandles,
  vaults: { project?: VaultPaths; personal?: VaultPaths },
  settings: WikiSettings,
  input: RecallInput,
  noVault: () => Diagnostic[],
): Promise<RecallResult> {
  const clock = stageClock();
  const plan = clock.run("plan", () => planRecall(input, settings));
  const opened = await clock.run("vaults", () =>
    openVaults(handles, vaults, plan, settings, input.refreshIndex !== false),
  );
  if (opened.views.length === 0) {
    // Automatic recall without a vault is a quiet no-op, not an error.
    return emptyRecall(plan.base, plan.automatic ? [] : noVault(), clock.stages);
  }
  const timed = clock.run("window", () =>
    recallWindow(
      input,
      opened.views.map((vault, i) => ({ vault, paths: opened.paths[i] as VaultPaths })),
    ),
  );
  if (!timed.ok) {
    return { ...emptyRecall(plan.base, timed.diagnostics, clock.stages), ok: false };
  }
  const outcome = await clock.run("retrieve", () =>
    retrieve(timed.vaults, retrievalRequest(handles, opened, plan, settings, input, timed)),
  );
  const retrieved = clock.stages.find((s) => s.stage === "retrieve");
  if (retrieved && outcome.parts.length > 0) retrieved.parts = outcome.parts;
  // "What did we decide last week": the window and the asked type say which
  // pages answer, where the words alone are no evidence.
  const question =
    timed.window !== undefined && !plan.priming && outcome.modeUsed !== "none"
      ? timeQuestion(timed.searchQuery)
      : undefined;
  if (question && timed.window) {
    const answer = answerTimeQuestion(
      timed.vaults,
      timed.window,
      question,
      outcome.hits,
      plan.policy,
      input.explain === true,
    );
    outcome.hits = answer.hits;
    outcome.trace.push(answer.trace);
  }
  const preferred = clock.run("prefer", () =>
    preferHits(
      plan,
      opened.handles,
      outcome.hits,
      outcome.query,
      input.feedback ?? settings.feedbackRanking,
    ),
  );
  const assembled = clock.run("assemble", () =>
    assembleHits(
      plan,
      opened.handles,
      timed.vaults,
      preferred,
      outcome.query,
      input.assembly !== false,
    ),
  );
  const pageCount = Math.max(0, ...timed.vaults.map((v) => v.pages.size));
  const fitted = clock.run("fit", () =>
    fitToBudget(plan, settings, assembled, pageCount, timed.window),
  );
  const diagnostics = [
    ...opened.notes,
    ...timed.diagnostics,
    ...outcome.diagnostics,
    ...fitted.diagnostics,
  ];
  return {
    ...plan.base,
    query: outcome.query,
    ok: !diagnostics.some((d) => d.severity === "error"),
    modeUsed: outcome.modeUsed,
    ...(outcome.vaultModes.length > 0 ? { vaultModes: outcome.vaultModes } : {}),
    ...(outcome.respelled.length > 0 ? { respelled: outcome.respelled } : {}),
    results: assembled.results,
    conflicts: assembled.conflicts,
    rendered: fitted.rendered,
    renderedPages: fitted.renderedPages,
    diagnostics,
    trace: outcome.trace,
    durationMs: outcome.durationMs,
    stages: clock.stages,
    ...(timed.window
      ? { window: { ...timed.window, pagesInside: datedInside(assembled.results, timed.window) } }
      : {}),
    ...(plan.exclude ? { alreadyGiven: alreadyGiven(outcome.hits, plan.exclude) } : {}),
  };
}

/** How many of `items` are dated inside `window`. */
function datedInside(items: readonly { date?: string }[], window: TimeWindow): number {
  return items.filter((r) => r.date !== undefined && inWindow(r.date, window)).length;
}

/** How many of `hits` the context already holds. */
function alreadyGiven(hits: readonly RetrievalHit[], exclude: ReadonlySet<string>): number {
  return hits.filter((h) => exclude.has(`${h.vault}:${h.id}`)).length;
}
