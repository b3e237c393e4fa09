/**
 * Lexical search keeps candidate pages' terms between recalls (so a page is
 * read and tokenized once, not on every recall). What it keeps must never
 * answer for a page that changed: not after this process's own index
 * write, and not after another process rewrote the page in the same index
 * (the reader's cache does not hear of that write; each kept page is
 * checked against the index's version of it).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import {
  openQmdStore,
  openQmdStoreReadOnly,
  type QmdCollectionSpec,
  type QmdStore,
} from "../extensions/llm-wiki/lib/index/qmd-store.ts";
import { createDocTokenCache } from "../extensions/llm-wiki/lib/lexical/doc-token-cache.ts";
import { randomWord } from "./helpers/random-text.ts";

const open: QmdStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fixture() {
  const root = mkdtempSync(join(tmpdir(), "llm-wiki-lex-cache-"));
  dirs.push(root);
  const collections: QmdCollectionSpec[] = [
    { name: "canonical-0", dir: join(root, "docs", "canonical-0"), role: "canonical" },
  ];
  const dbPath = join(root, "index.sqlite");
  const writer = await openQmdStore({ dbPath, collections, models: resolveModels({}) });
  open.push(writer);
  const write = async (path: string, text: string) => {
    const file = join(root, "docs", "canonical-0", path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    await writer.applyDocuments([{ collection: "canonical-0", path, text }], []);
  };
  return { root, dbPath, collections, writer, write };
}

/** Distinct random words, none a stop word or a stem of another. */
function words(n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) out.add(`q${randomWord(6, 9)}`);
  return [...out];
}

describe("lexical search's kept page terms", () => {
  it("a reader that kept a page's terms sees the page another process rewrote", async () => {
    const { dbPath, collections, write } = await fixture();
    const [topic, added, other] = words(3) as [string, string, string];
    await write("concepts/a.md", `# Notes\n\nThe ${topic} appears once here.\n`);
    await write("concepts/b.md", `# Other\n\nNothing about it: ${other}.\n`);
    // A second store on the same index, as an MCP server beside the CLI.
    const reader = await openQmdStoreReadOnly({ dbPath, collections });
    open.push(reader);
    const before = await reader.searchLex(topic, { limit: 5 });
    expect(before.map((h) => h.pageId)).toEqual(["concepts/a"]);
    expect(before[0]?.matches?.[0]?.counts).toEqual([0, 0, 1]);

    // Rewritten by the writer (same row, new text): the reader is told nothing.
    await write(
      "concepts/a.md",
      `# Notes\n\nThe ${topic} now appears twice: ${topic}, with ${added}.\n`,
    );
    const after = await reader.searchLex(topic, { limit: 5 });
    expect(after.map((h) => h.pageId)).toEqual(["concepts/a"]);
    expect(after[0]?.matches?.[0]?.counts).toEqual([0, 0, 2]);
    expect(after[0]?.bestChunk).toContain(added);
  });

  it("a reader finds a page another process added with a word that was on no page", async () => {
    const { dbPath, collections, write } = await fixture();
    const [topic, fresh] = words(2) as [string, string];
    await write("concepts/a.md", `# Notes\n\nThe ${topic} appears once here.\n`);
    const reader = await openQmdStoreReadOnly({ dbPath, collections });
    open.push(reader);
    // The reader counts the fresh word on no page, and remembers it.
    expect(await reader.searchLex(fresh, { limit: 5 })).toEqual([]);
    expect((await reader.searchLex(`${topic} ${fresh}`, { limit: 5 }))[0]?.matches).toHaveLength(1);

    await write("concepts/b.md", `# New\n\nThe ${fresh} arrives.\n`);
    const found = await reader.searchLex(fresh, { limit: 5 });
    expect(found.map((h) => h.pageId)).toEqual(["concepts/b"]);
    expect(found[0]?.matches?.[0]?.df).toBe(1);
    const both = await reader.searchLex(`${topic} ${fresh}`, { limit: 5 });
    expect(both.map((h) => h.pageId).sort()).toEqual(["concepts/a", "concepts/b"]);
  });

  it("this process's own write is seen at once, terms and excerpt", async () => {
    const { writer, write } = await fixture();
    const [topic, added] = words(2) as [string, string];
    await write("concepts/a.md", `# Notes\n\nThe ${topic} appears once here.\n`);
    expect((await writer.searchLex(topic, { limit: 5 }))[0]?.matches?.[0]?.counts).toEqual([
      0, 0, 1,
    ]);
    await write("concepts/a.md", `# Notes\n\n${topic} ${topic} ${topic} and ${added}.\n`);
    const hit = (await writer.searchLex(topic, { limit: 5 }))[0];
    expect(hit?.matches?.[0]?.counts).toEqual([0, 0, 3]);
    expect(hit?.bestChunk).toContain(added);
  });

  it("cuts excerpts from the page text: a kept body, or the page read when its index body spaces CJK apart", async () => {
    const { writer, write } = await fixture();
    const [topic, other] = words(2) as [string, string];
    await write("concepts/plain.md", `# Plain\n\nThe ${topic} is kept   here with ${other}.\n`);
    await write("concepts/cjk.md", `# 记忆\n\n召回测试 ${topic} 的结果。\n`);
    for (let round = 0; round < 2; round += 1) {
      const hits = await writer.searchLex(topic, { limit: 5 });
      const chunk = (id: string) => hits.find((h) => h.pageId === id)?.bestChunk;
      expect(chunk("concepts/plain")).toBe(`# Plain The ${topic} is kept here with ${other}.`);
      expect(chunk("concepts/cjk")).toBe(`# 记忆 召回测试 ${topic} 的结果。`);
    }
  });

  it("keeps a page's text with its terms unless its body is not the page text", () => {
    const cache = createDocTokenCache();
    cache.get(
      [
        { id: 1, version: "a" },
        { id: 2, version: "a" },
      ],
      () => [
        { id: 1, path: "p1.md", title: "T", body: "plain body" },
        { id: 2, path: "p2.md", title: "T", body: "召 回 body" },
      ],
    );
    expect(cache.pageText(1)).toBe("plain body");
    expect(cache.pageText(2)).toBeUndefined();
    expect(cache.pageText(3)).toBeUndefined();
    cache.clear();
    expect(cache.pageText(1)).toBeUndefined();
  });

  it("reads a kept page's text once while its version stands, again when it changes", () => {
    const cache = createDocTokenCache();
    const reads: number[][] = [];
    const read = (ids: number[]) => {
      reads.push(ids);
      return ids.map((id) => ({ id, path: `p${id}.md`, title: "T", body: `body ${id}` }));
    };
    cache.get(
      [
        { id: 1, version: "a" },
        { id: 2, version: "a" },
      ],
      read,
    );
    const again = cache.get(
      [
        { id: 1, version: "a" },
        { id: 2, version: "b" },
      ],
      read,
    );
    expect(reads).toEqual([[1, 2], [2]]);
    const body = again.get(1)?.positions[2];
    expect(body?.length).toBe(2);
    expect(body?.phrase(["bodi", "1"])).toBe(1);
    expect(again.size).toBe(2);
  });

  it("stays within its bound, dropping the least recently used page first", () => {
    const cache = createDocTokenCache(2);
    const read = (ids: number[]) => ids.map((id) => ({ id, path: "", title: "", body: "x" }));
    cache.get([{ id: 1, version: "v" }], read);
    cache.get([{ id: 2, version: "v" }], read);
    cache.get([{ id: 1, version: "v" }], read);
    cache.get([{ id: 3, version: "v" }], read);
    expect(cache.size).toBe(2);
    const reads: number[][] = [];
    cache.get(
      [
        { id: 1, version: "v" },
        { id: 2, version: "v" },
      ],
      (ids) => {
        reads.push(ids);
        return read(ids);
      },
    );
    // 2 was the least recently used when 3 came in.
    expect(reads).toEqual([[2]]);
  });
});
