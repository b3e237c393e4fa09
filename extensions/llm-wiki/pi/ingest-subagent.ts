/**
 * The Pi ingest pass: a sub-agent of the session's own model (or the one the
 * `subagentModel` setting names, see subagent-model.ts) turns a skeleton
 * source into pages. Each part of the source (as the service hands
 * it out) gets a fresh in-process `Agent` whose context holds only the rules,
 * the page schema and that part; its tools write through the service, which
 * never overwrites. The main session sees none of this, only the tool's
 * result. Every part runs, in order; the first that does not finish stops
 * the pass, and only a complete pass that wrote a page marks the source.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Diagnostic, diagnostic } from "../lib/diagnostics.ts";
import { sourceName } from "../lib/render-text.ts";
import type { WikiService } from "../lib/wiki-service.ts";
import { type IngestPart, type IngestResult, subagentUnavailable } from "../lib/writing/ingest.ts";
import type { SourceRef } from "../lib/writing/ingest-sources.ts";
import {
  type KnownPage,
  type PartLimits,
  partMessage,
  subagentSystemPrompt,
} from "./ingest-subagent-prompt.ts";
import { type IngestedPage, type PassLedger, partTools } from "./ingest-subagent-tools.ts";
import { SESSION_MODEL, type SubagentModelChoice } from "./subagent-model.ts";
import { runSubagent, type SubagentOutcome } from "./subagent-run.ts";

/** Bounds of each part's run: enough for a search or two and a page per idea, not a runaway loop. */
export const SUBAGENT_LIMITS: Readonly<PartLimits> = Object.freeze({ maxTurns: 8, maxWrites: 12 });
/** The sub-agent's closing note is returned to the main session; a note, not a copy of the source. */
const NOTE_CHARS = 600;

/** How a part's run ended. */
export type PartOutcome = SubagentOutcome;

export interface PartReport {
  index: number;
  outcome: PartOutcome;
  /** Model requests the part took. */
  turns: number;
  created: number;
  conflicts: number;
  /** The sub-agent's closing reply, cut to a few hundred characters. */
  note?: string;
}

/** What the pass did to one source; `ok` is false when a part did not finish. */
export interface IngestSubagentResult {
  ok: boolean;
  mode: "subagent";
  /** `provider/model` that wrote the pages. */
  model: string;
  source: SourceRef;
  partCount: number;
  /** One report per part run, in order; fewer than `partCount` when the pass stopped. */
  parts: PartReport[];
  created: IngestedPage[];
  /** Titles the sub-agent wrote that exist already: reported, nothing overwritten. */
  conflicts: IngestedPage[];
  marked?: IngestResult["marked"];
  /** Skeleton sources waiting besides this one. */
  pending: SourceRef[];
  diagnostics: Diagnostic[];
}

export interface IngestSubagentOptions {
  /** The tool's context: the session's model, and the registry that streams it with request-time auth. */
  ctx: Pick<ExtensionContext, "model" | "modelRegistry" | "thinkingLevel">;
  service: WikiService;
  /** Source id or source page id; default the oldest skeleton source. */
  source?: string;
  signal?: AbortSignal;
  /** Called as parts start and pages are written, with the result so far. */
  onProgress?: (text: string, partial: IngestSubagentResult) => void;
  limits?: PartLimits;
  /** The model chosen for the pass, resolved; default the session's model. */
  model?: SubagentModelChoice;
}

type Model = NonNullable<ExtensionContext["model"]>;

interface PartRun {
  ctx: IngestSubagentOptions["ctx"];
  model: Model;
  service: WikiService;
  source: SourceRef;
  systemPrompt: string;
  part: IngestPart;
  known: KnownPage[];
  ledger: PassLedger;
  limits: PartLimits;
  signal: AbortSignal | undefined;
  onCreated: () => void;
}

/** Runs the sub-agent on one part in a context of its own, within the part's limits. */
async function runPart(run: PartRun): Promise<PartReport & { error?: string; refused: number }> {
  const { tools, writes } = partTools({
    service: run.service,
    source: run.source,
    part: run.part.index,
    maxWrites: run.limits.maxWrites,
    ledger: run.ledger,
    onCreated: run.onCreated,
  });
  const createdBefore = run.ledger.created.length;
  const conflictsBefore = run.ledger.conflicts.length;
  const { outcome, turns, note, error } = await runSubagent({
    ctx: run.ctx,
    model: run.model,
    systemPrompt: run.systemPrompt,
    tools,
    message: partMessage(run.source, run.part, run.known),
    maxTurns: run.limits.maxTurns,
    noteChars: NOTE_CHARS,
    signal: run.signal,
  });
  return {
    index: run.part.index,
    outcome,
    turns,
    created: run.ledger.created.length - createdBefore,
    conflicts: run.ledger.conflicts.length - conflictsBefore,
    ...(note !== undefined ? { note } : {}),
    ...(error !== undefined ? { error } : {}),
    refused: writes.refused,
  };
}

/** Why a pass stopped at `part`, and how to go on from there. */
function stopDiagnostic(
  outcome: Exclude<PartOutcome, "done">,
  key: string,
  part: number,
  count: number,
  limits: PartLimits,
  error?: string,
): Diagnostic {
  const where = `part ${part} of ${count} of ${key}`;
  const left = "the source stays a skeleton; pages already written are kept";
  const repair = `wiki_ingest ${JSON.stringify({ source: key })} runs the pass again (written pages are reported as existing), or wiki_ingest ${JSON.stringify({ source: key, part, mode: "handoff" })} hands you the text from this part`;
  switch (outcome) {
    case "aborted":
      return diagnostic("ingest_aborted", "error", `cancelled during ${where}; ${left}`, {
        repair,
      });
    case "turn_limit":
      return diagnostic(
        "ingest_turn_limit",
        "error",
        `the sub-agent was still calling tools after ${limits.maxTurns} turns on ${where}; stopped there, ${left}`,
        { repair },
      );
    case "model_error":
      return diagnostic(
        "ingest_model_error",
        "error",
        `the model failed on ${where} (${error ?? "no answer"}); ${left}`,
        { repair },
      );
  }
}

/**
 * Runs the pass on one source. Returns the service's own answer unchanged
 * when there is nothing to run on (nothing waiting, an unknown source).
 */
export async function runIngestSubagent(
  options: IngestSubagentOptions,
): Promise<IngestResult | IngestSubagentResult> {
  const { ctx, service, signal } = options;
  const limits = options.limits ?? SUBAGENT_LIMITS;
  const choice = options.model ?? { model: ctx.model, chosen: SESSION_MODEL, diagnostics: [] };
  const model = choice.model;
  if (!model) {
    const refused = subagentUnavailable("no model is selected in this session");
    return { ...refused, diagnostics: [...choice.diagnostics, ...refused.diagnostics] };
  }
  const first = service.ingest(options.source !== undefined ? { source: options.source } : {});
  if (!first.ok || !first.source || !first.part || first.schema === undefined) return first;

  const source = first.source;
  const key = sourceName(source);
  const count = first.part.count;
  const ledger: PassLedger = { created: [], conflicts: [] };
  const result: IngestSubagentResult = {
    ok: true,
    mode: "subagent",
    model: `${model.provider}/${model.id}`,
    source,
    partCount: count,
    parts: [],
    created: ledger.created,
    conflicts: ledger.conflicts,
    pending: first.pending,
    // A chosen model that could not be used is said first: the pages came from another.
    diagnostics: [...choice.diagnostics, ...first.diagnostics],
  };
  const systemPrompt = subagentSystemPrompt(source, first.schema, limits);
  const progress = (index: number) =>
    options.onProgress?.(
      `ingesting ${key}: part ${index} of ${count} · ${ledger.created.length} page(s) written`,
      result,
    );

  let step: IngestResult = first;
  for (let index = 1; index <= count; index += 1) {
    if (index > 1) step = service.ingest({ source: key, part: index });
    if (!step.ok || !step.part) {
      result.diagnostics.push(...step.diagnostics);
      break;
    }
    if (signal?.aborted) {
      result.diagnostics.push(stopDiagnostic("aborted", key, index, count, limits));
      break;
    }
    progress(index);
    const report = await runPart({
      ctx,
      model,
      service,
      source,
      systemPrompt,
      part: step.part,
      known: [...ledger.created, ...ledger.conflicts].map((p) => ({ id: p.id, title: p.title })),
      ledger,
      limits,
      signal,
      onCreated: () => progress(index),
    });
    const { error, refused, ...kept } = report;
    result.parts.push(kept);
    if (refused > 0) {
      result.diagnostics.push(
        diagnostic(
          "ingest_page_limit",
          "warning",
          `part ${index} of ${key}: ${refused} page write(s) refused past the limit of ${limits.maxWrites} a part`,
        ),
      );
    }
    if (report.outcome !== "done") {
      result.diagnostics.push(stopDiagnostic(report.outcome, key, index, count, limits, error));
      break;
    }
  }

  const complete = result.parts.length === count && result.parts.every((p) => p.outcome === "done");
  if (!complete) {
    result.ok = false;
    return result;
  }
  if (ledger.created.length === 0) {
    result.diagnostics.push(
      diagnostic(
        "ingest_nothing_written",
        "warning",
        `the sub-agent read all ${count} part(s) of ${key} and wrote no page; the source stays a skeleton`,
        {
          repair: `wiki_ingest ${JSON.stringify({ source: key, mode: "handoff" })} to write pages yourself, or wiki_ingest ${JSON.stringify({ source: key, mark_ingested: true })} if it holds nothing worth a page`,
        },
      ),
    );
    return result;
  }
  // A source summarised before (re-read on request) or without a page has nothing to mark.
  if (source.page && source.status === "skeleton") {
    const marked = service.ingest({ source: key, markIngested: true });
    if (marked.marked) result.marked = marked.marked;
    result.pending = marked.pending;
    result.diagnostics.push(...marked.diagnostics);
    if (!marked.ok) result.ok = false;
  }
  return result;
}
