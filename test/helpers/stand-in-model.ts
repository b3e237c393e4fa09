/**
 * A stand-in model endpoint on loopback: just enough of the Anthropic
 * Messages API (Claude Code), the OpenAI Responses API (Codex) and the
 * Gemini API (Gemini CLI) for a one-task session, streaming the way each
 * client reads it (SSE). Every request is recorded with its body, so a test
 * can assert what reached the model: the system prompt, the user's turn
 * with what hooks added, and the tools offered.
 *
 * The script is stateless per request: a request that offers a tool named
 * `…<toolSuffix>` and holds no tool result yet gets one call to it; any
 * other request gets the text answer. Side requests (titles, routing) thus
 * get text and never a tool call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Which API a request spoke, by its path. */
export type StandInApi = "anthropic" | "openai-responses" | "gemini" | "other";

/** One request as the stand-in received it. */
export interface StandInRequest {
  api: StandInApi;
  method: string;
  path: string;
  /** The parsed JSON body (`undefined` when the body was not JSON). */
  body: unknown;
  /** The raw body text: what a test searches for what reached the model. */
  text: string;
  /** The answer given: a call of this tool name, or text. */
  answered: { tool: string } | { text: string } | { status: number };
}

export interface StandInOptions {
  /** The text of the final answer. */
  answer: string;
  /** A tool whose name ends with this is called once (e.g. `wiki_recall`). */
  toolSuffix?: string;
  /** The arguments of that call. */
  toolArguments?: Record<string, unknown>;
}

export interface StandIn {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function apiOf(path: string): StandInApi {
  if (/\/messages(\?|$)/.test(path) || path.includes("/messages/count_tokens")) return "anthropic";
  if (/\/responses(\?|$)/.test(path)) return "openai-responses";
  if (/\/models\/[^/:]+:(stream)?[Gg]enerateContent|:countTokens/.test(path)) return "gemini";
  return "other";
}

/** The names of the tools a request offers, in each API's shape (namespaces flattened). */
export function offeredTools(api: StandInApi, body: unknown): string[] {
  if (!isObject(body)) return [];
  const names: string[] = [];
  const visit = (tool: unknown, prefix = ""): void => {
    if (!isObject(tool)) return;
    if (api === "gemini") {
      for (const d of array(tool.functionDeclarations))
        if (isObject(d) && typeof d.name === "string") names.push(d.name);
      return;
    }
    if (Array.isArray(tool.tools)) {
      // A namespace (Codex's MCP servers): its tools as `<namespace>__<tool>`.
      const ns = typeof tool.name === "string" ? `${tool.name}__` : "";
      for (const t of tool.tools) visit(t, prefix + ns);
      return;
    }
    const fn = isObject(tool.function) ? tool.function : tool;
    if (typeof fn.name === "string") names.push(prefix + fn.name);
  };
  for (const tool of array(body.tools)) visit(tool);
  return names;
}

/** Every string in a JSON value (the text a model would read, unescaped). */
export function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (isObject(value)) return Object.values(value).flatMap(stringsOf);
  return [];
}

/** What the stand-in answers a request with. */
type Turn = { call: string; args: Record<string, unknown>; id: string } | { text: string };

const CALL_ID = "standin_call_1";
const SEARCH_ID = "standin_search_1";

/**
 * The answer to one request: the wanted tool's call until the conversation
 * holds its result, then the text. Claude Code offers MCP tools deferred
 * (named in the prompt, loaded through its ToolSearch tool): then the
 * stand-in first asks ToolSearch for the tool, as a model would.
 */
function turnFor(api: StandInApi, body: unknown, text: string, options: StandInOptions): Turn {
  const suffix = options.toolSuffix;
  const answer = { text: options.answer };
  if (!suffix || !isObject(body)) return answer;
  const answered =
    api === "gemini" ? text.includes('"functionResponse"') : text.includes(`"${CALL_ID}"`);
  if (answered) return answer;
  const offered = offeredTools(api, body);
  const name = offered.find((n) => n.endsWith(suffix));
  if (name) return { call: name, args: options.toolArguments ?? {}, id: CALL_ID };
  const deferred = new RegExp(`\\b(mcp__[\\w-]+__${suffix})\\b`).exec(
    stringsOf(body).join("\n"),
  )?.[1];
  if (
    api === "anthropic" &&
    deferred &&
    offered.includes("ToolSearch") &&
    !text.includes(SEARCH_ID)
  )
    return {
      call: "ToolSearch",
      args: { query: `select:${deferred}`, max_results: 5 },
      id: SEARCH_ID,
    };
  return answer;
}

/** A value of a JSON schema with every required field filled (what a JSON-mode request asks). */
function exampleOf(schema: unknown): unknown {
  if (!isObject(schema)) return {};
  const type = String(schema.type ?? "object").toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (type === "string") return "stand-in";
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return false;
  if (type === "array") return [];
  const out: Json = {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const key of array(schema.required))
    if (typeof key === "string") out[key] = exampleOf(properties[key]);
  return out;
}

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const e of events)
    res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function json(res: ServerResponse, status: number, data: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(data));
}

/** A flattened `<namespace>__<tool>` name split back into the call's `namespace` and `name`. */
function splitNamespace(body: unknown, full: string): { namespace?: string; name: string } {
  for (const tool of array(isObject(body) ? body.tools : undefined)) {
    if (!isObject(tool) || !Array.isArray(tool.tools) || typeof tool.name !== "string") continue;
    const prefix = `${tool.name}__`;
    if (full.startsWith(prefix)) return { namespace: tool.name, name: full.slice(prefix.length) };
  }
  return { name: full };
}

function anthropic(res: ServerResponse, body: Json, turn: Turn) {
  const model = typeof body.model === "string" ? body.model : "stand-in";
  const block =
    "call" in turn
      ? { type: "tool_use", id: turn.id, name: turn.call, input: turn.args }
      : { type: "text", text: turn.text };
  const stop = "call" in turn ? "tool_use" : "end_turn";
  const usage = { input_tokens: 10, output_tokens: 5 };
  const message = { id: "msg_standin", type: "message", role: "assistant", model };
  if (body.stream !== true) {
    json(res, 200, { ...message, content: [block], stop_reason: stop, stop_sequence: null, usage });
    return;
  }
  const events = [
    {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: "call" in turn ? { ...block, input: {} } : { type: "text", text: "" },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta:
        "call" in turn
          ? { type: "input_json_delta", partial_json: JSON.stringify(turn.args) }
          : { type: "text_delta", text: turn.text },
    },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage },
    { type: "message_stop" },
  ];
  sse(
    res,
    events.map((data) => ({ event: data.type, data })),
  );
}

function openaiResponses(res: ServerResponse, body: Json, turn: Turn) {
  const item =
    "call" in turn
      ? {
          type: "function_call",
          id: "fc_standin",
          call_id: turn.id,
          ...splitNamespace(body, turn.call),
          arguments: JSON.stringify(turn.args),
          status: "completed",
        }
      : {
          type: "message",
          id: "msg_standin",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: turn.text, annotations: [] }],
        };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const response = {
    id: "resp_standin",
    object: "response",
    status: "completed",
    model: body.model,
    output: [item],
    usage,
  };
  const events: Json[] = [
    { type: "response.created", response: { ...response, status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress" },
    },
  ];
  if ("text" in turn)
    events.push({
      type: "response.output_text.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: turn.text,
    });
  events.push(
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response },
  );
  sse(
    res,
    events.map((data) => ({ event: String(data.type), data })),
  );
}

function gemini(res: ServerResponse, path: string, body: Json, turn: Turn) {
  // A JSON-mode request (Gemini CLI's model router) gets its schema's fields.
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  const part =
    "call" in turn
      ? { functionCall: { name: turn.call, args: turn.args } }
      : { text: schema ? JSON.stringify(exampleOf(schema)) : turn.text };
  const answer = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  };
  if (path.includes(":streamGenerateContent")) sse(res, [{ data: answer }]);
  else json(res, 200, answer);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the stand-in on a free loopback port; nothing else is ever contacted. */
export async function startStandIn(options: StandInOptions): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const path = req.url ?? "/";
      const api = apiOf(path);
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const record = (answered: StandInRequest["answered"]) =>
        requests.push({ api, method: req.method ?? "", path, body, text, answered });
      if (req.method !== "POST" || !isObject(body) || api === "other") {
        record({ status: 404 });
        json(res, 404, { error: { message: `stand-in: nothing at ${req.method} ${path}` } });
        return;
      }
      if (/count_?[Tt]okens/.test(path)) {
        record({ status: 200 });
        json(res, 200, { input_tokens: 10, totalTokens: 10 });
        return;
      }
      const turn = turnFor(api, body, text, options);
      record("call" in turn ? { tool: turn.call } : { text: turn.text });
      if (api === "anthropic") anthropic(res, body, turn);
      else if (api === "openai-responses") openaiResponses(res, body, turn);
      else gemini(res, path, body, turn);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The tools a request puts before the model: those it offers, and those it
 * names as deferred (Claude Code lists MCP tools by name and loads their
 * schemas on demand through ToolSearch).
 */
export function toolsBeforeModel(request: StandInRequest): string[] {
  const deferred = stringsOf(request.body).flatMap((s) => s.match(/\bmcp__[\w-]+__\w+/g) ?? []);
  return [...new Set([...offeredTools(request.api, request.body), ...deferred])];
}
