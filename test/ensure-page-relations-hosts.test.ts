/**
 * `wiki_ensure_page` with relations and sources in every host, each a real
 * one: a Pi session driven by Pi's faux model, the stdio MCP server as a
 * child process, and `llm-wiki page --relation … --source …` as a child
 * process. The same calls on vaults of the same content give the same
 * structured results and leave the same page files.
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { startPi, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText } from "./helpers/temp-vault.ts";

const WHEN = /\d{4}-\d{2}-\d{2}(?:T[\d:.-]+Z)?/g;

interface Call {
  type: string;
  title: string;
  content?: string;
  relations?: Array<{ type: string; target: string; scope?: string }>;
  sources?: string[];
}

const { clients, sessions } = isolatedHosts("llm-wiki-relations-hosts-home-");

/** The calls of one run, with names of this run, and a maker of vaults of the same content. */
function fixture() {
  const old = `decisions/${randomWord()}`;
  const oldTitle = randomWords(2, 4, 9);
  const make = () =>
    makeTempVault({
      config: { name: "relations" },
      pages: { [old]: pageText({ type: "decision", title: oldTitle }, "The old rule.\n") },
    }).root;
  const alpha = `Alpha ${randomWords(2, 4, 9)}`;
  const alphaId = `concepts/${alpha.toLowerCase().replace(/ /g, "-")}`;
  const missing = `concepts/${randomWord()}`;
  const calls: Call[] = [
    { type: "concept", title: alpha, content: "The new rule.\n" },
    {
      type: "concept",
      title: `Beta ${randomWords(2, 4, 9)}`,
      content: `Disagrees with [[${alphaId}]].\n`,
      relations: [
        { type: "contradicts", target: alphaId },
        { type: "supersedes", target: old },
      ],
      sources: ["SRC-2026-11-30-001"],
    },
    // Added to the page that exists: its front matter, and a link line for the target.
    {
      type: "concept",
      title: alpha.toUpperCase(),
      relations: [{ type: "supports", target: missing }],
      sources: ["SRC-2026-11-30-002"],
    },
    { type: "concept", title: alpha, relations: [{ type: "supports", target: missing }] },
    { type: "concept", title: alpha, relations: [{ type: randomWord(), target: old }] },
    { type: "concept", title: randomWords(2), relations: [{ type: "applies_under", target: old }] },
  ];
  return { make, calls };
}

async function viaMcp(root: string, calls: Call[]) {
  const home = makeTempDir("llm-wiki-relations-mcp-home-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", root],
    env: { HOME: home, WIKI_HOME: home, XDG_CACHE_HOME: join(home, ".cache") },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-relations-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  const out: unknown[] = [];
  for (const args of calls) {
    const result = (await client.callTool({
      name: "wiki_ensure_page",
      arguments: { ...args },
    })) as CallToolResult;
    out.push(result.structuredContent);
  }
  return out;
}

async function viaPi(root: string, calls: Call[]) {
  const scratch = makeTempDir("llm-wiki-relations-pi-");
  const agentDir = join(scratch, "agent");
  mkdirSync(agentDir);
  const pi = await startPi({ root: scratch, agentDir, project: root });
  sessions.push(pi);
  pi.script(...calls.map((args) => [fauxToolCall("wiki_ensure_page", { ...args })]), "done");
  await pi.session.prompt("write to the wiki");
  return toolResults(pi.session).map((r) => JSON.parse(JSON.stringify(r.details)) as unknown);
}

function viaCli(root: string, calls: Call[]) {
  const home = makeTempDir("llm-wiki-relations-cli-home-");
  return calls.map((call) => {
    const args = ["page", "--vault", root, "--json", "--type", call.type, "--title", call.title];
    if (call.content !== undefined) args.push("--content", call.content);
    for (const r of call.relations ?? []) {
      args.push("--relation", `${r.type}:${r.target}${r.scope !== undefined ? `:${r.scope}` : ""}`);
    }
    for (const s of call.sources ?? []) args.push("--source", s);
    const run = runCli(args, { cwd: root, env: { HOME: home, WIKI_HOME: home } });
    expect([0, 1]).toContain(run.status);
    return JSON.parse(run.stdout) as unknown;
  });
}

/**
 * Every page file of a vault, path → text, the day of writing and the
 * writing agent taken out: each host records its own (`agents`).
 */
function pages(root: string): Record<string, string> {
  const wiki = join(root, ".llm-wiki", "wiki");
  const out: Record<string, string> = {};
  for (const entry of readdirSync(wiki, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
    const abs = join(entry.parentPath, entry.name);
    out[abs.slice(wiki.length + 1)] = readFileSync(abs, "utf8")
      .replace(WHEN, "WHEN")
      .replace(/^agent: .*$/gm, "agent: AGENT");
  }
  return out;
}

/** The agents a vault's pages name (who wrote them: `pi`, `cli`, an MCP client's name). */
function agents(root: string): Set<string> {
  const wiki = join(root, ".llm-wiki", "wiki");
  const out = new Set<string>();
  for (const entry of readdirSync(wiki, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
    for (const m of text.matchAll(/^agent: (.*)$/gm)) out.add(m[1] ?? "");
  }
  return out;
}

const undated = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value).replace(WHEN, "WHEN"));

describe("wiki_ensure_page relations and sources across hosts", () => {
  it("Pi, MCP and the CLI accept them, answer alike and write the same pages", async () => {
    const { make, calls } = fixture();
    const roots = { pi: make(), mcp: make(), cli: make() };
    const pi = await viaPi(roots.pi, calls);
    const mcp = await viaMcp(roots.mcp, calls);
    const cli = viaCli(roots.cli, calls);

    expect(pi).toHaveLength(calls.length);
    expect(undated(mcp)).toEqual(undated(pi));
    expect(undated(cli)).toEqual(undated(pi));
    expect(pages(roots.mcp)).toEqual(pages(roots.pi));
    expect(pages(roots.cli)).toEqual(pages(roots.pi));
    // Each host says who wrote its pages.
    expect(agents(roots.pi)).toEqual(new Set(["pi"]));
    expect(agents(roots.cli)).toEqual(new Set(["cli"]));
    expect([...agents(roots.mcp)]).not.toContain("pi");

    const [created, related, added, again, unknownType, noScope] = pi as Array<
      Record<string, unknown>
    >;
    expect(created).toMatchObject({ ok: true, created: true });
    expect(related).toMatchObject({
      ok: true,
      created: true,
      relations: { added: calls[1]?.relations, present: [] },
      sources: { added: ["SRC-2026-11-30-001"], present: [] },
    });
    expect(added).toMatchObject({
      ok: true,
      created: false,
      updated: true,
      id: created?.id,
      relations: { added: calls[2]?.relations, present: [] },
      diagnostics: expect.arrayContaining([
        expect.objectContaining({ code: "link_unresolved", severity: "warning" }),
      ]),
    });
    expect(again).toMatchObject({
      updated: false,
      relations: { added: [], present: calls[3]?.relations },
    });
    for (const refused of [unknownType, noScope]) {
      expect(refused).toMatchObject({
        ok: false,
        diagnostics: [
          expect.objectContaining({ code: "page_invalid_relation", severity: "error" }),
        ],
      });
    }
    // Two pages written, one extended; the refused calls wrote nothing.
    expect(Object.keys(pages(roots.pi))).toHaveLength(3);
  });
});
