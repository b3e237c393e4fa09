/**
 * The per-vault index lifecycle (`lib/index/qmd-indexing.ts` and its mirror,
 * layout and status ladder) through the shared service, on real temp vaults
 * and a real QMD store: what gets mirrored, what incremental updates touch,
 * the status ladder and its repair commands, moved and copied vaults, and
 * the promise that everything under `meta/` is derived.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type GenerationPaths,
  generationPaths,
  indexLayout,
  readCurrent,
} from "../extensions/llm-wiki/lib/index/layout.ts";
import { collectionOf, readManifest } from "../extensions/llm-wiki/lib/index/mirror.ts";
import { MAX_PAGE_BYTES } from "../extensions/llm-wiki/lib/vault/page.ts";
import type { VaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, indexStatus, serviceFor } from "./helpers/index-services.ts";
import { type IndexedDocument, indexedDocuments } from "./helpers/indexed-documents.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** Ids recalled (lexical mode, explicit policy) for `query`. */
async function recalled(service: WikiService, query: string): Promise<string[]> {
  const result = await service.recall({ query, mode: "lexical" });
  expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return result.results.map((r) => r.id);
}

async function reindexOk(
  service: WikiService,
  input: Parameters<WikiService["reindex"]>[0] = {},
): Promise<NonNullable<Awaited<ReturnType<WikiService["reindex"]>>["reports"][number]>> {
  const result = await service.reindex(input);
  expect(result.diagnostics).toEqual([]);
  expect(result.ok).toBe(true);
  const [report] = result.reports;
  if (!report) throw new Error("reindex returned no report");
  expect(report.diagnostics.filter((d) => d.severity !== "warning")).toEqual([]);
  return report;
}

/** The live generation's folders; fails the test when there is none. */
function liveGeneration(paths: VaultPaths): GenerationPaths {
  const layout = indexLayout(paths);
  const name = readCurrent(layout);
  if (name === undefined) throw new Error("no live generation");
  return generationPaths(layout, name);
}

/** The mirror a generation's index holds: `<collection>/<pageId>.md` → text and last write. */
function mirrorFiles(gen: GenerationPaths): Map<string, IndexedDocument> {
  return indexedDocuments(gen.db);
}

function generationFolders(paths: VaultPaths): string[] {
  return readdirSync(paths.qmd)
    .filter((name) => /^(gen|staging)-/.test(name))
    .sort();
}

/** Runs a repair command exactly as printed, in the vault's folder, as a user would. */
function runRepair(root: string, repair: string | undefined): void {
  expect(repair).toMatch(/^llm-wiki [a-z]/);
  const args = (repair ?? "").split(" ").slice(1);
  const out = runCli(args, { cwd: root, env: childEnv() });
  expect(out.status, out.stderr).toBe(0);
}

const concept = (title: string, body: string) => pageText({ type: "concept", title }, body);
const source = (title: string, body: string) => pageText({ type: "source", title }, body);

/** Three accepted pages: two canonical, one evidence, each with one rare word. */
function smallVault(): TempVault {
  return makeTempVault({
    pages: {
      "concepts/alpha": concept("Alpha", "The zephyr wind carries seeds across the valley.\n"),
      "entities/beta": pageText(
        { type: "entity", title: "Beta" },
        "Beta keeps a narwhal in the harbour.\n",
      ),
      "sources/gamma": source("Gamma", "A field report about the quokka colony.\n"),
    },
  });
}

describe("the validated mirror", () => {
  it("mirrors only pages the vault parser accepts, one file each in its role's collection", async () => {
    const vault = makeTempVault({
      pages: {
        "concepts/alpha": concept("Alpha", "The zephyr wind.\n"),
        "sources/gamma": source("Gamma", "The quokka colony.\n"),
        // No type but text: a note written by hand, read as its folder says.
        "concepts/no-type": pageText({ title: "Untyped" }, "An untyped wombat.\n"),
        // No type and no text: not a page.
        "concepts/empty-untyped": pageText({ title: "Empty wombat" }, ""),
        "concepts/odd-type": pageText({ type: "banana", title: "Odd" }, "A banana wombat.\n"),
        "concepts/bad-yaml": "---\ntype: concept\ntitle: [unclosed\n---\nA broken wombat.\n",
        "concepts/binary": new Uint8Array([0, 1, 2, 0x77, 0x6f, 0x6d, 0x62, 0x61, 0x74]),
        "concepts/huge": concept("Huge", `wombat ${"x".repeat(MAX_PAGE_BYTES)}\n`),
      },
    });
    writeFileSync(join(vault.paths.wiki, "concepts", "notes.txt"), "a wombat in a text file\n");
    writeFileSync(
      join(vault.paths.wiki, "concepts", ".hidden.md"),
      concept("Hidden", "A hidden wombat.\n"),
    );
    const service = serviceFor(vault.root);

    await reindexOk(service);

    const gen = liveGeneration(vault.paths);
    // A type we do not know is kept as evidence (OKF readers tolerate unknown types).
    expect(Object.keys(readManifest(gen)?.entries ?? {})).toEqual([
      "concepts/alpha",
      "concepts/no-type",
      "concepts/odd-type",
      "sources/gamma",
    ]);
    expect([...mirrorFiles(gen).keys()].sort()).toEqual(
      [
        `${collectionOf("concepts/alpha", "canonical")}/concepts/alpha.md`,
        `${collectionOf("concepts/no-type", "canonical")}/concepts/no-type.md`,
        `${collectionOf("concepts/odd-type", "evidence")}/concepts/odd-type.md`,
        `${collectionOf("sources/gamma", "evidence")}/sources/gamma.md`,
      ].sort(),
    );
    // The mirror carries the title and body, not the frontmatter; no file holds it besides the index.
    const text = mirrorFiles(gen).get(
      `${collectionOf("concepts/alpha", "canonical")}/concepts/alpha.md`,
    )?.text;
    expect(text).toBe("# Alpha\n\nThe zephyr wind.\n");
    expect(existsSync(gen.documents)).toBe(false);
    // Of the wombat pages the untyped note and the one of an unknown type are pages; the rest were refused.
    expect((await recalled(service, "wombat")).sort()).toEqual([
      "concepts/no-type",
      "concepts/odd-type",
    ]);
    expect(await recalled(service, "zephyr")).toEqual(["concepts/alpha"]);
    expect(indexStatus(service)).toMatchObject({ state: "ready", documents: 4, pending: 0 });
  });

  it("mirrors every accepted page under its exact id, whatever characters the id holds", async () => {
    const ids = [
      "concepts/Café notes",
      "concepts/召回策略",
      "concepts/a[1] (draft)",
      "concepts/sub dir/x*y",
      "concepts/UPPER",
      "concepts/a.b.c",
      "concepts/-dash",
      "concepts/$money",
      "concepts/#hash",
    ];
    const vault = makeTempVault({
      pages: Object.fromEntries(ids.map((id) => [id, concept("Odd", `The quetzal of ${id}.\n`)])),
    });
    const service = serviceFor(vault.root);
    await reindexOk(service);

    expect(indexStatus(service)).toMatchObject({ state: "ready", documents: 9, pending: 0 });
    const result = await service.recall({ query: "quetzal", mode: "lexical", maxResults: 10 });
    expect(result.results.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  it("never changes an authoritative file: pages, raw sources, the event log, the config", async () => {
    const vault = smallVault();
    const rawDir = join(vault.paths.raw, "sources", "SRC-2026-01-02-001");
    mkdirSync(rawDir, { recursive: true });
    writeFileSync(join(rawDir, "source.md"), "# Captured\n\nraw zephyr text\n");
    mkdirSync(vault.paths.meta, { recursive: true });
    writeFileSync(vault.paths.events, '{"type":"page_created","id":"concepts/alpha"}\n');
    const authoritative = () => {
      const files = new Map<string, { bytes: Buffer; mtimeMs: number }>();
      for (const dir of [vault.paths.wiki, vault.paths.raw]) {
        for (const [rel, bytes] of snapshotFiles(dir)) {
          const abs = join(dir, rel);
          files.set(abs, { bytes, mtimeMs: statSync(abs).mtimeMs });
        }
      }
      for (const abs of [vault.paths.events, vault.paths.config]) {
        files.set(abs, { bytes: readFileSync(abs), mtimeMs: statSync(abs).mtimeMs });
      }
      return files;
    };
    const before = authoritative();
    const service = serviceFor(vault.root);

    await reindexOk(service);
    await reindexOk(service, { scope: "all" });
    await reindexOk(service, { force: true });
    await reindexOk(service, { components: ["lexical", "vectors"] });
    expect(await recalled(service, "narwhal")).toEqual(["entities/beta"]);
    await service.recall({ query: "what carries seeds across the valley?" });
    rmSync(vault.paths.qmd, { recursive: true });
    await reindexOk(service);

    expect(authoritative()).toEqual(before);
  });
});

describe("everything under meta/ is derived", () => {
  it("deleting meta/ loses nothing: after a reindex every search answers the same", async () => {
    const vault = makeTempVault({
      pages: {
        "concepts/rag": concept(
          "Retrieval augmented generation",
          "Retrieval feeds a model with passages found by search.\n",
        ),
        "concepts/bm25": concept("BM25", "BM25 ranks passages by term frequency and rarity.\n"),
        "concepts/fusion": concept(
          "Reciprocal rank fusion",
          "Fusion merges ranked lists of passages by reciprocal rank.\n",
        ),
        "sources/paper": source("A fusion paper", "The paper measures fusion of BM25 lists.\n"),
        "skills/reindex": pageText(
          { type: "skill", title: "Reindex the wiki", tags: "index, search" },
          "Run the reindex command after editing pages in bulk.\n",
        ),
      },
    });
    const queries = ["passages", "fusion of ranked lists", "bm25", "reindex after editing", "rank"];
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const answers = async () => {
      const out: unknown[] = [];
      for (const query of queries) {
        const result = await service.recall({ query, mode: "lexical" });
        out.push(
          result.results.map((r) => [r.id, r.role, r.score, r.exact, r.excerpt, r.path, r.file]),
        );
      }
      return out;
    };
    const before = await answers();
    expect(before.flat().length).toBeGreaterThan(queries.length);

    rmSync(vault.paths.meta, { recursive: true });
    expect(indexStatus(service).state).toBe("missing");
    await reindexOk(service);

    expect(indexStatus(service)).toMatchObject({ state: "ready", documents: 5, pending: 0 });
    expect(await answers()).toEqual(before);
  });
});

describe("a moved or copied vault", () => {
  it("keeps a ready index when moved: status ready without a reindex, recall answers there", async () => {
    const vault = smallVault();
    const first = serviceFor(vault.root);
    await reindexOk(first);
    await first.close();
    // No derived file but QMD's database names the folder the vault lives in
    // (QMD's own collection table, rewritten whenever a store is opened).
    for (const [rel, bytes] of snapshotFiles(vault.paths.meta)) {
      if (rel.endsWith("index.sqlite")) continue;
      expect(bytes.toString("utf8"), rel).not.toContain(vault.root);
    }

    const destination = makeTempDir("llm-wiki-moved-");
    renameSync(vault.paths.dir, join(destination, ".llm-wiki"));
    const moved = serviceFor(destination);

    expect(indexStatus(moved)).toMatchObject({ state: "ready", documents: 3, pending: 0 });
    const result = await moved.recall({ query: "narwhal", mode: "lexical" });
    expect(result.results.map((r) => [r.id, r.file])).toEqual([
      ["entities/beta", join(destination, ".llm-wiki", "wiki", "entities", "beta.md")],
    ]);

    // The moved index keeps taking incremental changes.
    writeFileSync(
      join(destination, ".llm-wiki", "wiki", "concepts", "delta.md"),
      concept("Delta", "An axolotl in the pond.\n"),
    );
    const report = await reindexOk(moved);
    expect(report.action).toBe("incremental");
    expect(await recalled(moved, "axolotl")).toEqual(["concepts/delta"]);
  });

  it("a copy keeps a ready index and indexes its own changes, leaving the original alone", async () => {
    const original = smallVault();
    const service = serviceFor(original.root);
    await reindexOk(service);
    const originalGen = liveGeneration(original.paths);
    const originalMirror = mirrorFiles(originalGen);

    const copyRoot = makeTempDir("llm-wiki-copy-");
    // A plain copy: new folder, new file times.
    cpSync(original.paths.dir, join(copyRoot, ".llm-wiki"), { recursive: true });
    const copy = makeTempVault({ root: copyRoot });
    const copied = serviceFor(copyRoot);
    expect(indexStatus(copied)).toMatchObject({ state: "ready", documents: 3, pending: 0 });
    expect(await recalled(copied, "quokka")).toEqual(["sources/gamma"]);

    copy.writePage("sources/gamma", source("Gamma", "The copy now talks about a pangolin.\n"));
    const report = await reindexOk(copied);
    expect(report).toMatchObject({ action: "incremental", written: 1 });

    expect(await recalled(copied, "pangolin")).toEqual(["sources/gamma"]);
    expect(await recalled(copied, "quokka")).toEqual([]);
    expect(await recalled(service, "pangolin")).toEqual([]);
    expect(await recalled(service, "quokka")).toEqual(["sources/gamma"]);
    expect(indexStatus(service).state).toBe("ready");
    expect(mirrorFiles(liveGeneration(original.paths))).toEqual(originalMirror);
  });
});

describe("incremental updates", () => {
  it("rewrites only the changed page's mirror file, in the same generation", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const gen = liveGeneration(vault.paths);
    const before = mirrorFiles(gen);
    expect(before.size).toBe(3);

    vault.writePage("concepts/alpha", concept("Alpha", "Now the page is about a pangolin only.\n"));
    expect(indexStatus(service)).toMatchObject({ state: "stale", pending: 1 });
    const report = await reindexOk(service);

    expect(report).toMatchObject({ action: "incremental", written: 1, removed: 0 });
    expect(liveGeneration(vault.paths).name).toBe(gen.name);
    const after = mirrorFiles(gen);
    const alpha = `${collectionOf("concepts/alpha", "canonical")}/concepts/alpha.md`;
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [rel, file] of after) {
      if (rel === alpha) expect(file.text).not.toBe(before.get(rel)?.text);
      else expect(file, rel).toEqual(before.get(rel));
    }
    expect(await recalled(service, "pangolin")).toEqual(["concepts/alpha"]);
    expect(await recalled(service, "zephyr")).toEqual([]);
    expect(indexStatus(service)).toMatchObject({ state: "ready", pending: 0, documents: 3 });
  });

  it("makes a new page searchable after `reindex changed`", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const gen = liveGeneration(vault.paths);

    vault.writePage("concepts/delta", concept("Delta", "An axolotl lives in the pond.\n"));
    expect(await recalled(service, "axolotl")).toEqual([]);
    expect(indexStatus(service)).toMatchObject({ state: "stale", pending: 1 });
    const report = await reindexOk(service, { scope: "changed" });

    expect(report).toMatchObject({ action: "incremental", written: 1, removed: 0 });
    expect(liveGeneration(vault.paths).name).toBe(gen.name);
    expect(await recalled(service, "axolotl")).toEqual(["concepts/delta"]);
    expect(indexStatus(service)).toMatchObject({ state: "ready", documents: 4, canonical: 3 });
  });

  it("drops a deleted page from the results, the mirror and the counts", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const gen = liveGeneration(vault.paths);
    expect(await recalled(service, "narwhal")).toEqual(["entities/beta"]);

    rmSync(vault.pageFile("entities/beta"));
    expect(indexStatus(service)).toMatchObject({ state: "stale", pending: 1 });
    const report = await reindexOk(service);

    expect(report).toMatchObject({ action: "incremental", written: 0, removed: 1 });
    expect(await recalled(service, "narwhal")).toEqual([]);
    expect([...mirrorFiles(gen).keys()].some((rel) => rel.endsWith("entities/beta.md"))).toBe(
      false,
    );
    expect(readManifest(gen)?.entries["entities/beta"]).toBeUndefined();
    expect(indexStatus(service)).toMatchObject({
      state: "ready",
      documents: 2,
      canonical: 1,
      evidence: 1,
    });
  });

  it("moves a page whose type changes role to the other role's collection", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const gen = liveGeneration(vault.paths);
    const canonicalFile = `${collectionOf("concepts/alpha", "canonical")}/concepts/alpha.md`;
    const evidenceFile = `${collectionOf("concepts/alpha", "evidence")}/concepts/alpha.md`;
    expect(mirrorFiles(gen).has(canonicalFile)).toBe(true);

    vault.writePage(
      "concepts/alpha",
      pageText({ type: "observation", title: "Alpha" }, "The zephyr wind, observed once.\n"),
    );
    const report = await reindexOk(service);

    expect(report).toMatchObject({ action: "incremental", written: 1 });
    const files = mirrorFiles(gen);
    expect(files.has(canonicalFile)).toBe(false);
    expect(files.has(evidenceFile)).toBe(true);
    expect(readManifest(gen)?.entries["concepts/alpha"]).toMatchObject({
      role: "evidence",
      collection: collectionOf("concepts/alpha", "evidence"),
    });
    const result = await service.recall({ query: "zephyr", mode: "lexical" });
    expect(result.results.map((r) => [r.id, r.role])).toEqual([["concepts/alpha", "evidence"]]);
    expect(indexStatus(service)).toMatchObject({
      state: "ready",
      documents: 3,
      canonical: 1,
      evidence: 2,
    });
  });

  it("does nothing when nothing changed", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const gen = liveGeneration(vault.paths);
    const before = mirrorFiles(gen);

    const report = await reindexOk(service);

    expect(report).toMatchObject({ action: "none", written: 0, removed: 0, recovered: false });
    expect(liveGeneration(vault.paths).name).toBe(gen.name);
    expect(mirrorFiles(gen)).toEqual(before);
  });

  it("a full rebuild makes a new generation and removes the old one", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    const old = liveGeneration(vault.paths);
    expect(await recalled(service, "zephyr")).toEqual(["concepts/alpha"]);

    vault.writePage("concepts/alpha", concept("Alpha", "Rebuilt around a pangolin.\n"));
    const report = await reindexOk(service, { scope: "all" });

    expect(report).toMatchObject({ action: "rebuild", written: 3 });
    const fresh = liveGeneration(vault.paths);
    expect(fresh.name).not.toBe(old.name);
    expect(generationFolders(vault.paths)).toEqual([fresh.name]);
    expect(existsSync(indexLayout(vault.paths).journal)).toBe(false);
    // The service's open store follows the swap.
    expect(await recalled(service, "pangolin")).toEqual(["concepts/alpha"]);
    expect(await recalled(service, "zephyr")).toEqual([]);
  });

  it("a long-running service follows a rebuild swapped in by another process", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    expect(await recalled(service, "zephyr")).toEqual(["concepts/alpha"]);
    const old = liveGeneration(vault.paths);

    vault.writePage("concepts/alpha", concept("Alpha", "Rebuilt elsewhere around a pangolin.\n"));
    const out = runCli(["reindex", "--all", "--vault", vault.root], { env: childEnv() });
    expect(out.status, out.stderr).toBe(0);
    expect(existsSync(old.dir)).toBe(false);

    expect(await recalled(service, "pangolin")).toEqual(["concepts/alpha"]);
    expect(await recalled(service, "zephyr")).toEqual([]);
    expect(indexStatus(service).state).toBe("ready");
  });
});

describe("an unusable live generation", () => {
  it("is rebuilt by a plain `reindex`, never indexed into an empty database", async () => {
    const vault = smallVault();
    const first = serviceFor(vault.root);
    await reindexOk(first);
    await first.close();
    const broken = liveGeneration(vault.paths);
    rmSync(broken.db);

    const service = serviceFor(vault.root);
    expect(indexStatus(service).state).toBe("error");
    const report = await reindexOk(service);

    expect(report.action).toBe("rebuild");
    expect(liveGeneration(vault.paths).name).not.toBe(broken.name);
    expect(generationFolders(vault.paths)).toEqual([liveGeneration(vault.paths).name]);
    expect(indexStatus(service)).toMatchObject({ state: "ready", documents: 3 });
    expect(await recalled(service, "narwhal")).toEqual(["entities/beta"]);
  });
});

describe("the status ladder", () => {
  it("goes missing → ready → stale → ready with counts, pending pages and repair commands", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);

    const missing = indexStatus(service);
    expect(missing).toMatchObject({
      state: "missing",
      documents: 0,
      canonical: 0,
      evidence: 0,
      pending: 3,
      vectors: { present: false },
      repair: "llm-wiki reindex",
    });
    expect(missing.diagnostics.map((d) => [d.code, d.repair])).toEqual([
      ["index_missing", "llm-wiki reindex"],
    ]);

    await reindexOk(service);
    const ready = indexStatus(service);
    expect(ready).toMatchObject({
      state: "ready",
      generation: liveGeneration(vault.paths).name,
      documents: 3,
      canonical: 2,
      evidence: 1,
      pending: 0,
      needsEmbedding: 3,
      vectors: { present: false },
      diagnostics: [],
    });
    expect(ready.repair).toBeUndefined();
    expect(ready.lastError).toBeUndefined();
    expect(Date.parse(ready.lastBuiltAt ?? "")).not.toBeNaN();

    vault.writePage("concepts/alpha", concept("Alpha", "Changed: the wind is a sirocco.\n"));
    vault.writePage("sources/delta", source("Delta", "A new source about otters.\n"));
    rmSync(vault.pageFile("entities/beta"));
    const stale = indexStatus(service);
    expect(stale).toMatchObject({
      state: "stale",
      documents: 3,
      pending: 3,
      repair: "llm-wiki reindex",
    });
    expect(stale.diagnostics.map((d) => [d.code, d.repair])).toEqual([
      ["index_stale", "llm-wiki reindex"],
    ]);
    expect(stale.diagnostics[0]?.message).toContain("3 page(s) changed");

    runRepair(vault.root, stale.repair);
    expect(indexStatus(service)).toMatchObject({
      state: "ready",
      documents: 3,
      canonical: 1,
      evidence: 2,
      pending: 0,
      needsEmbedding: 3,
    });
  });

  it("reports vectors, their model and the pages still needing embedding", async () => {
    const vault = smallVault();
    const service = serviceFor(vault.root);
    await reindexOk(service);
    expect(indexStatus(service)).toMatchObject({ needsEmbedding: 3, vectors: { present: false } });

    const report = await reindexOk(service, { components: ["lexical", "vectors"] });
    expect(report.embedded).toBe(3);
    const embedded = indexStatus(service);
    expect(embedded).toMatchObject({
      state: "ready",
      needsEmbedding: 0,
      vectors: { present: true },
    });
    expect(embedded.vectors.model).toContain("embed");

    vault.writePage("sources/delta", source("Delta", "A new source about otters.\n"));
    await reindexOk(service);
    expect(indexStatus(service)).toMatchObject({
      state: "ready",
      documents: 4,
      needsEmbedding: 1,
      vectors: { present: true, model: embedded.vectors.model },
    });
  });

  it.each([
    ["its COMPLETE marker is gone", (gen: GenerationPaths) => rmSync(gen.complete)],
    ["its database is gone", (gen: GenerationPaths) => rmSync(gen.db)],
    ["its manifest is corrupt", (gen: GenerationPaths) => writeFileSync(gen.manifest, "{")],
    [
      "LIVE names a generation that does not exist",
      (gen: GenerationPaths) => rmSync(gen.dir, { recursive: true }),
    ],
  ])(
    "reports error when the live generation is unusable (%s); the repair command fixes it",
    async (_, breakIt) => {
      const vault = smallVault();
      const service = serviceFor(vault.root);
      await reindexOk(service);
      await service.close();
      breakIt(liveGeneration(vault.paths));

      const fresh = serviceFor(vault.root);
      const error = indexStatus(fresh);
      expect(error).toMatchObject({ state: "error", repair: "llm-wiki reindex --force" });
      expect(error.diagnostics.map((d) => [d.code, d.severity, d.repair])).toEqual([
        ["index_invalid", "error", "llm-wiki reindex --force"],
      ]);
      // Recall says why it cannot search instead of searching a broken index.
      const recall = await fresh.recall({ query: "zephyr", mode: "lexical" });
      expect(recall.results).toEqual([]);
      expect(recall.diagnostics.map((d) => d.code)).toContain("index_invalid");

      runRepair(vault.root, error.repair);
      expect(indexStatus(fresh)).toMatchObject({ state: "ready", documents: 3, pending: 0 });
      expect(generationFolders(vault.paths)).toEqual([liveGeneration(vault.paths).name]);
      expect(await recalled(fresh, "zephyr")).toEqual(["concepts/alpha"]);
    },
  );
});
