/**
 * The Pi distill pass: a sub-agent of the session's own model (or the one
 * the `subagentModel` setting names, see subagent-model.ts) turns
 * undistilled trajectories into skill and case pages. Each trajectory of the
 * batch (as the service hands it out) gets a fresh in-process `Agent` whose
 * context holds only the rules, the schema and that trajectory: every page a
 * run writes is then known to come from that one trajectory, which is what
 * marking it needs, and one trajectory's text never colours another's pages.
 * Its tools write through the service, which never overwrites. The main
 * session sees none of this, only the tool's result.
 *
 * A trajectory is marked distilled when its run finished and at least one
 * skill or case page stands from it. A run that hit its turn limit leaves its
 * trajectory undistilled and the pass goes on; a model error or a cancel
 * stops the pass, and the trajectories after it are left for the next call.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Diagnostic, diagnostic } from "../lib/diagnostics.ts";
import {
  DISTILLED_TYPES,
  type DistillBatchResult,
  type DistillItem,
  normaliseId,
} from "../lib/trajectories/distill.ts";
import type { WikiService } from "../lib/wiki-service.ts";
import {
  distillSystemPrompt,
  type KnownPage,
  type RunLimits,
  trajectoryMessage,
} from "./distill-subagent-prompt.ts";
import { type DistilledPage, type DistillLedger, distillTools } from "./distill-subagent-tools.ts";
import { SESSION_MODEL, type SubagentModelChoice } from "./subagent-model.ts";
import { runSubagent, type SubagentEnd, type SubagentOutcome } from "./subagent-run.ts";

/** Bounds of each trajectory's run: a search or two and a skill plus a case or two, not a runaway loop. */
export const DISTILL_LIMITS: Readonly<RunLimits> = Object.freeze({ maxTurns: 6, maxWrites: 4 });
/** The sub-agent's closing note is returned to the main session; a note, not a copy of the trajectory. */
const NOTE_CHARS = 400;

/** How a trajectory's run ended. */
export type RunOutcome = SubagentOutcome;

export interface DistillRunReport {
  /** Trajectory id (`trajectories/TRJ-…`). */
  trajectory: string;
  title: string;
  outcome: RunOutcome;
  /** Model requests the run took. */
  turns: number;
  created: number;
  conflicts: number;
  /** Whether the trajectory is now marked distilled (by this run). */
  marked: boolean;
  /** The sub-agent's closing reply, cut to a few hundred characters. */
  note?: string;
}

/** What the pass did to a batch; `ok` is false when a run did not finish or a mark failed. */
export interface DistillSubagentResult {
  ok: boolean;
  mode: "subagent";
  /** `provider/model` that wrote the pages. */
  model: string;
  /** One report per trajectory run, in order. */
  runs: DistillRunReport[];
  created: DistilledPage[];
  /** Titles the sub-agent wrote that exist already: reported, nothing overwritten. */
  conflicts: DistilledPage[];
  /** Trajectories of the batch not run because the pass stopped before them. */
  skipped: string[];
  /** Undistilled trajectories outside the batch. */
  remaining: number;
  diagnostics: Diagnostic[];
}

export interface DistillSubagentOptions {
  /** The tool's context: the session's model, and the registry that streams it with request-time auth. */
  ctx: Pick<ExtensionContext, "model" | "modelRegistry" | "thinkingLevel">;
  service: WikiService;
  /** Trajectory id; default the oldest undistilled ones. */
  trajectory?: string;
  batchSize?: number;
  signal?: AbortSignal;
  /** Called as runs start and pages are written, with the result so far. */
  onProgress?: (text: string, partial: DistillSubagentResult) => void;
  limits?: RunLimits;
  /** The model chosen for the pass, resolved; default the session's model. */
  model?: SubagentModelChoice;
}

type Model = NonNullable<ExtensionContext["model"]>;

interface Run {
  ctx: DistillSubagentOptions["ctx"];
  model: Model;
  service: WikiService;
  item: DistillItem;
  position: { index: number; count: number };
  systemPrompt: string;
  known: KnownPage[];
  ledger: DistillLedger;
  limits: RunLimits;
  signal: AbortSignal | undefined;
  onCreated: () => void;
}

interface RunEnd extends SubagentEnd {
  /** Page writes refused past the run's limit. */
  refused: number;
}

/** `distill_no_model`: the pass needs the session's model; the hand-off does not. */
export function distillUnavailable(reason: string): DistillBatchResult {
  return {
    ok: false,
    batch: [],
    remaining: 0,
    diagnostics: [
      diagnostic("distill_no_model", "error", `mode "subagent" needs a model: ${reason}`, {
        repair:
          'wiki_distill_skills {"mode": "handoff"}: returns the trajectories for you to write the pages',
      }),
    ],
  };
}

/** Runs the sub-agent on one trajectory in a context of its own, within the run's limits. */
async function runOne(run: Run): Promise<RunEnd> {
  const { tools, writes } = distillTools({
    service: run.service,
    trajectory: run.item.id,
    maxWrites: run.limits.maxWrites,
    ledger: run.ledger,
    onCreated: run.onCreated,
  });
  const end = await runSubagent({
    ctx: run.ctx,
    model: run.model,
    systemPrompt: run.systemPrompt,
    tools,
    message: trajectoryMessage(run.item, run.position, run.known),
    maxTurns: run.limits.maxTurns,
    noteChars: NOTE_CHARS,
    signal: run.signal,
  });
  return { ...end, refused: writes.refused };
}

/** How to go on with trajectory `id` after its run stopped. */
function retryRepair(id: string): string {
  return `wiki_distill_skills ${JSON.stringify({ trajectory: id })} runs it again (pages already written from it count), or wiki_distill_skills ${JSON.stringify({ trajectory: id, mode: "handoff" })} hands you the trajectory to write the pages yourself`;
}

/** Why the run on `id` did not finish, and how to go on. */
function stopDiagnostic(
  outcome: Exclude<RunOutcome, "done">,
  id: string,
  limits: RunLimits,
  error?: string,
): Diagnostic {
  const left = `${id} stays undistilled; pages already written are kept`;
  const repair = retryRepair(id);
  switch (outcome) {
    case "aborted":
      return diagnostic("distill_aborted", "error", `cancelled while distilling ${id}; ${left}`, {
        repair,
      });
    case "turn_limit":
      return diagnostic(
        "distill_turn_limit",
        "error",
        `the sub-agent was still calling tools after ${limits.maxTurns} turns on ${id}; stopped there, ${left}`,
        { repair },
      );
    case "model_error":
      return diagnostic(
        "distill_model_error",
        "error",
        `the model failed on ${id} (${error ?? "no answer"}); ${left}`,
        { repair },
      );
  }
}

/**
 * Pages that stand from trajectory `id` after its run: those it created, and
 * titles it found taken by a skill or case page that already cites it (an
 * earlier, interrupted run wrote them).
 */
function standingPages(service: WikiService, id: string, ledger: DistillLedger): DistilledPage[] {
  const created = ledger.created.filter((p) => p.trajectory === id);
  const conflicts = ledger.conflicts.filter((p) => p.trajectory === id);
  if (conflicts.length === 0) return created;
  const [vault] = service.resolveVaults("active");
  const pages = vault ? service.registry(vault).pages : undefined;
  const citing = conflicts.filter((p) => {
    const meta = pages?.get(p.id);
    return (
      meta !== undefined &&
      (DISTILLED_TYPES as readonly string[]).includes(meta.type) &&
      meta.sources.some((s) => normaliseId(s) === id)
    );
  });
  const standing = [...created];
  for (const page of citing) {
    if (!standing.some((p) => p.id === page.id)) standing.push(page);
  }
  return standing;
}

/**
 * Runs the pass on a batch. Returns the service's own answer unchanged when
 * there is nothing to run on (every trajectory distilled, an unknown id).
 */
export async function runDistillSubagent(
  options: DistillSubagentOptions,
): Promise<DistillBatchResult | DistillSubagentResult> {
  const { ctx, service, signal } = options;
  const limits = options.limits ?? DISTILL_LIMITS;
  const choice = options.model ?? { model: ctx.model, chosen: SESSION_MODEL, diagnostics: [] };
  const model = choice.model;
  if (!model) {
    const refused = distillUnavailable("no model is selected in this session");
    return { ...refused, diagnostics: [...choice.diagnostics, ...refused.diagnostics] };
  }
  const batch = service.distillBatch({
    ...(options.trajectory !== undefined ? { trajectory: options.trajectory } : {}),
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
  });
  if (!batch.ok || batch.batch.length === 0 || batch.schema === undefined) return batch;

  const ledger: DistillLedger = { created: [], conflicts: [] };
  const result: DistillSubagentResult = {
    ok: true,
    mode: "subagent",
    model: `${model.provider}/${model.id}`,
    runs: [],
    created: ledger.created,
    conflicts: ledger.conflicts,
    skipped: [],
    remaining: batch.remaining,
    // A chosen model that could not be used is said first: the pages came from another.
    diagnostics: [...choice.diagnostics, ...batch.diagnostics],
  };
  const systemPrompt = distillSystemPrompt(batch.schema, limits);
  const count = batch.batch.length;
  const progress = (index: number, id: string) =>
    options.onProgress?.(
      `distilling ${id}: ${index} of ${count} · ${ledger.created.length} page(s) written`,
      result,
    );

  for (const [i, item] of batch.batch.entries()) {
    const index = i + 1;
    if (signal?.aborted) {
      result.ok = false;
      result.diagnostics.push(stopDiagnostic("aborted", item.id, limits));
      result.skipped.push(...batch.batch.slice(i).map((t) => t.id));
      break;
    }
    progress(index, item.id);
    const createdBefore = ledger.created.length;
    const conflictsBefore = ledger.conflicts.length;
    const end = await runOne({
      ctx,
      model,
      service,
      item,
      position: { index, count },
      systemPrompt,
      known: [...ledger.created, ...ledger.conflicts].map((p) => ({ id: p.id, title: p.title })),
      ledger,
      limits,
      signal,
      onCreated: () => progress(index, item.id),
    });
    const report: DistillRunReport = {
      trajectory: item.id,
      title: item.title,
      outcome: end.outcome,
      turns: end.turns,
      created: ledger.created.length - createdBefore,
      conflicts: ledger.conflicts.length - conflictsBefore,
      marked: false,
      ...(end.note !== undefined ? { note: end.note } : {}),
    };
    result.runs.push(report);
    if (end.refused > 0) {
      result.diagnostics.push(
        diagnostic(
          "distill_page_limit",
          "warning",
          `${item.id}: ${end.refused} page write(s) refused past the limit of ${limits.maxWrites} a trajectory`,
        ),
      );
    }
    if (end.outcome !== "done") {
      result.ok = false;
      result.diagnostics.push(stopDiagnostic(end.outcome, item.id, limits, end.error));
      // A failing model or a cancel would fail the next runs too; a turn limit is this trajectory's alone.
      if (end.outcome !== "turn_limit") {
        result.skipped.push(...batch.batch.slice(i + 1).map((t) => t.id));
        break;
      }
      continue;
    }
    const pages = standingPages(service, item.id, ledger);
    if (pages.length === 0) {
      result.diagnostics.push(
        diagnostic(
          "distill_nothing_written",
          "warning",
          `the sub-agent read ${item.id} and wrote no page; it stays undistilled`,
          {
            repair: `wiki_distill_skills ${JSON.stringify({ trajectory: item.id, mode: "handoff" })} to write pages yourself; a trajectory that teaches nothing can stay undistilled`,
          },
        ),
      );
      continue;
    }
    const marked = await service.markDistilled({
      trajectory: item.id,
      pages: pages.map((p) => p.id),
    });
    result.diagnostics.push(...marked.diagnostics);
    if (marked.ok) report.marked = true;
    else result.ok = false;
  }
  return result;
}
