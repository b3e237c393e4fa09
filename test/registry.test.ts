import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { CACHE_VERSION } from "../extensions/llm-wiki/lib/vault/registry-cache.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
} from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const PAGES = {
  "concepts/rag": pageText(
    { type: "concept", title: "RAG", tags: "[retrieval]" },
    "Uses [[concepts/bm25]] and [[entities/qmd|QMD]].\n",
  ),
  "concepts/bm25": pageText({ type: "concept", title: "BM25" }, "Ranks for [[rag]].\n"),
  "entities/qmd": pageText(
    { type: "entity", title: "QMD" },
    "Implements [BM25](/concepts/bm25.md).\n",
  ),
  "sources/paper": pageText({ type: "source", title: "A paper" }, "Evidence for [[RAG]].\n"),
};

/** The registry cache's shard files by name, and all their records by path. */
function cacheOf(vault: { paths: { registryCache: string } }): {
  shards: Map<string, string>;
  files: Record<string, unknown>;
} {
  const shards = new Map<string, string>();
  const files: Record<string, unknown> = {};
  const dir = vault.paths.registryCache;
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  for (const name of names.filter((n) => /^\d\d\.json$/.test(n))) {
    const text = readFileSync(join(dir, name), "utf8");
    shards.set(name, text);
    Object.assign(files, (JSON.parse(text) as { files: object }).files);
  }
  return { shards, files };
}

/** Sets a file's mtime to a fixed instant, so "changed" never depends on clock resolution. */
function setMtime(file: string, secondsSinceEpoch: number): void {
  utimesSync(file, secondsSinceEpoch, secondsSinceEpoch);
}

function ids(reg: Registry): string[] {
  return [...reg.pages.keys()];
}

describe("refreshRegistry: first build", () => {
  it("parses every page and lists accepted pages in id order", () => {
    const vault = makeTempVault({ pages: PAGES });
    const reg = refreshRegistry(vault.paths);
    expect(ids(reg)).toEqual(["concepts/bm25", "concepts/rag", "entities/qmd", "sources/paper"]);
    expect(reg.stats).toEqual({ files: 4, parsed: 4, reread: 0, reused: 0, removed: 0 });
    expect(reg.diagnostics).toEqual([]);
    expect(reg.pages.get("concepts/rag")).toMatchObject({
      title: "RAG",
      type: "concept",
      role: "canonical",
      tags: ["retrieval"],
      path: "wiki/concepts/rag.md",
    });
    expect(reg.pages.get("sources/paper")?.role).toBe("evidence");
  });

  it("orders ids by id, not by file name (a before a-b)", () => {
    const vault = makeTempVault({
      pages: {
        "concepts/a-b": pageText({ type: "concept" }),
        "concepts/a": pageText({ type: "concept" }),
      },
    });
    expect(ids(refreshRegistry(vault.paths))).toEqual(["concepts/a", "concepts/a-b"]);
  });

  it("caches every file under meta/cache/registry/ and writes backlinks.json, vault-relative paths only", () => {
    const vault = makeTempVault({ pages: PAGES });
    refreshRegistry(vault.paths);
    const cache = cacheOf(vault);
    expect(Object.keys(cache.files).sort()).toEqual([
      "wiki/concepts/bm25.md",
      "wiki/concepts/rag.md",
      "wiki/entities/qmd.md",
      "wiki/sources/paper.md",
    ]);
    for (const text of cache.shards.values()) {
      expect(JSON.parse(text)).toMatchObject({ version: CACHE_VERSION });
      expect(text).not.toContain(vault.root);
    }
    expect(existsSync(vault.paths.backlinks)).toBe(true);
    expect(existsSync(vault.paths.legacyRegistry)).toBe(false);
  });

  it("skips hidden folders such as .obsidian and files that are not .md", () => {
    const vault = makeTempVault({ pages: { "concepts/rag": PAGES["concepts/rag"] } });
    mkdirSync(join(vault.paths.wiki, ".obsidian"), { recursive: true });
    writeFileSync(join(vault.paths.wiki, ".obsidian", "note.md"), pageText({ type: "note" }));
    writeFileSync(join(vault.paths.wiki, "concepts", "diagram.png"), "png");
    expect(ids(refreshRegistry(vault.paths))).toEqual(["concepts/rag"]);
  });

  it("answers for a vault without wiki/ pages", () => {
    const vault = makeTempVault();
    const reg = refreshRegistry(vault.paths);
    expect(reg.pages.size).toBe(0);
    expect(reg.stats.files).toBe(0);
  });
});

describe("refreshRegistry: incremental", () => {
  it("re-parses nothing and rewrites nothing on a second refresh of an unchanged vault", () => {
    const vault = makeTempVault({ pages: PAGES });
    const first = refreshRegistry(vault.paths);
    const shards = [...cacheOf(vault).shards.keys()].map((n) => join(vault.paths.registryCache, n));
    for (const file of [...shards, vault.paths.backlinks]) setMtime(file, 1_000_000);
    const second = refreshRegistry(vault.paths);
    expect(second.stats).toEqual({ files: 4, parsed: 0, reread: 0, reused: 4, removed: 0 });
    expect(second.pages).toEqual(first.pages);
    expect(second.backlinks).toEqual(first.backlinks);
    for (const file of [...shards, vault.paths.backlinks])
      expect(statSync(file).mtimeMs).toBe(1_000_000_000);
  });

  it("re-reads but does not re-parse a page whose mtime changed and bytes did not", () => {
    const vault = makeTempVault({ pages: PAGES });
    refreshRegistry(vault.paths);
    setMtime(vault.pageFile("concepts/rag"), 1_700_000_000);
    const reg = refreshRegistry(vault.paths);
    expect(reg.stats).toEqual({ files: 4, parsed: 0, reread: 1, reused: 3, removed: 0 });
    // The new mtime is remembered, so the next refresh reuses it without reading.
    expect(refreshRegistry(vault.paths).stats).toMatchObject({ reread: 0, reused: 4 });
  });

  it("re-parses only the page that was edited", () => {
    const vault = makeTempVault({ pages: PAGES });
    refreshRegistry(vault.paths);
    const file = vault.writePage(
      "concepts/bm25",
      pageText({ type: "concept", title: "Okapi BM25", aliases: "[BM25]" }),
    );
    setMtime(file, 1_700_000_000);
    const reg = refreshRegistry(vault.paths);
    expect(reg.stats).toEqual({ files: 4, parsed: 1, reread: 0, reused: 3, removed: 0 });
    expect(reg.pages.get("concepts/bm25")).toMatchObject({
      title: "Okapi BM25",
      aliases: ["BM25"],
    });
  });

  it("re-parses an edit that keeps the size when the mtime moved", () => {
    const vault = makeTempVault({
      pages: { "concepts/x": pageText({ type: "concept", title: "Aaa" }) },
    });
    refreshRegistry(vault.paths);
    const file = vault.writePage("concepts/x", pageText({ type: "concept", title: "Bbb" }));
    setMtime(file, 1_700_000_000);
    const reg = refreshRegistry(vault.paths);
    expect(reg.stats.parsed).toBe(1);
    expect(reg.pages.get("concepts/x")?.title).toBe("Bbb");
  });

  it("drops a removed page, its links and its backlinks", () => {
    const vault = makeTempVault({ pages: PAGES });
    expect(refreshRegistry(vault.paths).backlinks.get("entities/qmd")).toEqual(["concepts/rag"]);
    rmSync(vault.pageFile("concepts/rag"));
    const reg = refreshRegistry(vault.paths);
    expect(reg.stats).toEqual({ files: 3, parsed: 0, reread: 0, reused: 3, removed: 1 });
    expect(reg.pages.has("concepts/rag")).toBe(false);
    expect(reg.backlinks.has("entities/qmd")).toBe(false);
    expect(Object.keys(cacheOf(vault).files)).not.toContain("wiki/concepts/rag.md");
    // Links to the removed page are now missing, not silently kept.
    expect(reg.linkProblems).toEqual(
      expect.arrayContaining([{ from: "sources/paper", target: "RAG", status: "missing" }]),
    );
  });

  it("picks up a page added between refreshes", () => {
    const vault = makeTempVault({ pages: PAGES });
    refreshRegistry(vault.paths);
    vault.writePage("skills/deploy", pageText({ type: "skill", title: "Deploy" }));
    const reg = refreshRegistry(vault.paths);
    expect(reg.stats).toEqual({ files: 5, parsed: 1, reread: 0, reused: 4, removed: 0 });
    expect(reg.pages.get("skills/deploy")?.role).toBe("canonical");
  });
});

describe("refreshRegistry: malformed pages", () => {
  it("reports each malformed page with its path and reason and still lists the others", () => {
    const vault = makeTempVault({
      pages: {
        ...PAGES,
        "concepts/bad-yaml": "---\ntype: concept\ntitle: [oops\n---\n",
        "concepts/no-type": "---\ntitle: Nothing\n---\n",
        "concepts/odd-type": '---\ntype: "<b>recipe</b>"\n---\n',
        "concepts/binary": new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02]),
        "concepts/huge": `---\ntype: concept\n---\n${"x".repeat(1024 * 1024)}`,
        "concepts/stray-percent": pageText({ type: "concept" }, "[p](100%.md)\n"),
      },
    });
    const reg = refreshRegistry(vault.paths);
    expect(ids(reg)).toEqual([
      "concepts/bm25",
      "concepts/rag",
      "concepts/stray-percent",
      "entities/qmd",
      "sources/paper",
    ]);
    const byPath = Object.fromEntries(reg.diagnostics.map((d) => [d.path, d.code]));
    expect(byPath).toEqual({
      "wiki/concepts/bad-yaml.md": "frontmatter_parse_error",
      "wiki/concepts/no-type.md": "page_missing_type",
      "wiki/concepts/odd-type.md": "page_invalid_type",
      "wiki/concepts/binary.md": "page_binary",
      "wiki/concepts/huge.md": "page_too_large",
    });
    for (const d of reg.diagnostics) {
      expect(d.severity).toBe("error");
      expect(d.message.startsWith(`${d.path}: `)).toBe(true);
    }
  });

  it("keeps reporting a malformed page on later refreshes without re-parsing it", () => {
    const vault = makeTempVault({ pages: { "concepts/no-type": "---\ntitle: x\n---\n" } });
    refreshRegistry(vault.paths);
    const again = refreshRegistry(vault.paths);
    expect(again.stats.parsed).toBe(0);
    expect(again.diagnostics.map((d) => d.code)).toEqual(["page_missing_type"]);
  });

  it("accepts a page once it is repaired", () => {
    const vault = makeTempVault({ pages: { "concepts/fixme": "---\ntitle: Fix me\n---\n" } });
    expect(refreshRegistry(vault.paths).pages.size).toBe(0);
    setMtime(
      vault.writePage("concepts/fixme", "---\ntype: concept\ntitle: Fix me\n---\n"),
      1_700_000_000,
    );
    const reg = refreshRegistry(vault.paths);
    expect(ids(reg)).toEqual(["concepts/fixme"]);
    expect(reg.diagnostics).toEqual([]);
  });

  it("refuses a symlinked page or folder that points outside the vault", () => {
    const vault = makeTempVault({ pages: PAGES });
    const outside = makeTempDir("llm-wiki-outside-");
    writeFileSync(join(outside, "secret.md"), pageText({ type: "concept", title: "Secret" }));
    symlinkSync(join(outside, "secret.md"), join(vault.paths.wiki, "concepts", "leak.md"));
    symlinkSync(outside, join(vault.paths.wiki, "linked-folder"));
    const reg = refreshRegistry(vault.paths);
    expect(ids(reg)).not.toContain("concepts/leak");
    expect([...reg.pages.values()].map((p) => p.title)).not.toContain("Secret");
    expect(reg.diagnostics).toEqual([
      expect.objectContaining({
        code: "page_path_escape",
        severity: "error",
        path: "wiki/concepts/leak.md",
      }),
      expect.objectContaining({ code: "page_path_escape", path: "wiki/linked-folder" }),
    ]);
    expect(reg.pages.size).toBe(4);
  });

  it("accepts a symlinked page that stays inside the vault", () => {
    const vault = makeTempVault({ pages: PAGES });
    symlinkSync(vault.pageFile("concepts/rag"), join(vault.paths.wiki, "concepts", "rag-alias.md"));
    const reg = refreshRegistry(vault.paths);
    expect(reg.pages.get("concepts/rag-alias")?.title).toBe("RAG");
    expect(reg.diagnostics).toEqual([]);
  });
});

describe("refreshRegistry: links and backlinks", () => {
  it("resolves wiki and Markdown links and inverts them into backlinks", () => {
    const vault = makeTempVault({ pages: PAGES });
    const reg = refreshRegistry(vault.paths);
    expect(reg.links.get("concepts/rag")).toEqual(["concepts/bm25", "entities/qmd"]);
    expect(reg.links.get("entities/qmd")).toEqual(["concepts/bm25"]);
    expect(reg.backlinks.get("concepts/bm25")).toEqual(["concepts/rag", "entities/qmd"]);
    expect(reg.backlinks.get("concepts/rag")).toEqual(["concepts/bm25", "sources/paper"]);
    expect(reg.linkProblems).toEqual([]);
    const stored = JSON.parse(readFileSync(vault.paths.backlinks, "utf8")) as Record<
      string,
      string[]
    >;
    expect(stored["concepts/bm25"]).toEqual(["concepts/rag", "entities/qmd"]);
    expect(stored["entities/qmd"]).toEqual(["concepts/rag"]);
  });

  it("reports missing and ambiguous links and ignores links to the page itself", () => {
    const vault = makeTempVault({
      pages: {
        "entities/qmd": pageText({ type: "entity" }, "[[nowhere]] [[tool]] [[entities/qmd]]\n"),
        "entities/tool": pageText({ type: "entity" }),
        "skills/tool": pageText({ type: "skill" }),
      },
    });
    const reg = refreshRegistry(vault.paths);
    expect(reg.linkProblems).toEqual([
      { from: "entities/qmd", target: "nowhere", status: "missing" },
      {
        from: "entities/qmd",
        target: "tool",
        status: "ambiguous",
        candidates: ["entities/tool", "skills/tool"],
      },
    ]);
    expect(reg.links.get("entities/qmd")).toEqual([]);
    expect(reg.backlinks.size).toBe(0);
  });

  it("updates backlinks when only the linking page changes", () => {
    const vault = makeTempVault({ pages: PAGES });
    refreshRegistry(vault.paths);
    setMtime(
      vault.writePage(
        "sources/paper",
        pageText({ type: "source" }, "Now about [[entities/qmd]].\n"),
      ),
      1_700_000_000,
    );
    const reg = refreshRegistry(vault.paths);
    expect(reg.stats.parsed).toBe(1);
    expect(reg.backlinks.get("concepts/rag")).toEqual(["concepts/bm25"]);
    expect(reg.backlinks.get("entities/qmd")).toEqual(["concepts/rag", "sources/paper"]);
  });
});

describe("refreshRegistry: derived files", () => {
  it("rebuilds a deleted cache byte for byte", () => {
    const vault = makeTempVault({ pages: PAGES });
    const first = refreshRegistry(vault.paths);
    const cacheBefore = cacheOf(vault).shards;
    const backlinksBytes = readFileSync(vault.paths.backlinks);
    rmSync(vault.paths.registryCache, { recursive: true });
    rmSync(vault.paths.backlinks);
    const rebuilt = refreshRegistry(vault.paths);
    expect(rebuilt.stats.parsed).toBe(4);
    expect(cacheOf(vault).shards).toEqual(cacheBefore);
    expect(readFileSync(vault.paths.backlinks)).toEqual(backlinksBytes);
    expect(rebuilt.pages).toEqual(first.pages);
  });

  it("re-parses the pages of a cache shard that is corrupt or not a cache, and rewrites it", () => {
    const vault = makeTempVault({ pages: PAGES });
    refreshRegistry(vault.paths);
    const [name, good] = [...cacheOf(vault).shards][0] ?? ["", ""];
    const inShard = Object.keys((JSON.parse(good) as { files: object }).files).length;
    for (const junk of [
      "{not json",
      "[]",
      '{"version":2,"files":null}',
      '{"version":99,"files":{}}',
    ]) {
      writeFileSync(join(vault.paths.registryCache, name), junk);
      const reg = refreshRegistry(vault.paths);
      expect(reg.stats.parsed).toBe(inShard);
      expect(reg.pages.size).toBe(4);
      expect(readFileSync(join(vault.paths.registryCache, name), "utf8")).toBe(good);
    }
  });

  it("removes the single-file cache of earlier versions but never @zosmaai/pi-llm-wiki's registry.json", () => {
    const ours = makeTempVault({ pages: PAGES });
    mkdirSync(ours.paths.meta, { recursive: true });
    writeFileSync(ours.paths.legacyRegistry, '{"version":1,"files":{}}\n');
    refreshRegistry(ours.paths);
    expect(existsSync(ours.paths.legacyRegistry)).toBe(false);
    const shared = makeTempVault({ pages: PAGES });
    mkdirSync(shared.paths.meta, { recursive: true });
    const theirs = '{"pages":{"concepts/rag":{"title":"RAG"}}}\n';
    writeFileSync(shared.paths.legacyRegistry, theirs);
    expect(refreshRegistry(shared.paths).pages.size).toBe(4);
    expect(readFileSync(shared.paths.legacyRegistry, "utf8")).toBe(theirs);
  });

  it("rewrites only the cache shard of the one page that changed", () => {
    const pages: Record<string, string> = {};
    for (let i = 0; i < 64; i += 1)
      pages[`notes/n${i}`] = pageText({ type: "note", title: `N${i}` });
    const vault = makeTempVault({ pages });
    const first = refreshRegistry(vault.paths);
    const before = cacheOf(vault).shards;
    setMtime(
      vault.writePage("notes/n7", pageText({ type: "note", title: "Seven" })),
      1_700_000_000,
    );
    refreshRegistry(vault.paths, first);
    const after = cacheOf(vault).shards;
    const rewritten = [...after].filter(([name, text]) => before.get(name) !== text);
    expect(rewritten).toHaveLength(1);
    expect(rewritten[0]?.[1]).toContain("Seven");
  });

  it("leaves every page file byte-identical", () => {
    const vault = makeTempVault({
      pages: {
        ...PAGES,
        "concepts/bad": "---\ntype: [\n---\n",
        "concepts/crlf": "---\r\ntype: concept\r\n---\r\nx\r\n",
      },
    });
    const before = snapshotFiles(vault.paths.wiki);
    refreshRegistry(vault.paths);
    setMtime(vault.pageFile("concepts/rag"), 1_700_000_000);
    refreshRegistry(vault.paths);
    expect(snapshotFiles(vault.paths.wiki)).toEqual(before);
    expect(readFileSync(vault.paths.config, "utf8")).toContain("test vault");
  });
});
