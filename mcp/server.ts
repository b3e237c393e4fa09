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
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type Diagnostic,
  diagnostic,
  errorMessage,
  WikiError,
} from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderAnswer } from "../extensions/llm-wiki/lib/render-text.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type McpTool, TOOLS, type ToolContext, type ToolOutput } from "./tools.ts";

/** What the server tells a client about when to use it. */
const INSTRUCTIONS =
  "llm-wiki is this project's long-term memory: Markdown pages written by earlier sessions. " +
  "Call wiki_recall with a question before answering anything about the project's design, " +
  "decisions, incidents or procedures; use wiki_search for an exact page id, title or tag.";

export interface McpServerOptions {
  version: string;
  /** Waits for a startup index build before recall; default: no wait. */
  indexReady?: () => Promise<void>;
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

function listing(tool: McpTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    // Every tool schema is a TypeBox object schema, i.e. `{ type: "object", … }` JSON Schema.
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    annotations: tool.annotations,
  };
}

/** Turns a tool's output into an MCP result; the diagnostics a reader needs go into the text, as in Pi. */
function toCallToolResult(output: ToolOutput): CallToolResult {
  return {
    content: [{ type: "text", text: renderAnswer(output.ok, output.text, output.diagnostics) }],
    structuredContent: { ...output.result },
    ...(output.ok ? {} : { isError: true }),
  };
}

/** Runs one tool; an unexpected failure becomes an error result, never a protocol error. */
export async function callTool(
  tool: McpTool,
  service: WikiService,
  args: unknown,
  context: ToolContext = NO_WAIT,
): Promise<CallToolResult> {
  let output: ToolOutput;
  try {
    output = await tool.call(service, args, context);
  } catch (error) {
    const diagnostics: Diagnostic[] = [
      error instanceof WikiError
        ? error.diagnostic
        : diagnostic("operation_failed", "error", `${tool.name} failed: ${errorMessage(error)}`),
    ];
    output = { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics };
  }
  return toCallToolResult(output);
}

/** Creates the server; connect it to a transport to serve. */
export function createMcpServer(service: WikiService, options: McpServerOptions): Server {
  const byName = new Map<string, McpTool>(TOOLS.map((t) => [t.name, t]));
  const server = new Server(
    { name: "llm-wiki", version: options.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map(listing) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const name = request.params.name;
    const tool = byName.get(name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool "${name}"; tools: ${TOOLS.map((t) => t.name).join(", ")}`,
      );
    }
    const token = request.params._meta?.progressToken;
    const context: ToolContext = {
      indexReady: options.indexReady ?? NO_WAIT.indexReady,
      signal: extra.signal,
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
    return callTool(tool, service, request.params.arguments ?? {}, context);
  });
  return server;
}
