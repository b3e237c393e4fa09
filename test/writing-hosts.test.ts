/**
 * The writing tools give the same answer in every host that has them: a real
 * Pi session (faux model) and the real stdio MCP server (a child process),
 * each on its own temporary vault with the same content. The command line
 * has no writing commands, so it is not part of this comparison.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  IngestParams,
  LogEventParams,
  ObserveParams,
  RetroParams,
  TOOL_DESCRIPTIONS,
} from "../extensions/llm-wiki/lib/tool-schemas.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { startPi, textOf, toolResults } from "./helpers/pi-session.ts";
import { makeTempDir, makeTempVault, pageText } from "./helpers/temp-vault.ts";

/** A day, or a timestamp (`…T10:15:00.123Z`, or `…T10-15-00-123Z` in a backup folder name). */
const WHEN = /\d{4}-\d{2}-\d{2}(?:T[\d:.-]+Z)?/g;

const OBSERVATION = {
  title: "写入需要锁",
  content: "Two writers raced on meta/qmd; the index lock fixed it.",
  tags: ["index"],
};
const SOURCE_TEXT = "# Backpressure\n\nA bounded queue protects slow consumers.\n";
const TOOLS = ["wiki_observe", "wiki_retro", "wiki_log_event", "wiki_ingest"] as const;

/** A tool name and its arguments. */
type Call = [string, Parameters<typeof fauxToolCall>[1]];

const { clients, sessions } = isolatedHosts("llm-wiki-hosts-home-");

/** A project with a vault holding one hand-made skeleton source. */
function project(): string {
  const vault = makeTempVault();
  const packet = join(vault.paths.raw, "sources", "SRC-2026-11-30-001");
  mkdirSync(packet, { recursive: true });
  writeFileSync(join(packet, "source.md"), SOURCE_TEXT);
  vault.writePage(
    "sources/backpressure",
    pageText(
      {
        type: "source",
        title: "Backpressure",
        status: "skeleton",
        raw_path: "raw/sources/SRC-2026-11-30-001",
      },
      "# Backpressure\n\n## Summary\n\n_Skeleton._\n",
    ),
  );
  return vault.root;
}

async function mcpClient(root: string): Promise<Client> {
  const home = makeTempDir("llm-wiki-hosts-mcp-home-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", root],
    env: { HOME: home, WIKI_HOME: home, XDG_CACHE_HOME: join(home, ".cache") },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-hosts-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/**
 * One MCP tool call as a result; arguments the schema refuses come back as
 * the protocol's invalid-params error (-32602), read here as an error result.
 */
async function mcpCall(client: Client, name: string, args: Record<string, unknown>) {
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
      return { isError: true, text: error.message, result: undefined };
    }
    throw error;
  }
  const [first] = result.content;
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? first.text : "",
    result: result.structuredContent,
  };
}

/** Runs each call as one Pi tool call of one prompt; returns each tool's text, error flag and details. */
async function piCalls(root: string, calls: Call[]) {
  const scratch = makeTempDir("llm-wiki-hosts-pi-");
  const agentDir = join(scratch, "agent");
  mkdirSync(agentDir);
  const pi = await startPi({ root: scratch, agentDir, project: root });
  sessions.push(pi);
  pi.script(...calls.map(([name, args]) => [fauxToolCall(name, args)]), "done");
  await pi.session.prompt("write to the wiki");
  return toolResults(pi.session).map((r) => ({
    isError: r.isError,
    text: textOf(r),
    result: JSON.parse(JSON.stringify(r.details)) as unknown,
  }));
}

/**
 * The same answer with the time of writing taken out (each host writes on
 * its own clock), and the agent each host records its writes as (`pi`, the
 * MCP client's name) made one.
 */
function undated(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(WHEN, "WHEN")
      .replace(/"agent":"[a-z0-9._-]+"/g, '"agent":"AGENT"')
      .replace(/ \(([a-z0-9._-]+)\)(\\n|")/g, " (AGENT)$2"),
  );
}

describe("writing tools across hosts", () => {
  it("MCP lists the four writing tools with the shared descriptions and schemas", async () => {
    const client = await mcpClient(project());
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const schemas = {
      wiki_observe: ObserveParams,
      wiki_retro: RetroParams,
      wiki_log_event: LogEventParams,
      wiki_ingest: IngestParams,
    };
    for (const name of TOOLS) {
      expect(byName.get(name)?.description).toBe(TOOL_DESCRIPTIONS[name]);
      expect(byName.get(name)?.inputSchema).toEqual(JSON.parse(JSON.stringify(schemas[name])));
    }
    expect(byName.get("wiki_observe")?.annotations).toMatchObject({ idempotentHint: false });
  });

  it('MCP has no model of its own: wiki_ingest mode "subagent" is refused, naming the hand-off', async () => {
    const root = project();
    const client = await mcpClient(root);
    const refused = await mcpCall(client, "wiki_ingest", { mode: "subagent" });
    expect(refused.isError).toBe(true);
    expect(refused.result).toMatchObject({
      ok: false,
      diagnostics: [{ code: "ingest_no_model", repair: expect.stringContaining('"handoff"') }],
    });
    const handedOff = await mcpCall(client, "wiki_ingest", { mode: "handoff" });
    expect(handedOff.text).toContain("A bounded queue protects slow consumers.");
  });

  it("wiki_observe, wiki_log_event and wiki_ingest answer the same in Pi and over MCP", async () => {
    const calls: Call[] = [
      ["wiki_observe", OBSERVATION],
      ["wiki_observe", OBSERVATION],
      ["wiki_log_event", { kind: "query_answered", detail: { question: "why a lock?" } }],
      ["wiki_log_event", { kind: "Bad-Kind" }],
      // Pi would run its sub-agent pass by default; the hand-off is what both hosts share.
      ["wiki_ingest", { mode: "handoff" }],
      ["wiki_ingest", { source: "SRC-2026-11-30-001", mark_ingested: true }],
    ];
    const viaPi = await piCalls(project(), calls);
    const client = await mcpClient(project());
    const viaMcp = [];
    for (const [name, args] of calls) viaMcp.push(await mcpCall(client, name, args));

    expect(viaPi).toHaveLength(calls.length);
    const [observed, again] = viaPi;
    expect(observed).toMatchObject({
      isError: false,
      result: {
        ok: true,
        created: true,
        id: expect.stringMatching(/^sources\/obs-\d{4}-\d{2}-\d{2}-写入需要锁$/),
      },
    });
    expect(again?.result).toMatchObject({
      ok: true,
      created: false,
      id: (observed?.result as { id?: string } | undefined)?.id,
    });
    // The malformed kind is refused by the shared schema before the tool runs, in both hosts.
    expect(viaPi[3]?.isError).toBe(true);
    expect(viaMcp[3]?.isError).toBe(true);
    expect(viaMcp[3]?.text).toContain("kind");
    // Every call that ran answers identically: same result object, same text.
    for (const i of [0, 1, 2, 4, 5]) {
      const pi = viaPi[i];
      const mcp = viaMcp[i];
      expect(mcp?.isError, `call ${i}`).toBe(pi?.isError);
      expect(undated(mcp?.result), `call ${i}`).toEqual(undated(pi?.result));
      expect(undated(mcp?.text), `call ${i}`).toBe(undated(pi?.text));
    }
    expect(viaPi[4]?.text).toContain('<source-text source="SRC-2026-11-30-001" part="1" of="1">');
    expect(viaPi[4]?.text).toContain("A bounded queue protects slow consumers.");
    expect(viaPi[5]?.result).toMatchObject({ ok: true, marked: { changed: true } });
  });

  it("wiki_recent and wiki_verify_page answer the same in Pi and over MCP", async () => {
    const calls: Call[] = [
      ["wiki_observe", OBSERVATION],
      ["wiki_recent", {}],
      ["wiki_verify_page", { page: "sources/backpressure", date: "2026-11-30" }],
      ["wiki_verify_page", { page: "sources/backpressure", date: "2026-11-30" }],
      ["wiki_verify_page", { page: "concepts/not-a-page" }],
    ];
    const viaPi = await piCalls(project(), calls);
    const client = await mcpClient(project());
    const viaMcp = [];
    for (const [name, args] of calls) viaMcp.push(await mcpCall(client, name, args));
    expect(viaPi).toHaveLength(calls.length);
    // The observation just written is the newest change listed.
    expect(viaPi[1]?.text).toContain("obs-");
    expect(viaPi[2]?.result).toMatchObject({ ok: true, changed: true, verified: "2026-11-30" });
    // The same date again writes nothing.
    expect(viaPi[3]?.result).toMatchObject({ ok: true, changed: false });
    expect(viaPi[4]?.isError).toBe(true);
    expect(viaMcp.map((r) => undated(r))).toEqual(viaPi.map((r) => undated(r)));
  });
});
