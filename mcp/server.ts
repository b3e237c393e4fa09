/**
 * The MCP server over a wiki service, transport-free: lists the tool table
 * with its TypeBox schemas as input schemas and turns each call into one
 * service operation. The low-level `Server` (not `McpServer`) is used because
 * `McpServer` wants Zod schemas; the shared schemas are JSON Schema already.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { budgetAnswer } from "../extensions/llm-wiki/lib/answer-fit.ts";
import {
  type Diagnostic,
  diagnostic,
  errorMessage,
  WikiError,
} from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderedOnly } from "../extensions/llm-wiki/lib/feedback/rendered-only.ts";
import { renderAnswer } from "../extensions/llm-wiki/lib/render-text.ts";
import { InvalidArgumentsError } from "../extensions/llm-wiki/lib/tool-arguments.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { createCallTurns } from "./call-turns.ts";
import { listPageResources, PAGE_TEMPLATE, readPageResource } from "./page-resources.ts";
import { hasPrompt, PROMPTS, primePrompt } from "./prompts.ts";
import { ProtocolError } from "./protocol-error.ts";
import type { Refusal } from "./stdio-transport.ts";
import { type McpTool, TOOLS, type ToolContext, type ToolOutput } from "./tools.ts";
import { trajectoryTools } from "./trajectory-tools.ts";
import { toolCallShapeProblem } from "./validate.ts";

/** What the server tells a client about when to use it. */
const INSTRUCTIONS =
  "llm-wiki is this project's long-term memory: Markdown pages written by earlier sessions. " +
  "Call wiki_recall with a question before answering anything about the project's design, " +
  "decisions, incidents or procedures; use wiki_search for an exact page id, title or tag. " +
  "A recalled page's full text is the resource llm-wiki://<project|personal>/<page id>. " +
  "When the user says a recalled page was relevant, irrelevant or wrong, record it with wiki_recall_feedback.";

export interface McpServerOptions {
  version: string;
  /** Waits for a startup index build before recall; default: no wait. */
  indexReady?: () => Promise<void>;
  /** Told of every tool call as it starts, so shutdown can wait for the cancelled ones to let go. */
  track?: (work: Promise<unknown>) => void;
  /**
   * Aborted when the client has left (its input ended) and the calls still
   * running must wrap up: each is cancelled, and one that has not answered
   * for itself within SETTLE_MS answers that it was cancelled, so no call
   * read goes unanswered. Unlike closing the server, it still lets the
   * answers out.
   */
  stopping?: AbortSignal;
}

/**
 * After `stopping`, how long a running call has to answer for itself (a
 * cancelled reindex or lint says what it kept) before the server answers
 * for it.
 */
const SETTLE_MS = 250;

/** A signal aborted when either of `a` or `b` is; `dispose` lets go of the listeners. */
function eitherAborted(
  a: AbortSignal,
  b: AbortSignal | undefined,
): { signal: AbortSignal; dispose(): void } {
  if (b === undefined) return { signal: a, dispose() {} };
  const both = new AbortController();
  const abort = () => both.abort();
  const dispose = () => {
    a.removeEventListener("abort", abort);
    b.removeEventListener("abort", abort);
  };
  if (a.aborted || b.aborted) both.abort();
  else {
    a.addEventListener("abort", abort, { once: true });
    b.addEventListener("abort", abort, { once: true });
  }
  return { signal: both.signal, dispose };
}

/** Resolves when `wait` settles or `signal` aborts, whichever comes first; the listener goes either way. */
function untilAborted(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    wait.then(done, done);
  });
}

const NO_WAIT: ToolContext = { indexReady: async () => {} };
/** Progress notifications are spaced at least this far apart (a 10k-page build reports per page). */
const PROGRESS_INTERVAL_MS = 250;

/**
 * Progress as MCP wants it: a value that grows with every notification. The
 * service's counters restart with each phase, so they go into the message.
 */
function progressReporter(
  send: (params: { progress: number; total?: number; message: string }) => Promise<void>,
): NonNullable<ToolContext["progress"]> {
  let sent = 0;
  let last = Number.NEGATIVE_INFINITY;
  return (event) => {
    const now = performance.now();
    if (now - last < PROGRESS_INTERVAL_MS && event.current !== event.total) return;
    last = now;
    sent += 1;
    send({
      progress: sent,
      message: `${event.phase} ${event.current}/${event.total} (${event.vault})`,
    }).catch(() => {});
  };
}

/** A tool of the table, or one of the working memory's (named outside the table's names). */
type ServedTool = Omit<McpTool, "name"> & { name: string };

function listing(tool: ServedTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    // Every tool schema is a TypeBox object schema, i.e. `{ type: "object", … }` JSON Schema.
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    annotations: tool.annotations,
  };
}

/**
 * The `_meta` key of a budgeted answer's machine-readable result (recall,
 * priming, search): clients that show `structuredContent` to the model in
 * place of the text do not show `_meta`.
 */
export const RESULT_META_KEY = "llm-wiki/result";

/**
 * Turns a tool's output into an MCP result; the diagnostics a reader needs
 * go into the text, as in Pi. No tool declares an `outputSchema`, so a
 * result is `structuredContent` only where a client may take it as it is.
 */
function toCallToolResult(output: ToolOutput, tool: Pick<ServedTool, "resultIn">): CallToolResult {
  if (output.budget !== undefined) {
    // A cut is a warning in the text and in the result alike (answer-fit.ts).
    const { text, cut } = budgetAnswer(output.ok, output.text, output.diagnostics, output.budget);
    const result = output.result as { diagnostics?: Diagnostic[] };
    return {
      content: [{ type: "text", text }],
      _meta: {
        [RESULT_META_KEY]: cut
          ? { ...output.result, diagnostics: [...(result.diagnostics ?? []), cut] }
          : { ...output.result },
      },
      ...(output.ok ? {} : { isError: true }),
    };
  }
  const text = renderAnswer(output.ok, output.text, output.diagnostics);
  if (tool.resultIn === "meta") {
    return {
      content: [{ type: "text", text }],
      _meta: { [RESULT_META_KEY]: { ...output.result } },
      ...(output.ok ? {} : { isError: true }),
    };
  }
  return {
    content: [{ type: "text", text }],
    structuredContent: { ...output.result },
    ...(output.ok ? {} : { isError: true }),
  };
}

/** The protocol error for arguments that do not fit the tool: one readable line, the problems as data. */
function invalidParams(error: InvalidArgumentsError): ProtocolError {
  const diagnostics = error.problems.map(
    (p): Diagnostic => diagnostic("invalid_argument", "error", `${p.field}: ${p.message}`),
  );
  return new ProtocolError(ErrorCode.InvalidParams, error.message, {
    tool: error.tool,
    problems: error.problems,
    diagnostics,
  });
}

/**
 * Runs one tool. Arguments that do not fit its schema are a protocol error
 * (-32602, nothing run); any other failure becomes an error result.
 */
export async function callTool(
  tool: ServedTool,
  service: WikiService,
  args: unknown,
  context: ToolContext = NO_WAIT,
): Promise<CallToolResult> {
  let output: ToolOutput;
  try {
    output = await tool.call(service, args, context);
  } catch (error) {
    if (error instanceof InvalidArgumentsError) throw invalidParams(error);
    const diagnostics: Diagnostic[] = [
      error instanceof WikiError
        ? error.diagnostic
        : diagnostic("operation_failed", "error", `${tool.name} failed: ${errorMessage(error)}`),
    ];
    output = { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics };
  }
  return toCallToolResult(output, tool);
}

/**
 * Checks a message before the SDK does: a `tools/call` whose params have the
 * wrong shape (arguments null, a string, an array…) would otherwise fail the
 * SDK's own parse and come back as an internal error with a raw schema dump.
 * Hand it to the transport as its `screen`.
 */
export function screenRequest(message: JSONRPCMessage): Refusal | undefined {
  if (!("method" in message) || !("id" in message)) return;
  if (message.method === "resources/read") return resourceReadShapeProblem(message);
  if (message.method !== "tools/call") return;
  const problem = toolCallShapeProblem(message.params);
  if (problem) return { code: ErrorCode.InvalidParams, message: problem };
  const parsed = CallToolRequestSchema.safeParse(message);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const where = issue?.path.map(String).join(".") || "params";
  return {
    code: ErrorCode.InvalidParams,
    message: `tools/call: "${where}" ${issue?.message ?? "is invalid"}`,
  };
}

/** A `resources/read` whose params are not `{ uri: string }`: one readable line instead of the SDK's schema dump. */
function resourceReadShapeProblem(message: JSONRPCMessage): Refusal | undefined {
  if (ReadResourceRequestSchema.safeParse(message).success) return;
  return {
    code: ErrorCode.InvalidParams,
    message: 'resources/read: "params" must be an object with the page\'s "uri" as a string',
  };
}

/** An error result of `tool` saying it was cancelled (`why`). */
function cancelled(tool: ServedTool, why: string): CallToolResult {
  const diagnostics = [diagnostic("operation_cancelled", "error", `${tool.name} ${why}`)];
  return toCallToolResult(
    { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics },
    tool,
  );
}

/** The result of a call cancelled before it started (the client left or cancelled it): nothing was done. */
function notStarted(tool: ServedTool): CallToolResult {
  return cancelled(tool, "was cancelled before it started");
}

/**
 * The call's own answer; or, when it has not come SETTLE_MS after
 * `stopping`, an error result saying it was cancelled while it ran (the
 * call goes on stopping meanwhile, watched by shutdown).
 */
function answerBy(
  work: Promise<CallToolResult>,
  tool: ServedTool,
  stopping: AbortSignal | undefined,
): Promise<CallToolResult> {
  if (stopping === undefined) return work;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = () => {
      timer = setTimeout(
        () =>
          resolve(
            cancelled(
              tool,
              "was cancelled while it ran: the client closed its input and the server is stopping; part or none of it may have been done",
            ),
          ),
        SETTLE_MS,
      );
    };
    const done = () => {
      stopping.removeEventListener("abort", giveUp);
      if (timer) clearTimeout(timer);
    };
    if (stopping.aborted) giveUp();
    else stopping.addEventListener("abort", giveUp, { once: true });
    work.then(
      (result) => {
        done();
        resolve(result);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** Runs an implicit feedback capture: a log that cannot be written loses the signal, never the answer. */
function captured(record: () => unknown): void {
  try {
    record();
  } catch {
    // Nothing to tell the client: implicit signals are best effort.
  }
}

/**
 * The SDK's server checks a client's answer to an elicitation against a JSON
 * Schema, and builds an Ajv instance for it by default (~10–30 ms of every
 * start, before the handshake is answered). This server sends no
 * elicitation, so it has no validator to build.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator() {
    throw new Error("llm-wiki-mcp sends no elicitation, so it validates no answer to one");
  },
};

/** Creates the server; connect it to a transport to serve. */
export function createMcpServer(service: WikiService, options: McpServerOptions): Server {
  // Working-memory tools only while the `trajectories` setting is on.
  const tools: readonly ServedTool[] = [...TOOLS, ...trajectoryTools(service.settings)];
  const byName = new Map<string, ServedTool>(tools.map((t) => [t.name, t]));
  const server = new Server(
    { name: "llm-wiki", version: options.version },
    {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  // One client connection is one session: what its recalls showed, which its judgments refer to.
  const feedback = service.feedbackSession();
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...PROMPTS] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const name = request.params.name;
    if (!hasPrompt(name)) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `unknown prompt "${name}"; prompts: ${PROMPTS.map((p) => p.name).join(", ")}`,
      );
    }
    // Cancelled by the client, or cut short when the client has left (its answer still goes out).
    const { signal, dispose } = eitherAborted(extra.signal, options.stopping);
    try {
      await untilAborted((options.indexReady ?? NO_WAIT.indexReady)(), signal);
      return await primePrompt(service, signal, (result) => {
        if (!extra.signal.aborted)
          // The prompt hands over the rendered block only: what it holds was shown.
          captured(() =>
            feedback.recordShown(renderedOnly(result), service.handles.models.embed.uri),
          );
      });
    } finally {
      dispose();
    }
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [PAGE_TEMPLATE],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    listPageResources(service, request.params?.cursor),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const read = readPageResource(service, request.params.uri);
    // Reading a page a recall showed is the `opened` signal (nothing for any other page).
    captured(() => feedback.recordOpened(read.kind, read.page.id));
    return {
      contents: [{ uri: request.params.uri, mimeType: "text/markdown", text: read.text }],
    };
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listing) }));
  const turns = createCallTurns();
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const name = request.params.name;
    const tool = byName.get(name);
    if (!tool) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `unknown tool "${name}"; tools: ${tools.map((t) => t.name).join(", ")}`,
      );
    }
    const token = request.params._meta?.progressToken;
    const indexReady = options.indexReady ?? NO_WAIT.indexReady;
    // Cancelled by the client or a closing server (no answer then), or wrapped up when the client has left.
    const { signal, dispose } = eitherAborted(extra.signal, options.stopping);
    const context: ToolContext = {
      // A cancelled call (or a closing server) stops waiting for the startup index at once.
      indexReady: () => untilAborted(indexReady(), signal),
      signal,
      feedback,
      ...(token !== undefined
        ? {
            progress: progressReporter((params) =>
              extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, ...params },
              }),
            ),
          }
        : {}),
    };
    const work = turns
      .next(signal)
      .then((start) =>
        start ? callTool(tool, service, request.params.arguments ?? {}, context) : notStarted(tool),
      );
    work.then(dispose, dispose);
    options.track?.(work);
    // Every call read is answered, even one that does not stop when told to.
    return answerBy(work, tool, options.stopping);
  });
  return server;
}
