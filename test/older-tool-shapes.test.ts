/**
 * Agents written for the older system (`@zosmaai/pi-llm-wiki` 0.12) call
 * our tools with its parameter names: `wiki_retro {slug, title, body,
 * category}`, `wiki_capture_source {file_path}`, `wiki_lint {auto_fix}`,
 * `wiki_ingest {source_id, batch_size, background}`, `wiki_log_event
 * {details}`, `wiki_search {type}` and `wiki_bootstrap {root}`. Each call
 * succeeds with the same meaning as ours, over MCP (the real server process)
 * and in Pi (faux model); an option without an equivalent is answered with
 * what was done instead; an older name given beside ours with another value
 * is refused with nothing done. Words are fresh each run.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFrontmatter } from "../extensions/llm-wiki/lib/vault/frontmatter.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Two pages linking a missing one (a knowledge gap `auto_fix` fills) and a source-typed page. */
function seededVault(root?: string): { vault: TempVault; word: string; gap: string } {
  const word = `zq${randomWord(6, 9)}`;
  const gap = `concepts/${word}-gap`;
  const vault = makeTempVault({
    ...(root ? { root } : {}),
    pages: {
      [`concepts/${word}-one`]: pageText(
        { type: "concept", title: `${word} one` },
        `${randomWords(6)} [[${gap}]]\n`,
      ),
      [`concepts/${word}-two`]: pageText(
        { type: "concept", title: `${word} two` },
        `${randomWords(6)} [[${gap}]]\n`,
      ),
      [`entities/${word}-one-entity`]: pageText(
        { type: "entity", title: `${word} one entity` },
        `${randomWords(6)}\n`,
      ),
    },
  });
  return { vault, word, gap };
}

/** The retro page a call wrote: its front matter and body. */
function retroPage(
  vault: TempVault,
  path: string,
): { data: Record<string, unknown>; body: string } {
  const raw = readFileSync(join(vault.paths.dir, path), "utf8");
  const parsed = readFrontmatter(raw);
  return { data: parsed.data as Record<string, unknown>, body: parsed.content };
}

describe("older tool-call shapes over MCP", () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    removeTempDirs();
  });

  async function start(root: string): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", root],
      cwd: REPO,
      env: isolatedEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-older-shapes", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it("lists the older names in each tool's schema, marked as such", async () => {
    const { vault } = seededVault();
    const client = await start(vault.root);
    const { tools } = await client.listTools();
    const props = (name: string) =>
      (tools.find((t) => t.name === name)?.inputSchema.properties ?? {}) as Record<
        string,
        { description?: string }
      >;
    const older: Array<[string, string]> = [
      ["wiki_retro", "slug"],
      ["wiki_retro", "body"],
      ["wiki_retro", "category"],
      ["wiki_capture_source", "file_path"],
      ["wiki_lint", "auto_fix"],
      ["wiki_ingest", "source_id"],
      ["wiki_ingest", "batch_size"],
      ["wiki_ingest", "background"],
      ["wiki_log_event", "details"],
    ];
    for (const [tool, name] of older)
      expect(props(tool)[name]?.description, `${tool}.${name}`).toMatch(/^Older tool-call shape/);
    expect(props("wiki_search").type).toBeDefined();
    expect(props("wiki_bootstrap").root).toBeDefined();
  });

  it("runs each older shape with our meaning and says what it did instead", async () => {
    const { vault, word, gap } = seededVault();
    const client = await start(vault.root);

    // wiki_capture_source {file_path}
    const file = join(vault.root, `${word}-notes.md`);
    writeFileSync(file, `# ${word} notes\n\n${randomWords(30)}\n`);
    const captured = await call(client, "wiki_capture_source", { file_path: file });
    expect(captured.isError, text(captured)).toBeFalsy();
    const sourceId = (captured.structuredContent as { id: string }).id;
    expect(sourceId).toMatch(/^SRC-/);
    expect(existsSync(join(vault.paths.raw, "sources", sourceId))).toBe(true);

    // wiki_ingest {source_id, batch_size, background}: the named source, handed off (no model here).
    const ingest = await call(client, "wiki_ingest", {
      source_id: sourceId,
      batch_size: 3,
      background: true,
    });
    expect(ingest.isError, text(ingest)).toBeFalsy();
    const handed = ingest.structuredContent as { source?: { sourceId?: string } };
    expect(handed.source?.sourceId).toBe(sourceId);
    expect(text(ingest)).toContain("batch_size: one source is ingested per call (asked for 3)");
    expect(text(ingest)).toContain("background:");

    // wiki_retro {slug, title, body, category}
    const slug = `${word}-insight`;
    const title = `${word} caches need the tenant`;
    const body = `${randomWords(12)} [[${word} one]]`;
    const retro = await call(client, "wiki_retro", { slug, title, body, category: "bugfix" });
    expect(retro.isError, text(retro)).toBeFalsy();
    const written = retro.structuredContent as { path: string; created: boolean };
    expect(written.created).toBe(true);
    const page = retroPage(vault, written.path);
    expect(page.data.tags).toContain("bugfix");
    expect(page.data.aliases).toEqual([slug]);
    expect(page.body).toContain(body);
    expect(page.body).toMatch(new RegExp(`## Lessons\\n\\n- ${title}`));
    expect(text(retro)).toContain("slug:");
    const bySlug = await call(client, "wiki_search", { query: slug });
    expect(metaResult<{ hits: Array<{ id: string }> }>(bySlug).hits[0]?.id).toBe(
      written.path.replace(/^wiki\//, "").replace(/\.md$/, ""),
    );

    // wiki_search {type}: only pages of that type.
    const all = await call(client, "wiki_search", { query: word });
    const types = (r: CallToolResult) =>
      metaResult<{ hits: Array<{ type: string }> }>(r).hits.map((h) => h.type);
    expect(new Set(types(all)).size).toBeGreaterThan(1);
    const concepts = await call(client, "wiki_search", { query: word, type: "concept" });
    expect(types(concepts).length).toBeGreaterThan(0);
    expect(new Set(types(concepts))).toEqual(new Set(["concept"]));

    // wiki_log_event {details}
    const marker = randomWord();
    const logged = await call(client, "wiki_log_event", {
      kind: "decision_made",
      details: { choice: marker },
    });
    expect(logged.isError, text(logged)).toBeFalsy();
    const event = readEvents(vault.paths).find((e) => e.kind === "decision_made");
    expect(event?.detail).toEqual({ choice: marker });

    // wiki_lint {auto_fix}
    const lint = await call(client, "wiki_lint", { auto_fix: true });
    expect(lint.isError, text(lint)).toBeFalsy();
    const fixed = (
      lint.structuredContent as { vaults: Array<{ fixed: Array<{ path: string }> }> }
    ).vaults.flatMap((v) => v.fixed);
    expect(fixed.map((f) => f.path)).toEqual([`wiki/${gap}.md`]);
    expect(existsSync(join(vault.paths.dir, "wiki", `${gap}.md`))).toBe(true);
    expect(text(lint)).toContain("auto_fix:");
  });

  it("bootstraps at the root an older call names, and nowhere else", async () => {
    const root = makeTempDir("llm-wiki-older-root-");
    const client = await start(root);
    const elsewhere = makeTempDir("llm-wiki-older-elsewhere-");
    const refused = await call(client, "wiki_bootstrap", { topic: "payments", root: elsewhere });
    expect(refused.isError).toBe(true);
    const codes = (refused.structuredContent as { diagnostics: Array<{ code: string }> })
      .diagnostics;
    expect(codes.map((d) => d.code)).toEqual(["bootstrap_root_outside"]);
    expect(readdirSync(elsewhere)).toEqual([]);

    const made = await call(client, "wiki_bootstrap", { topic: "payments", root });
    expect(made.isError, text(made)).toBeFalsy();
    expect(existsSync(join(root, ".llm-wiki", "config.json"))).toBe(true);
  });

  it("refuses an older name given beside ours with another value, doing nothing", async () => {
    const { vault, word } = seededVault();
    const client = await start(vault.root);
    // Pages and sources: the index the server builds at startup is not the subject here.
    const kept = () => [snapshotFiles(vault.paths.wiki), snapshotFiles(vault.root)];
    const before = kept();
    const a = join(vault.root, `${word}-a.md`);
    const conflicting: Array<[string, Record<string, unknown>, string]> = [
      ["wiki_capture_source", { file_path: a, file: join(vault.root, "b.md") }, "file_path"],
      ["wiki_log_event", { kind: "note_taken", details: { a: 1 }, detail: { a: 2 } }, "details"],
      ["wiki_lint", { auto_fix: true, fix: false }, "auto_fix"],
      ["wiki_ingest", { source_id: "SRC-1", source: "SRC-2" }, "source_id"],
      ["wiki_ingest", { background: false, mode: "subagent" }, "background"],
      ["wiki_retro", { title: word, body: "x", context: "y" }, "body"],
    ];
    for (const [tool, args, field] of conflicting) {
      await expect(call(client, tool, args), `${tool} ${field}`).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(`"${field}"`),
      });
    }
    // The same value under both names is one argument, not a conflict.
    const same = await call(client, "wiki_log_event", {
      kind: "note_taken",
      details: { a: 1 },
      detail: { a: 1 },
    });
    expect(same.isError, text(same)).toBeFalsy();
    const [wikiAfter, rootAfter] = kept();
    expect(wikiAfter).toEqual(before[0]);
    // Nothing captured: no packet, no new file beside the vault.
    expect(existsSync(vault.paths.raw)).toBe(false);
    expect([...(rootAfter?.keys() ?? [])].filter((k) => !k.startsWith(".llm-wiki/"))).toEqual(
      [...(before[1]?.keys() ?? [])].filter((k) => !k.startsWith(".llm-wiki/")),
    );
    expect(readEvents(vault.paths).filter((e) => e.kind === "note_taken")).toHaveLength(1);
  });
});

describe("older tool-call shapes in Pi", () => {
  const fixture = piPerTest("llm-wiki-older-pi-");
  let seeded: ReturnType<typeof seededVault>;
  beforeEach(() => {
    seeded = seededVault(fixture.dirs.project);
  });

  it("runs each older shape with our meaning and refuses a conflicting pair", async () => {
    const { vault, word, gap } = seeded;
    const file = join(vault.root, `${word}-notes.md`);
    writeFileSync(file, `# ${word} notes\n\n${randomWords(30)}\n`);
    const slug = `${word}-insight`;
    const title = `${word} caches need the tenant`;
    const marker = randomWord();
    const pi = await fixture.start();
    pi.script(
      [fauxToolCall("wiki_capture_source", { file_path: file })],
      [fauxToolCall("wiki_retro", { slug, title, body: randomWords(10), category: "devops" })],
      [fauxToolCall("wiki_search", { query: word, type: "concept" })],
      [fauxToolCall("wiki_log_event", { kind: "decision_made", details: { choice: marker } })],
      [fauxToolCall("wiki_lint", { auto_fix: true })],
      [fauxToolCall("wiki_ingest", { batch_size: 2, background: false })],
      [fauxToolCall("wiki_bootstrap", { topic: "payments", root: vault.root })],
      [fauxToolCall("wiki_capture_source", { file_path: file, file: join(vault.root, "x.md") })],
      "done",
    );
    await pi.session.prompt("use the wiki the old way");
    const results = toolResults(pi.session);
    expect(results.map((r) => r.toolName)).toEqual([
      "wiki_capture_source",
      "wiki_retro",
      "wiki_search",
      "wiki_log_event",
      "wiki_lint",
      "wiki_ingest",
      "wiki_bootstrap",
      "wiki_capture_source",
    ]);
    const [capture, retro, search, log, lint, ingest, bootstrap, conflict] = results;
    const details = (r: (typeof results)[number] | undefined): unknown => {
      if (!r) throw new Error("a tool result is missing");
      return r.details;
    };
    for (const r of [capture, retro, search, log, lint, ingest, bootstrap])
      expect(r?.isError, `${r?.toolName}: ${r ? textOf(r) : ""}`).toBe(false);

    const sourceId = (details(capture) as { id: string }).id;
    expect(existsSync(join(vault.paths.raw, "sources", sourceId))).toBe(true);
    const retroPath = (details(retro) as { path: string }).path;
    const page = retroPage(vault, retroPath);
    expect(page.data.aliases).toEqual([slug]);
    expect(page.data.tags).toContain("devops");
    expect(textOf(retro as never)).toContain("category: added to the tags");
    const hits = (details(search) as { hits: Array<{ type: string }> }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((h) => h.type))).toEqual(new Set(["concept"]));
    expect(readEvents(vault.paths).find((e) => e.kind === "decision_made")?.detail).toEqual({
      choice: marker,
    });
    const fixed = (details(lint) as { vaults: Array<{ fixed: Array<{ path: string }> }> }).vaults;
    expect(fixed.flatMap((v) => v.fixed.map((f) => f.path))).toEqual([`wiki/${gap}.md`]);
    expect(textOf(lint as never)).toContain("auto_fix:");
    // background: false hands the oldest waiting source's text to the agent.
    const handed = ingest?.details as { source?: { sourceId?: string }; part?: unknown };
    expect(handed.source?.sourceId).toBe(sourceId);
    expect(handed.part).toBeDefined();
    expect(textOf(ingest as never)).toContain("batch_size: one source is ingested per call");

    expect(conflict?.isError).toBe(true);
    expect(textOf(conflict as never)).toContain('"file_path"');
    expect(
      readdirSync(join(vault.paths.raw, "sources")).filter((d) => d.startsWith("SRC-")),
    ).toEqual([sourceId]);
  });
});
