/**
 * MCP answers cost what their text says: recall, priming and search answer
 * with the shared text alone, within the `recallMaxChars` budget, and carry
 * their machine-readable result in `_meta` (clients such as Claude Code hand
 * the model `structuredContent` in place of the text, so none is sent). The
 * real server runs as a child process on a vault of long, randomly worded
 * pages that share one topic word, so every answer would overflow unbudgeted.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import type { SearchResult } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
/** Small enough that ten long pages and their listing overflow it many times over. */
const BUDGET = 1_500 + Math.floor(Math.random() * 2_000);
const TOPIC = randomWord(8, 12);
const PAGES = 14;

let client: Client;
const ids: string[] = [];

/** Every character a client may hand a model: the text blocks and the structured content. */
function answerSize(result: CallToolResult): number {
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return (
    text.length + (result.structuredContent ? JSON.stringify(result.structuredContent).length : 0)
  );
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

beforeAll(async () => {
  const home = makeTempDir("llm-wiki-budget-home-");
  mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
  writeFileSync(
    join(home, ".config", "llm-wiki", "settings.json"),
    JSON.stringify({ "llm-wiki": { recallMaxChars: BUDGET, recallFeedback: false } }),
  );
  const pages: Record<string, string> = {};
  for (let i = 0; i < PAGES; i += 1) {
    const id = `concepts/${TOPIC}-${i}-${randomWord()}`;
    ids.push(id);
    // Long sections, each naming the topic, so every page matches and none is short.
    const body = Array.from(
      { length: 12 },
      () => `## ${randomWords(3)}\n\n${TOPIC} ${randomWords(120)} ${TOPIC}.\n`,
    ).join("\n");
    pages[id] = pageText(
      { title: `${TOPIC} ${randomWords(6)}`, type: "concept", tags: `[${TOPIC}]` },
      `# ${TOPIC}\n\n${body}`,
    );
  }
  const vault = makeTempVault({ pages });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", vault.root],
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      WIKI_HOME: home,
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_CONFIG_HOME: join(home, ".config"),
    },
    stderr: "pipe",
  });
  client = new Client({ name: "llm-wiki-budget", version: "0.0.0" });
  await client.connect(transport);
  const built = await call("wiki_reindex", { scope: "all" });
  expect(built.isError ?? false, JSON.stringify(built.structuredContent)).toBe(false);
}, 180_000);

afterAll(async () => {
  await client?.close();
  removeTempDirs();
});

describe(`MCP answers within recallMaxChars (${BUDGET})`, () => {
  it("no budgeted tool declares an outputSchema", async () => {
    const { tools } = await client.listTools();
    for (const name of ["wiki_recall", "wiki_prime", "wiki_search"]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool?.outputSchema, name).toBeUndefined();
    }
  });

  it("recall of many long pages: text only, within the budget, ids in _meta", async () => {
    for (const args of [
      { query: TOPIC, max_results: 10, mode: "lexical" },
      { query: TOPIC, max_results: 10, mode: "lexical", explain: true },
    ]) {
      const result = await call("wiki_recall", args);
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toBeUndefined();
      expect(answerSize(result)).toBeLessThanOrEqual(BUDGET);
      const full = metaResult<RecallResult>(result);
      expect(full.results.length).toBeGreaterThan(1);
      for (const r of full.results) expect(ids).toContain(r.id);
      // The machine-readable result is the whole one: more than the model is handed.
      expect(JSON.stringify(full).length).toBeGreaterThan(BUDGET);
      const [first] = result.content;
      expect(first?.type === "text" && first.text).toContain(full.results[0]?.id);
    }
  });

  it("search listing every page by tag: text only, within the budget, every hit in _meta", async () => {
    const result = await call("wiki_search", { query: TOPIC, limit: 50 });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toBeUndefined();
    expect(answerSize(result)).toBeLessThanOrEqual(BUDGET);
    const full = metaResult<SearchResult>(result);
    expect(full.hits.map((h) => h.id).sort()).toEqual([...ids].sort());
  });

  it("priming: text only, within the budget, its result in _meta", async () => {
    const result = await call("wiki_prime", {});
    expect(result.structuredContent).toBeUndefined();
    expect(answerSize(result)).toBeLessThanOrEqual(BUDGET);
    expect(metaResult<RecallResult>(result).policy).toBe("priming");
  });

  it("a failed recall still answers within the budget, its diagnostics in _meta", async () => {
    const result = await call("wiki_recall", { query: `${TOPIC} `.repeat(400) });
    expect(answerSize(result)).toBeLessThanOrEqual(BUDGET);
    const full = metaResult<RecallResult>(result);
    expect(full.diagnostics.length).toBeGreaterThan(0);
  });
});
