/**
 * Spec: in every real host the generated views follow writes, and a second
 * capture of the same content is the first one. The CLI as a child process
 * (the views are current when the command has exited), the stdio MCP server
 * as a child process and a Pi session on Pi's faux model (the views are
 * current a debounce after the writes: polled, never timed). In each, the
 * same text captured twice gives one packet and the same id, the second
 * answer saying `deduplicated`; the catalog is then what a full rebuild
 * writes (a rebuild finds it unchanged).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { CaptureSourceResult } from "../extensions/llm-wiki/lib/capture/capture-types.ts";
import type { RebuildMetaResult } from "../extensions/llm-wiki/lib/views/rebuild-meta.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { startPi, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault } from "./helpers/temp-vault.ts";

const { clients, sessions } = isolatedHosts("llm-wiki-follow-home-");

/** An OKF vault with one page; its root. */
function project(): string {
  const vault = makeTempVault({
    config: { name: "follow", knowledge_format: "okf" },
    pages: {
      "concepts/seed": `---\n${JSON.stringify({ type: "concept", title: "Seed" })}\n---\nSeed.\n`,
    },
  });
  return vault.root;
}

function view(root: string, rel: string): string {
  const path = join(root, ".llm-wiki", rel);
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

function packets(root: string): string[] {
  const dir = join(root, ".llm-wiki", "raw", "sources");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Resolves once `pred` holds; a hang guard only, never a timing assertion. */
async function until(pred: () => boolean, guardMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > guardMs) throw new Error("condition never held");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A full rebuild (through the CLI) finds the followed views as generated. */
function rebuildFindsCurrent(root: string): void {
  const run = runCli(["rebuild-meta", "--json", "--vault", root], { cwd: root, env: childEnv() });
  expect(run.status, run.stderr).toBe(0);
  const report = (JSON.parse(run.stdout) as RebuildMetaResult).vaults[0];
  expect(report?.written.filter((p) => p !== "meta/lint-report.md")).toEqual([]);
}

function checkCaptures(root: string, first: CaptureSourceResult, second: CaptureSourceResult) {
  expect(first.ok).toBe(true);
  expect(first.deduplicated).toBeUndefined();
  expect(second).toMatchObject({ ok: true, id: first.id, deduplicated: true });
  expect(packets(root)).toEqual([first.id]);
}

async function mcpClient(root: string): Promise<Client> {
  const home = makeTempDir("llm-wiki-follow-mcp-home-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", root],
    env: { HOME: home, WIKI_HOME: home, XDG_CACHE_HOME: join(home, ".cache") },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-follow-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function mcpCall(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [first] = result.content;
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? first.text : "",
    result: result.structuredContent as Record<string, unknown>,
  };
}

describe("views follow writes, and a capture is not duplicated, in every host", () => {
  it("CLI: the views are current when a writing command exits; a second capture is the first", () => {
    const root = project();
    const env = childEnv();
    const title = randomWords(3);
    const page = runCli(["page", "--type", "concept", "--title", title, "--vault", root], {
      cwd: root,
      env,
    });
    expect(page.status, page.stderr).toBe(0);
    expect(view(root, "meta/index.md")).toContain(title);
    expect(view(root, "wiki/concepts/index.md")).toContain(title);

    const text = `# ${randomWords(3)}\n\n${randomWords(30)}\n`;
    const capture = () =>
      runCli(["capture", "--text", text, "--json", "--vault", root], { cwd: root, env });
    const one = capture();
    const two = capture();
    expect([one.status, two.status], two.stderr).toEqual([0, 0]);
    checkCaptures(
      root,
      JSON.parse(one.stdout) as CaptureSourceResult,
      JSON.parse(two.stdout) as CaptureSourceResult,
    );
    const plain = runCli(["capture", "--text", text, "--vault", root], { cwd: root, env });
    expect(plain.stdout).toContain(
      `already captured as ${(JSON.parse(one.stdout) as CaptureSourceResult).id}`,
    );
    expect(view(root, "meta/log.md")).toContain("source captured");
    rebuildFindsCurrent(root);
  });

  it("MCP: after writes, meta/index.md follows (polled); a second capture is the first", async () => {
    const root = project();
    const client = await mcpClient(root);
    const titles = [randomWords(3), randomWords(3)];
    for (const title of titles) {
      const r = await mcpCall(client, "wiki_ensure_page", { type: "concept", title });
      expect(r.isError, r.text).toBe(false);
    }
    await until(() => titles.every((t) => view(root, "meta/index.md").includes(t)));
    await until(() => titles.every((t) => view(root, "wiki/concepts/index.md").includes(t)));

    const text = `# ${randomWords(3)}\n\n${randomWords(30)}\n`;
    const one = await mcpCall(client, "wiki_capture_source", { text });
    const two = await mcpCall(client, "wiki_capture_source", { text });
    checkCaptures(
      root,
      one.result as unknown as CaptureSourceResult,
      two.result as unknown as CaptureSourceResult,
    );
    expect(two.text).toContain("already captured as");
    const id = String(one.result.id);
    await until(() => view(root, "meta/log.md").includes(id));
    await client.close();
    clients.splice(0);
    rebuildFindsCurrent(root);
  });

  it("Pi: after the tools' writes, the views follow; a second capture is the first", async () => {
    const root = project();
    const scratch = makeTempDir("llm-wiki-follow-pi-");
    const agentDir = join(scratch, "agent");
    mkdirSync(agentDir);
    const pi = await startPi({ root: scratch, agentDir, project: root });
    sessions.push(pi);
    const title = randomWords(3);
    const text = `# ${randomWords(3)}\n\n${randomWords(30)}\n`;
    pi.script(
      [fauxToolCall("wiki_ensure_page", { type: "concept", title })],
      [fauxToolCall("wiki_capture_source", { text })],
      [fauxToolCall("wiki_capture_source", { text })],
      "done",
    );
    await pi.session.prompt("write to the wiki");
    const results = toolResults(pi.session);
    expect(results.map((r) => r.isError)).toEqual([false, false, false]);
    const [, one, two] = results.map(
      (r) => JSON.parse(JSON.stringify(r.details)) as CaptureSourceResult,
    );
    checkCaptures(root, one ?? never(), two ?? never());
    expect(textOf(results[2] ?? never())).toContain("already captured as");
    await until(() => view(root, "meta/index.md").includes(title));
    await until(() => view(root, "meta/log.md").includes(String(one?.id)));
    // Ending the session flushes; a rebuild then finds nothing to change.
    sessions.splice(0);
    await pi.close();
    expect(pi.errors).toEqual([]);
    rebuildFindsCurrent(root);
  });
});

function never(): never {
  throw new Error("missing tool result");
}
