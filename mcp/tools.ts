/**
 * The MCP tool table: each tool validates its arguments against the schema
 * shared with Pi, calls one service operation and renders its result with
 * the renderer shared by every host. Nothing here decides retrieval.
 */
import type { Static, TSchema } from "typebox";
import { Value } from "typebox/value";
import { fitRecallAnswer } from "../extensions/llm-wiki/lib/answer-fit.ts";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import type { FeedbackSession } from "../extensions/llm-wiki/lib/feedback/feedback-session.ts";
import {
  mapLegacyArguments,
  tagList,
  withMappingNotes,
} from "../extensions/llm-wiki/lib/legacy-arguments.ts";
import { renderOkfExport, renderOkfImport } from "../extensions/llm-wiki/lib/okf/okf-render.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { reindexDiagnostics } from "../extensions/llm-wiki/lib/reindex-diagnostics.ts";
import {
  renderBootstrap,
  renderCapture,
  renderEnsurePage,
  renderIngest,
  renderLint,
  renderLogEvent,
  renderObservation,
  renderRecallFeedback,
  renderReindex,
  renderResolveConflict,
  renderRetro,
  renderSearch,
  renderStatus,
  renderVerifyPage,
} from "../extensions/llm-wiki/lib/render-text.ts";
import { renderRecent } from "../extensions/llm-wiki/lib/temporal/recent.ts";
import {
  argumentProblems,
  InvalidArgumentsError,
} from "../extensions/llm-wiki/lib/tool-arguments.ts";
import {
  BootstrapParams,
  CaptureSourceParams,
  DEPRECATED_EMBEDDINGS,
  EnsurePageParams,
  IngestParams,
  LintParams,
  LogEventParams,
  ObserveParams,
  OkfExportParams,
  OkfImportParams,
  PrimeParams,
  RebuildMetaParams,
  RecallFeedbackParams,
  RecallParams,
  RecentParams,
  ReindexEmbeddingsParams,
  ReindexParams,
  ResolveConflictParams,
  RetroParams,
  SearchParams,
  StatusParams,
  TOOL_DESCRIPTIONS,
  type ToolName,
  VerifyPageParams,
  WatchParams,
  WorkingMemoryParams,
} from "../extensions/llm-wiki/lib/tool-schemas.ts";
import {
  renderWorkingMemory,
  setWorkingMemory,
} from "../extensions/llm-wiki/lib/trajectories/working-memory-setting.ts";
import { renderRebuildMeta } from "../extensions/llm-wiki/lib/views/render-rebuild-meta.ts";
import { renderCronLine } from "../extensions/llm-wiki/lib/watch/cron-line.ts";
import type {
  ReindexInput,
  ReindexResult,
  WikiService,
} from "../extensions/llm-wiki/lib/wiki-service.ts";
import { subagentUnavailable } from "../extensions/llm-wiki/lib/writing/ingest.ts";

/** What a tool call hands back before it becomes an MCP result. */
export interface ToolOutput {
  ok: boolean;
  /** The service's result object, sent as `structuredContent` (in `_meta` for a tool whose `resultIn` says so). */
  result: object;
  /** The answer's character budget (`recallMaxChars`): the text is cut to it. */
  budget?: number;
  /** The shared rendering, sent as text content. */
  text: string;
  /** Every diagnostic of the operation, for the text (the result carries them too). */
  diagnostics: Diagnostic[];
}

/** Host facilities of one call; none of them changes what an operation returns. */
export interface ToolContext {
  /** Resolves once a startup index build no longer stands between recall and an answer. */
  indexReady(): Promise<void>;
  /** Aborted when the client cancels the request. */
  signal?: AbortSignal;
  /** Reports progress of a long operation, when the client asked for progress. */
  progress?: (event: { vault: string; phase: string; current: number; total: number }) => void;
  /** The connection's feedback session: what its recalls showed, which judgments refer to. */
  feedback?: FeedbackSession;
}

/** Behaviour hints for clients (MCP tool annotations). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One MCP tool. */
export interface McpTool {
  name: ToolName;
  description: string;
  /** A JSON Schema (TypeBox schemas are), served to clients as is. */
  inputSchema: TSchema;
  annotations: ToolHints;
  /**
   * Where the machine-readable result travels: `structuredContent` (the
   * default, no `outputSchema` declared) or, for an answer a model reads
   * (`"meta"`), the result's `_meta`, the answer being the text alone:
   * clients such as Claude Code hand the model `structuredContent` in place
   * of the text. Failures and cancellations of the tool travel the same way.
   */
  resultIn?: "meta";
  /** Validates `args`, then runs the operation. */
  call(service: WikiService, args: unknown, context: ToolContext): Promise<ToolOutput>;
}

const READ: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const WRITE: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Adds a record each call (an observation, a log line): calling twice is not calling once. */
const APPEND: ToolHints = { ...WRITE, idempotentHint: false };
/** Replaces what a previous call wrote outside the vault (an OKF export's own files). */
const REPLACE: ToolHints = { ...WRITE, destructiveHint: true };

function defineTool<S extends TSchema>(
  name: ToolName,
  schema: S,
  annotations: ToolHints,
  run: (
    service: WikiService,
    args: Static<S>,
    context: ToolContext,
  ) => ToolOutput | Promise<ToolOutput>,
): McpTool {
  return {
    name,
    description: TOOL_DESCRIPTIONS[name],
    inputSchema: schema,
    annotations,
    async call(service, args, context) {
      // The host answers this with one protocol error (-32602) naming every bad field.
      if (!Value.Check(schema, args))
        throw new InvalidArgumentsError(name, argumentProblems(schema, args));
      // The older system's parameter names, mapped to ours (legacy-arguments.ts).
      const mapped = mapLegacyArguments(name, args);
      if (!mapped.ok) throw new InvalidArgumentsError(name, mapped.problems);
      const output = await run(service, mapped.args, context);
      return mapped.notes.length === 0
        ? output
        : { ...output, text: withMappingNotes(output.text, mapped.notes) };
    },
  };
}

/** The output of an operation's `result`: the shared rendering as text, its diagnostics. */
export function toolOutput<R extends { ok: boolean; diagnostics: Diagnostic[] }>(
  result: R,
  render: (result: R) => string,
): ToolOutput {
  return { ok: result.ok, result, text: render(result), diagnostics: result.diagnostics };
}

/** A tool whose answer is its text alone, the result in `_meta` (see `McpTool.resultIn`). */
function textAnswer(tool: McpTool): McpTool {
  return { ...tool, resultIn: "meta" };
}

/** An output whose answer a model reads whole: kept within the `recallMaxChars` budget. */
function budgeted(service: WikiService, output: ToolOutput): ToolOutput {
  return { ...output, budget: service.settings.recallMaxChars };
}

function reindexOutput(result: ReindexResult, deprecated?: string): ToolOutput {
  const text = renderReindex(result);
  return {
    ok: result.ok,
    result,
    text: deprecated ? `${deprecated}\n${text}` : text,
    diagnostics: reindexDiagnostics(result),
  };
}

function reindexInput(
  args: { scope?: ReindexInput["scope"]; force?: boolean; vault?: ReindexInput["vault"] },
  context: ToolContext,
): ReindexInput {
  return {
    scope: args.scope ?? "changed",
    ...(args.force !== undefined ? { force: args.force } : {}),
    ...(args.vault ? { vault: args.vault } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.progress ? { onProgress: context.progress } : {}),
  };
}

/**
 * Tells the connection's feedback session what a recall showed. A call the
 * client cancelled is never delivered, so it showed nothing.
 */
function recordShown(service: WikiService, context: ToolContext, result: RecallResult): void {
  const session = context.feedback;
  if (!session || !result.ok || context.signal?.aborted) return;
  try {
    // Shown now (a judgment sent after the answer finds the pages), logged
    // once the answer has gone out: a fresh server's first log write took
    // 20-28 ms of CPU (measured at 100k pages), which the answer need not wait for.
    session.recordShown(result, service.handles.models.embed.uri, { holdLog: true });
  } catch {
    // A log that cannot be written (read-only vault, full disk) loses the signal, not the answer.
  }
  // After the answer: the SDK hands it to the transport in this turn's microtasks.
  setImmediate(() => session.flushShown());
}

/** Every tool the server offers, in listing order. */
export const TOOLS: readonly McpTool[] = [
  textAnswer(
    defineTool("wiki_recall", RecallParams, READ, async (service, args, context) => {
      await context.indexReady();
      const result = await service.recall({
        query: args.query,
        policy: "explicit",
        ...(args.max_results !== undefined ? { maxResults: args.max_results } : {}),
        ...(args.mode ? { mode: args.mode } : {}),
        ...(args.explain ? { explain: true } : {}),
        ...(args.since !== undefined ? { since: args.since } : {}),
        ...(args.until !== undefined ? { until: args.until } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      recordShown(service, context, result);
      const maxChars = service.settings.recallMaxChars;
      const fitted = fitRecallAnswer(result, { explain: args.explain === true, maxChars });
      return budgeted(
        service,
        toolOutput(fitted.result, () => fitted.text),
      );
    }),
  ),

  defineTool("wiki_recent", RecentParams, READ, (service, args) => {
    const result = service.recent({
      ...(args.since !== undefined ? { since: args.since } : {}),
      ...(args.until !== undefined ? { until: args.until } : {}),
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      ...(args.vault ? { vault: args.vault } : {}),
    });
    return toolOutput(result, renderRecent);
  }),

  textAnswer(
    defineTool("wiki_prime", PrimeParams, READ, async (service, _args, context) => {
      await context.indexReady();
      const result = await service.prime(context.signal ? { signal: context.signal } : {});
      recordShown(service, context, result);
      const fitted = fitRecallAnswer(result, { maxChars: service.settings.recallMaxChars });
      return budgeted(
        service,
        toolOutput(fitted.result, () => fitted.text),
      );
    }),
  ),

  textAnswer(
    defineTool("wiki_search", SearchParams, READ, (service, args) => {
      const result = service.search({
        query: args.query,
        ...(args.limit !== undefined ? { limit: args.limit } : {}),
        ...(args.type !== undefined ? { type: args.type } : {}),
        ...(args.vault ? { vault: args.vault } : {}),
      });
      return budgeted(service, toolOutput(result, renderSearch));
    }),
  ),

  // An overview for the model to read: its text (637 characters on the example vault) rather than 1,691 of JSON.
  textAnswer(
    defineTool("wiki_status", StatusParams, READ, (service, args) => {
      const result = service.status(args.vault ? { vault: args.vault } : {});
      return toolOutput(result, renderStatus);
    }),
  ),

  defineTool("wiki_reindex", ReindexParams, WRITE, async (service, args, context) =>
    reindexOutput(
      await service.reindex({
        ...reindexInput(args, context),
        ...(args.components ? { components: args.components } : {}),
      }),
    ),
  ),

  defineTool(
    "wiki_reindex_embeddings",
    ReindexEmbeddingsParams,
    WRITE,
    async (service, args, context) =>
      reindexOutput(
        await service.reindex({
          ...reindexInput(args, context),
          components: ["lexical", "vectors"],
        }),
        DEPRECATED_EMBEDDINGS,
      ),
  ),

  defineTool("wiki_bootstrap", BootstrapParams, WRITE, (service, args) => {
    const result = service.bootstrap({
      ...(args.name !== undefined ? { name: args.name } : {}),
      ...(args.topic !== undefined ? { topic: args.topic } : {}),
      ...(args.mode !== undefined ? { mode: args.mode } : {}),
      ...(args.root !== undefined ? { root: args.root, confined: true } : {}),
    });
    return toolOutput(result, renderBootstrap);
  }),

  defineTool("wiki_ensure_page", EnsurePageParams, WRITE, (service, args) => {
    const result = service.ensurePage(args);
    return toolOutput(result, renderEnsurePage);
  }),

  defineTool("wiki_observe", ObserveParams, APPEND, (service, args) => {
    const result = service.observe({ ...args, tags: tagList(args.tags) });
    return toolOutput(result, renderObservation);
  }),

  defineTool("wiki_retro", RetroParams, APPEND, (service, args) => {
    // Without lessons the service says what is missing (the schema leaves them optional for `body`).
    const result = service.retro({ ...args, lessons: args.lessons ?? [] });
    return toolOutput(result, renderRetro);
  }),

  defineTool("wiki_log_event", LogEventParams, APPEND, (service, args) => {
    const result = service.logEvent(args);
    return toolOutput(result, renderLogEvent);
  }),

  defineTool("wiki_ingest", IngestParams, WRITE, (service, args) => {
    // The server has no model of its own: only the hand-off runs here.
    const result =
      args.mode === "subagent"
        ? subagentUnavailable("this MCP server has no model of its own")
        : service.ingest({
            ...(args.source !== undefined ? { source: args.source } : {}),
            ...(args.part !== undefined ? { part: args.part } : {}),
            ...(args.mark_ingested !== undefined ? { markIngested: args.mark_ingested } : {}),
          });
    const output = toolOutput(result, renderIngest);
    // No sub-agent runs here, so a model named for it is not used: said, not dropped silently.
    return args.model === undefined || args.mode === "subagent"
      ? output
      : {
          ...output,
          text: withMappingNotes(output.text, [
            "model: this MCP server runs no sub-agent; the text is handed to you and no model was used",
          ]),
        };
  }),

  defineTool("wiki_capture_source", CaptureSourceParams, APPEND, async (service, args, context) => {
    const result = await service.captureSource({
      ...args,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return toolOutput(result, renderCapture);
  }),

  // Idempotent: the same vault gives the same bytes, and a second call writes nothing.
  // After the startup index, so both never queue on the index lock.
  defineTool("wiki_rebuild_meta", RebuildMetaParams, WRITE, async (service, args, context) => {
    await context.indexReady();
    const result = await service.rebuildMeta({
      ...(args.vault ? { vault: args.vault } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return toolOutput(result, renderRebuildMeta);
  }),

  // Sliced: a ping or a SIGTERM is seen between slices, and a cancelled call stops at the next.
  defineTool("wiki_lint", LintParams, WRITE, async (service, args, context) => {
    const result = await service.lint({
      ...args,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return toolOutput(result, renderLint);
  }),

  // Idempotent: the same decision again returns the page already written.
  // After the startup index: the new page is indexed as Pi indexes it (`indexed: true`).
  defineTool(
    "wiki_resolve_conflict",
    ResolveConflictParams,
    WRITE,
    async (service, args, context) => {
      await context.indexReady();
      const result = await service.resolveConflict(args);
      return toolOutput(result, renderResolveConflict);
    },
  ),

  // Idempotent: verifying again on the same day writes nothing.
  defineTool("wiki_verify_page", VerifyPageParams, WRITE, async (service, args, context) => {
    await context.indexReady();
    const result = await service.verifyPage(args);
    return toolOutput(result, renderVerifyPage);
  }),

  // Explicit judgments of pages this connection's recalls showed; after the startup
  // index, so a correction's page is indexed as in Pi.
  defineTool(
    "wiki_recall_feedback",
    RecallFeedbackParams,
    APPEND,
    async (service, args, context) => {
      await context.indexReady();
      // Without the connection's session (a direct call) nothing was shown: every page is refused.
      const session = context.feedback ?? service.feedbackSession();
      const result = await service.recallFeedback(session, {
        page: args.page_id,
        judgment: args.judgment,
        ...(args.correction !== undefined ? { correction: args.correction } : {}),
        ...(args.vault ? { vault: args.vault } : {}),
      });
      return toolOutput(result, renderRecallFeedback);
    },
  ),

  // Prints the crontab line only: nothing is scheduled, so it reads like status.
  defineTool("wiki_watch", WatchParams, READ, (service, args) => {
    const result = service.watchSchedule({
      interval: args.interval,
      ...(args.vault ? { vault: args.vault } : {}),
    });
    return toolOutput(result, renderCronLine);
  }),

  // The way a plugin user (no `llm-wiki` on PATH) turns session recording on.
  defineTool("wiki_working_memory", WorkingMemoryParams, WRITE, (service, args) =>
    toolOutput(setWorkingMemory(service.settings.trajectories, args.enabled), renderWorkingMemory),
  ),

  // The model names the folder, so it stays in the project (`confined`); the
  // same vault exports the same bytes, replacing only the previous export's files.
  // Sliced: a ping or a SIGTERM is seen between slices; a cancelled export leaves the folder as it was.
  defineTool("wiki_okf_export", OkfExportParams, REPLACE, async (service, args, context) => {
    const result = await service.okfExport({
      dir: args.dir,
      confined: true,
      ...(context.signal ? { signal: context.signal } : {}),
      ...(args.with_raw !== undefined ? { withRaw: args.with_raw } : {}),
      ...(args.vault ? { vault: args.vault } : {}),
    });
    return toolOutput(result, renderOkfExport);
  }),

  // A dry run unless `apply`; applying again creates nothing (identical pages are skipped).
  // After the startup index, so the created pages are indexed as in Pi.
  defineTool("wiki_okf_import", OkfImportParams, WRITE, async (service, args, context) => {
    await context.indexReady();
    const result = await service.okfImport({
      dir: args.dir,
      confined: true,
      apply: args.apply === true,
      ...(context.signal ? { signal: context.signal } : {}),
      ...(args.with_raw !== undefined ? { withRaw: args.with_raw } : {}),
      ...(args.vault ? { vault: args.vault } : {}),
    });
    return toolOutput(result, (r) => renderOkfImport(r, "apply: true"));
  }),
];
