/**
 * The registry as last saved (vault/registry-saved.ts) and the derived files
 * it is read from (`summary.json`, the name table under `names/`): a fresh
 * process answers from it exactly as a full refresh would, and trusts it only
 * while the cache, the name table and every `wiki/` folder are as the
 * summary describes them. Deleting or corrupting any of those files costs a
 * rewrite by the next refresh, nothing else.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { matchNames } from "../extensions/llm-wiki/lib/name-match.ts";
import { redactSecrets } from "../extensions/llm-wiki/lib/safety/redact.ts";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { openSavedRegistry } from "../extensions/llm-wiki/lib/vault/registry-saved.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

/** A GitHub-style token the secret detector finds, fresh per run. */
function token(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const value = `ghp_${[...randomBytes(36)].map((b) => alphabet[b % alphabet.length]).join("")}`;
  expect(redactSecrets(value).text).not.toBe(value);
  return value;
}

/** Pages with every kind of name the table holds, a secret, and a page the parser rejects. */
function pages(): Record<string, string> {
  return {
    "concepts/rag": pageText(
      { type: "concept", title: "RAG", aliases: "[Retrieval-augmented generation]" },
      "Uses [[concepts/bm25]].\n",
    ),
    "concepts/bm25": pageText({ type: "concept", title: "BM25 ranking" }, "Ranks.\n"),
    "entities/qmd": pageText(
      { type: "entity", title: "QMD", aliases: "[Query Markup Documents, constructor, __proto__]" },
      "The engine.\n",
    ),
    "concepts/recall-cjk": pageText({ type: "concept", title: "召回 设计" }, "CJK.\n"),
    "sources/paper": pageText({ type: "source", title: "A paper about caches" }, "Evidence.\n"),
    "concepts/deploy": pageText({ type: "concept", title: "Deploy notes" }, `token: ${token()}\n`),
    "concepts/bad": "---\ntype: [\n---\n",
  };
}

const QUERIES = [
  "RAG",
  "retrieval-augmented generation",
  "how does bm25 ranking work",
  "qmd",
  "Query Markup Documents",
  "constructor",
  "__proto__",
  "entities/qmd",
  "召回设计的原则",
  "a paper about caches and more",
  "nothing at all",
];

/** The matches of `query` as a table built from `reg`'s pages gives them. */
function builtMatches(reg: Registry, query: string) {
  return matchNames(reg.pages, query, {});
}

function expectSameMatches(a: ReturnType<typeof matchNames>, b: ReturnType<typeof matchNames>) {
  expect([...a.exact]).toEqual([...b.exact]);
  expect([...a.contained]).toEqual([...b.contained]);
}

function savedOf(vault: TempVault) {
  const saved = openSavedRegistry(vault.paths);
  if (!saved) throw new Error("the saved registry did not open");
  return saved;
}

describe("the registry as last saved", () => {
  it("answers every lookup as the refreshed registry does, reading only what it is asked", () => {
    const vault = makeTempVault({ pages: pages() });
    const reg = refreshRegistry(vault.paths);
    const saved = savedOf(vault);
    expect(saved.pages.size).toBe(reg.pages.size);
    for (const id of [...reg.pages.keys(), "concepts/bad", "concepts/none", "wiki", ""]) {
      expect(saved.pages.get(id)).toEqual(reg.pages.get(id));
      expect(saved.pages.has(id)).toBe(reg.pages.has(id));
      expect(saved.hashes.get(id)).toBe(reg.hashes.get(id));
      expect(saved.secretPages.has(id)).toBe(reg.secretPages.has(id));
    }
    expect(saved.secretPages.has("concepts/deploy")).toBe(true);
    // Anything that walks the pages sees them all, in the registry's order.
    expect([...saved.pages.keys()]).toEqual([...reg.pages.keys()]);
    expect([...saved.hashes]).toEqual([...reg.hashes]);
    expect([...saved.secretPages]).toEqual([...reg.secretPages]);
  });

  it("matches names from the table on disk exactly as a table built from the pages", () => {
    const vault = makeTempVault({ pages: pages() });
    const reg = refreshRegistry(vault.paths);
    const saved = savedOf(vault);
    for (const query of QUERIES) {
      const built = builtMatches(reg, query);
      expectSameMatches(matchNames(saved.pages, query, saved.names), built);
      // A refreshed registry answers from the same table, not one built from every page.
      expectSameMatches(matchNames(reg.pages, query, reg.names), built);
    }
    expect([...matchNames(saved.pages, "constructor", saved.names).exact]).toEqual([
      "entities/qmd",
    ]);
    expect([...matchNames(saved.pages, "召回设计的原则", saved.names).contained]).toEqual([
      "concepts/recall-cjk",
    ]);
  });

  it("writes each name bucket as the JSON of its keys in order, number-like keys first by number", () => {
    const numbered = {
      "concepts/y2024": pageText({
        type: "concept",
        title: '"2024"',
        aliases: '["9", "10", "007"]',
      }),
      "concepts/max": pageText({
        type: "concept",
        title: '"4294967295"',
        aliases: '["4294967294"]',
      }),
      "concepts/mixed": pageText({ type: "concept", title: "10 rules of 9 lives" }),
    };
    const vault = makeTempVault({ pages: { ...pages(), ...numbered } });
    const reg = refreshRegistry(vault.paths);
    const dir = join(vault.paths.registryCache, "names");
    const sorted = (o: Record<string, unknown>) =>
      Object.fromEntries(
        Object.keys(o)
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          .map((k) => [k, o[k]]),
      );
    let numberKeys = 0;
    for (const name of readdirSync(dir).filter((n) => /^\d+\.json$/.test(n))) {
      const text = readFileSync(join(dir, name), "utf8");
      const data = JSON.parse(text) as {
        version: number;
        exact: Record<string, unknown>;
        words: Record<string, unknown>;
      };
      numberKeys += [...Object.keys(data.exact), ...Object.keys(data.words)].filter((k) =>
        /^\d+$/.test(k),
      ).length;
      // What serialising the sorted maps as objects gives, byte for byte.
      const expected = `${JSON.stringify({ version: data.version, exact: sorted(data.exact), words: sorted(data.words) })}\n`;
      expect(text).toBe(expected);
    }
    expect(numberKeys).toBeGreaterThanOrEqual(6);
    const saved = savedOf(vault);
    for (const query of [
      "2024",
      "9",
      "10",
      "007",
      "4294967295",
      "4294967294",
      "10 rules of 9 lives",
    ]) {
      const built = builtMatches(reg, query);
      expect(built.exact.size + built.contained.size).toBeGreaterThan(0);
      expectSameMatches(matchNames(saved.pages, query, saved.names), built);
    }
  });

  it("opens only while no wiki/ folder changed since the last walk of every page", () => {
    const vault = makeTempVault({ pages: pages() });
    refreshRegistry(vault.paths);
    expect(openSavedRegistry(vault.paths)).toBeDefined();
    vault.writePage("concepts/new", pageText({ type: "concept", title: "New" }));
    expect(openSavedRegistry(vault.paths)).toBeUndefined();
    refreshRegistry(vault.paths);
    expect(savedOf(vault).pages.get("concepts/new")?.title).toBe("New");
    rmSync(vault.pageFile("concepts/new"));
    expect(openSavedRegistry(vault.paths)).toBeUndefined();
  });

  it("does not see a page edited in place: it is the registry as last saved, until a refresh", () => {
    const vault = makeTempVault({ pages: pages() });
    refreshRegistry(vault.paths);
    writeFileSync(vault.pageFile("concepts/rag"), pageText({ type: "concept", title: "RAG 2" }));
    expect(savedOf(vault).pages.get("concepts/rag")?.title).toBe("RAG");
    expect(refreshRegistry(vault.paths).pages.get("concepts/rag")?.title).toBe("RAG 2");
    expect(savedOf(vault).pages.get("concepts/rag")?.title).toBe("RAG 2");
  });

  it("stays open after a host's own writes: their folders are vouched for by their listing", () => {
    const vault = makeTempVault({ pages: pages() });
    const first = refreshRegistry(vault.paths);
    const edited = vault.writePage("concepts/rag", pageText({ type: "concept", title: "RAG 3" }));
    const added = vault.writePage("concepts/added", pageText({ type: "concept", title: "Added" }));
    refreshRegistry(vault.paths, first, { changed: [edited, added] });
    const saved = savedOf(vault);
    expect(saved.pages.get("concepts/rag")?.title).toBe("RAG 3");
    expect(saved.pages.get("concepts/added")?.title).toBe("Added");
  });

  it("does not open when a folder a host wrote to also got a page it was not told of", () => {
    const vault = makeTempVault({ pages: pages() });
    const first = refreshRegistry(vault.paths);
    const added = vault.writePage("concepts/added", pageText({ type: "concept", title: "Added" }));
    vault.writePage("concepts/unseen", pageText({ type: "concept", title: "Unseen" }));
    refreshRegistry(vault.paths, first, { changed: [added] });
    expect(openSavedRegistry(vault.paths)).toBeUndefined();
    refreshRegistry(vault.paths);
    expect(savedOf(vault).pages.get("concepts/unseen")?.title).toBe("Unseen");
  });

  it("does not open when a cache shard, a name bucket or the summary is not as the summary says", () => {
    const vault = makeTempVault({ pages: pages() });
    refreshRegistry(vault.paths);
    const cache = vault.paths.registryCache;
    const touch = (file: string) => utimesSync(file, 1_700_000_000, 1_700_000_000);
    const [shard] = readdirSync(cache).filter((n) => /^\d\d\.json$/.test(n));
    for (const file of [join(cache, shard ?? ""), join(cache, "names", "00.json")]) {
      touch(file);
      expect(openSavedRegistry(vault.paths)).toBeUndefined();
      refreshRegistry(vault.paths);
      expect(openSavedRegistry(vault.paths)).toBeDefined();
    }
    rmSync(join(cache, "summary.json"));
    expect(openSavedRegistry(vault.paths)).toBeUndefined();
  });
});

describe("the summary and the name table: derived files", () => {
  it("are written again by the next refresh when deleted or corrupt", () => {
    const vault = makeTempVault({ pages: pages() });
    const reg = refreshRegistry(vault.paths);
    const cache = vault.paths.registryCache;
    const summary = join(cache, "summary.json");
    for (const junk of ["{not json", "[]", '{"version":1}', ""]) {
      writeFileSync(summary, junk);
      expect(openSavedRegistry(vault.paths)).toBeUndefined();
      refreshRegistry(vault.paths);
      expect(openSavedRegistry(vault.paths)).toBeDefined();
    }
    rmSync(join(cache, "names"), { recursive: true });
    refreshRegistry(vault.paths);
    const saved = savedOf(vault);
    for (const query of QUERIES)
      expectSameMatches(matchNames(saved.pages, query, saved.names), builtMatches(reg, query));
  });

  it("answers names from the pages when a bucket is replaced after the table was opened", () => {
    const vault = makeTempVault({ pages: pages() });
    const reg = refreshRegistry(vault.paths);
    const saved = savedOf(vault);
    for (const name of readdirSync(join(vault.paths.registryCache, "names")))
      writeFileSync(join(vault.paths.registryCache, "names", name), "{broken");
    for (const query of QUERIES)
      expectSameMatches(matchNames(saved.pages, query, saved.names), builtMatches(reg, query));
  });

  it("rewrites only the name buckets of a renamed page's old and new names", () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 1_000; i += 1)
      many[`notes/n${i}`] = pageText({ type: "note", title: `Note number ${i}` });
    const vault = makeTempVault({ pages: many });
    const first = refreshRegistry(vault.paths);
    const dir = join(vault.paths.registryCache, "names");
    const bytes = () => new Map(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]));
    const before = bytes();
    expect(before.size).toBeGreaterThan(4);
    const file = vault.writePage("notes/n7", pageText({ type: "note", title: "Seventh heaven" }));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const reg = refreshRegistry(vault.paths, first);
    const after = bytes();
    const rewritten = [...after].filter(([n, b]) => !before.get(n)?.equals(b));
    expect(rewritten.length).toBeGreaterThan(0);
    // The id's keys stay; "note number 7" goes, "seventh heaven" comes: at most four buckets.
    expect(rewritten.length).toBeLessThanOrEqual(4);
    const saved = savedOf(vault);
    for (const query of ["note number 7", "seventh heaven", "n7", "notes/n7", "note number 70"])
      expectSameMatches(matchNames(saved.pages, query, saved.names), builtMatches(reg, query));
  });

  it("lays the name table out anew when the vault grows past its layout's size", () => {
    const few: Record<string, string> = {};
    for (let i = 0; i < 150; i += 1)
      few[`notes/n${i}`] = pageText({ type: "note", title: `N ${i}` });
    const vault = makeTempVault({ pages: few });
    refreshRegistry(vault.paths);
    const dir = join(vault.paths.registryCache, "names");
    expect(readdirSync(dir).sort()).toEqual(["00.json", "cjk.json"]);
    for (let i = 150; i < 400; i += 1)
      vault.writePage(`notes/n${i}`, pageText({ type: "note", title: `N ${i}` }));
    const reg = refreshRegistry(vault.paths);
    expect(readdirSync(dir).sort()).toEqual([
      "00.json",
      "01.json",
      "02.json",
      "03.json",
      "cjk.json",
    ]);
    const saved = savedOf(vault);
    for (const query of ["n 12", "n 399", "notes/n250", "n 150 and n 7"])
      expectSameMatches(matchNames(saved.pages, query, saved.names), builtMatches(reg, query));
  });
});
