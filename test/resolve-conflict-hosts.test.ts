/**
 * `wiki_resolve_conflict` in every host, each a real one: a Pi session driven
 * by Pi's faux model, the stdio MCP server as a child process spoken to by
 * the SDK's client, and `llm-wiki resolve-conflict` as a child process. Pi
 * and MCP take the same parameters (one schema) and give the same text and
 * structured result for the same calls on vaults of the same content; the
 * CLI exits 0 on a write and on its idempotent repeat, 1 with a one-line
 * diagnostic on a refusal, 2 on a usage error.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  ResolveConflictParams,
  TOOL_DESCRIPTIONS,
} from "../extensions/llm-wiki/lib/tool-schemas.ts";
import { runCli } from "./helpers/cli.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { startPi, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText } from "./helpers/temp-vault.ts";

/** A timestamp (`…T10:15:00.123Z`) or a day: each host writes on its own clock. */
const WHEN = /\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z)?/g;

const { clients, sessions } = isolatedHosts("llm-wiki-resolve-home-", closeServices);

/** Two claims with names of this run; every host gets a vault of the same content. */
function fixture() {
  const a = `concepts/${randomWord()}`;
  const b = `concepts/${randomWord()}-other`;
  const vaultId = `vault-${randomWord()}`;
  const titles = { a: randomWords(2), b: randomWords(2) };
  const make = () =>
    makeTempVault({
      config: { name: "resolve", vault_id: vaultId },
      pages: {
        [a]: pageText({ type: "concept", title: titles.a }, `# ${titles.a}\n\nOne claim.\n`),
        [b]: pageText({ type: "concept", title: titles.b }, `# ${titles.b}\n\nAnother claim.\n`),
      },
    }).root;
  return { a, b, make };
}

async function mcpClient(root: string): Promise<Client> {
  const home = makeTempDir("llm-wiki-resolve-mcp-home-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", root],
    env: { HOME: home, WIKI_HOME: home, XDG_CACHE_HOME: join(home, ".cache") },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-resolve-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function mcpCall(client: Client, args: Record<string, unknown>) {
  let result: CallToolResult;
  try {
    result = (await client.callTool({
      name: "wiki_resolve_conflict",
      arguments: args,
    })) as CallToolResult;
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
      return { isError: true, text: error.message, result: undefined, protocol: true };
    }
    throw error;
  }
  const [first] = result.content;
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? first.text : "",
    result: result.structuredContent,
    protocol: false,
  };
}

async function piCalls(root: string, calls: Array<Record<string, unknown>>) {
  const scratch = makeTempDir("llm-wiki-resolve-pi-");
  const agentDir = join(scratch, "agent");
  mkdirSync(agentDir);
  const pi = await startPi({ root: scratch, agentDir, project: root });
  sessions.push(pi);
  pi.script(
    ...calls.map((args) => [
      fauxToolCall("wiki_resolve_conflict", args as Parameters<typeof fauxToolCall>[1]),
    ]),
    "done",
  );
  await pi.session.prompt("the user chose");
  return toolResults(pi.session).map((r) => ({
    isError: r.isError,
    text: textOf(r),
    result: JSON.parse(JSON.stringify(r.details)) as unknown,
  }));
}

function undated(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(WHEN, "WHEN"));
}

describe("wiki_resolve_conflict in Pi and over MCP", () => {
  it("MCP lists it with the shared description and schema, as idempotent", async () => {
    const { make } = fixture();
    const client = await mcpClient(make());
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "wiki_resolve_conflict");
    expect(tool?.description).toBe(TOOL_DESCRIPTIONS.wiki_resolve_conflict);
    expect(tool?.inputSchema).toEqual(JSON.parse(JSON.stringify(ResolveConflictParams)));
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });

  it("answers the same calls with the same text and structured result in both hosts", async () => {
    const { a, b, make } = fixture();
    const base = { vault: "project", selected_page_id: a, other_page_id: b };
    const calls: Array<Record<string, unknown>> = [
      { ...base, relation: "supersedes", rationale: `${randomWords(4)}` },
      // The same decision again: nothing written.
      { ...base, relation: "supersedes" },
      // A changed choice without replaces, then refusals of the input's own.
      { ...base, relation: "qualifies" },
      { ...base, relation: "applies_under" },
      { ...base, other_page_id: a, relation: "qualifies" },
      { ...base, other_page_id: `../${randomWord()}`, relation: "qualifies" },
      { ...base, other_page_id: `concepts/${randomWord()}-missing`, relation: "qualifies" },
    ];
    // Both vaults indexed before the hosts start, so each host updates an index alike.
    const indexed = async () => {
      const root = make();
      expect((await serviceFor(root).reindex({ scope: "all" })).ok).toBe(true);
      return root;
    };
    const viaPi = await piCalls(await indexed(), calls);
    const client = await mcpClient(await indexed());
    const viaMcp = [];
    for (const args of calls) viaMcp.push(await mcpCall(client, args));

    expect(viaPi).toHaveLength(calls.length);
    const codes = viaPi.map(
      (r) => (r.result as { diagnostics: Array<{ code: string }> }).diagnostics[0]?.code,
    );
    expect(codes).toEqual([
      undefined,
      "page_exists",
      "resolution_exists",
      "resolution_scope_required",
      "resolution_same_page",
      "invalid_input",
      "resolution_page_missing",
    ]);
    expect(viaPi.map((r) => r.isError)).toEqual([false, false, true, true, true, true, true]);
    expect(viaPi[0]?.result).toMatchObject({
      ok: true,
      created: true,
      vault: "project",
      indexed: true,
    });
    expect(viaPi[1]?.result).toMatchObject({
      ok: true,
      created: false,
      id: (viaPi[0]?.result as { id?: string } | undefined)?.id,
    });
    // The same vault content and the same decision: the same id in both hosts.
    for (const [i, pi] of viaPi.entries()) {
      const mcp = viaMcp[i];
      expect(mcp?.isError, `call ${i}`).toBe(pi.isError);
      expect(undated(mcp?.result), `call ${i}`).toEqual(undated(pi.result));
      expect(undated(mcp?.text), `call ${i}`).toBe(undated(pi.text));
    }
  });

  it("refuses arguments outside the shared schema before anything runs, in both hosts", async () => {
    const { a, b, make } = fixture();
    const bad: Array<Record<string, unknown>> = [
      { selected_page_id: a, other_page_id: b, relation: "supersedes" },
      { vault: "project", selected_page_id: a, other_page_id: b, relation: "overrides" },
      {
        vault: "project",
        selected_page_id: `concepts/${"x".repeat(301 + Math.floor(Math.random() * 4_000))}`,
        other_page_id: b,
        relation: "supersedes",
      },
    ];
    const root = make();
    const client = await mcpClient(root);
    for (const args of bad) {
      const out = await mcpCall(client, args);
      expect(out).toMatchObject({ isError: true, protocol: true });
    }
    const viaPi = await piCalls(make(), bad);
    expect(viaPi.map((r) => r.isError)).toEqual([true, true, true]);
    expect(readdirSync(join(root, ".llm-wiki", "wiki"))).toEqual(["concepts"]);
  });
});

describe("llm-wiki resolve-conflict", () => {
  function cli(args: string[], input?: string) {
    const home = makeTempDir("llm-wiki-resolve-cli-home-");
    return runCli(args, { env: { HOME: home, WIKI_HOME: home }, ...(input ? { input } : {}) });
  }

  it("exits 0 on a write and on its repeat, 1 on a refusal (one line), 2 on a usage error", () => {
    const { a, b, make } = fixture();
    const root = make();
    const args = ["resolve-conflict", "--vault", root, "--selected", a, "--other", b];
    const rationale = randomWords(5);
    const first = cli(
      [...args, "--relation", "applies_under", "--scope", "CI only", "--rationale", "-", "--json"],
      rationale,
    );
    expect(first.status, first.stderr).toBe(0);
    const written = JSON.parse(first.stdout) as {
      id: string;
      created: boolean;
      resolution: object;
    };
    expect(written).toMatchObject({
      ok: true,
      created: true,
      resolution: { selected: a, other: b, relation: "applies_under", scope: "CI only" },
    });

    const again = cli([...args, "--relation", "applies_under", "--scope", "ci   ONLY"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`already recorded and in force: ${written.id}`);

    const changed = cli([...args, "--relation", "supersedes"]);
    expect(changed.status).toBe(1);
    expect(changed.stdout).toBe("");
    const lines = changed.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: .*already have an active resolution/);
    expect(lines[0]).toContain(`--replaces ${written.id.slice("analyses/".length)}`);

    const replaced = cli([
      ...args,
      "--relation",
      "supersedes",
      "--replaces",
      written.id.slice("analyses/".length),
      "--json",
    ]);
    expect(replaced.status, replaced.stderr).toBe(0);
    expect(JSON.parse(replaced.stdout)).toMatchObject({
      created: true,
      resolution: { replaces: written.id.slice("analyses/".length) },
    });

    const hostile = cli([
      ...args.slice(0, 5),
      "--other",
      `../${randomWord()}`,
      "--relation",
      "qualifies",
    ]);
    expect(hostile.status).toBe(1);
    expect(hostile.stderr.trimEnd().split("\n")).toEqual([
      "error: other_page_id: must be a page id under wiki/ (e.g. concepts/rag), without . or .. parts",
    ]);

    const usage = cli([...args, "--relation", "overrides"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain(
      "--relation must be one of supersedes, qualifies, applies_under",
    );
    expect(
      cli(["resolve-conflict", "--vault", root, "--selected", a, "--relation", "qualifies"]).status,
    ).toBe(2);

    const help = cli(["--help"]);
    expect(help.stdout).toContain("resolve-conflict --selected ID --other ID --relation");
  });
});
