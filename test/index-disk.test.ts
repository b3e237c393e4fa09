/**
 * What the index keeps on disk (mirror.ts INDEX_FORMAT 2, qmd-documents.ts):
 * each page's text once, in the FTS rows QMD searches, with QMD's `content`
 * table holding it only where those rows cannot give it back (CJK) or once a
 * model path asked for it; no mirror file per page. An index of the older
 * format answers until the next update rebuilds it, and recall answers the
 * same from every form.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type GenerationPaths,
  generationPaths,
  indexLayout,
  readCurrent,
} from "../extensions/llm-wiki/lib/index/layout.ts";
import { INDEX_FORMAT } from "../extensions/llm-wiki/lib/index/mirror.ts";
import type { VaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, indexStatus, serviceFor } from "./helpers/index-services.ts";
import { indexedDocuments } from "./helpers/indexed-documents.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";
import { CorpusRandom, corpusSeed, corpusSeedNote } from "./helpers/secret-corpus.ts";
import {
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

const WORDS = (
  "lattice harbor quorum ember tundra falcon meadow cipher saffron glacier orchid basalt " +
  "lantern mosaic nectar pylon quartz ripple sextant thistle umber vortex willow zenith " +
  "anchor bramble cobalt delta estuary fjord garnet heron inlet juniper kestrel lagoon"
).split(" ");
const CJK = ["召回", "检索", "索引", "しりとり", "カタカナ", "검색"];

/** A random vault: `pages` pages of a few hundred words, some with CJK runs, under fresh ids. */
function randomVault(
  rand: CorpusRandom,
  pages: number,
  cjkEvery = 7,
  length: [number, number] = [250, 450],
): TempVault {
  const vault = makeTempVault();
  for (let i = 0; i < pages; i++) {
    const words = Array.from({ length: rand.between(...length) }, () =>
      i % cjkEvery === 0 && rand.int(20) === 0 ? rand.pick(CJK) : rand.pick(WORDS),
    );
    const type = rand.pick(["concept", "entity", "source", "analysis"]);
    const title = `${rand.pick(WORDS)} ${rand.pick(WORDS)} ${i}`;
    vault.writePage(
      `concepts/p${i}-${rand.chars("abcdefghij", 4)}`,
      pageText({ type, title }, `${words.join(" ")}.\n`),
    );
  }
  return vault;
}

function bytesBelow(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    total += st.isDirectory() ? bytesBelow(path) : st.isFile() ? st.size : 0;
  }
  return total;
}

function liveGeneration(paths: VaultPaths): GenerationPaths {
  const layout = indexLayout(paths);
  const name = readCurrent(layout);
  if (name === undefined) throw new Error("no live generation");
  return generationPaths(layout, name);
}

/** The text the index holds per document. */
function textsOf(gen: GenerationPaths): Map<string, string> {
  return new Map([...indexedDocuments(gen.db)].map(([key, doc]) => [key, doc.text]));
}

interface Db {
  prepare(sql: string): { get(): unknown; all(): unknown[] };
  close(): void;
}

/** Active documents whose `content` row holds the text, and those that leave it to the FTS row. */
function contentRows(gen: GenerationPaths): { whole: number; empty: number } {
  const db = openQmdSqlite<Db>(gen.db, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT sum(c.doc <> '') AS whole, sum(c.doc = '') AS empty
         FROM documents d JOIN content c ON c.hash = d.hash WHERE d.active = 1`,
      )
      .get() as { whole: number; empty: number };
  } finally {
    db.close();
  }
}

async function reindexOk(service: WikiService, input: Parameters<WikiService["reindex"]>[0] = {}) {
  const result = await service.reindex(input);
  expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const [report] = result.reports;
  if (!report) throw new Error("reindex returned no report");
  return report;
}

/** Every answer of a lexical recall for `queries`: ids, order, excerpts and all. */
async function answers(service: WikiService, queries: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of queries) {
    const result = await service.recall({ query, mode: "lexical", maxResults: 8 });
    out.push(result.results);
  }
  return out;
}

function queriesFor(rand: CorpusRandom): string[] {
  return [
    ...Array.from({ length: 6 }, () => `${rand.pick(WORDS)} ${rand.pick(WORDS)}`),
    "召回 检索",
    "しりとり",
    `${rand.pick(WORDS)} 索引`,
  ];
}

describe("the index on disk", () => {
  it("holds each page's text once, in at most twice the pages' bytes, with no file per page", async () => {
    const seed = corpusSeed();
    const note = corpusSeedNote(seed);
    const rand = new CorpusRandom(seed);
    // CJK pages keep their text twice (see qmd-documents.ts): one in twenty here.
    const vault = randomVault(rand, 300, 20, [300, 1200]);
    const service = serviceFor(vault.root);
    const report = await reindexOk(service, { scope: "all" });
    expect(report.action, note).toBe("rebuild");

    const gen = liveGeneration(vault.paths);
    expect(existsSync(gen.documents), note).toBe(false);
    const pages = bytesBelow(vault.paths.wiki);
    const index = bytesBelow(vault.paths.qmd);
    expect(index, `${note}: ${index} bytes of index for ${pages} of pages`).toBeLessThanOrEqual(
      2 * pages,
    );
    // Only pages with CJK text (spaced apart in their FTS rows) keep it in `content` too.
    const docs = indexedDocuments(gen.db);
    const cjk = [...docs.values()].filter((d) =>
      /[\p{Script=Han}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(d.text),
    ).length;
    expect(contentRows(gen), note).toEqual({ whole: cjk, empty: docs.size - cjk });
    expect(cjk, note).toBeGreaterThan(0);
    expect(docs.size, note).toBe(300);
  });

  it("answers recall the same before and after QMD's model paths take the text back whole", async () => {
    const seed = corpusSeed();
    const note = corpusSeedNote(seed);
    const rand = new CorpusRandom(seed);
    const vault = randomVault(rand, 40, 3);
    const service = serviceFor(vault.root);
    await reindexOk(service, { scope: "all" });
    const queries = queriesFor(rand);
    const lean = await answers(service, queries);
    expect(
      lean.some((a) => Array.isArray(a) && a.length > 0),
      note,
    ).toBe(true);
    const gen = liveGeneration(vault.paths);
    const texts = textsOf(gen);

    // A page removed while the store is lean: its document stays, inactive, with an empty content row.
    const gone = readdirSync(join(vault.paths.wiki, "concepts"))
      .map((f) => `concepts/${f.replace(/\.md$/, "")}`)
      .sort()[0] as string;
    const goneText = vault.readPage(gone);
    rmSync(vault.pageFile(gone));
    await reindexOk(service);

    // Embedding reads `content`: the store gets every text back first.
    const embedded = await reindexOk(service, { components: ["lexical", "vectors"] });
    expect(embedded.embedded, note).toBe(39);
    expect(contentRows(gen), note).toEqual({ whole: 39, empty: 0 });

    // Back with the same text in a whole store: searchable by its body again.
    vault.writePage(gone, goneText);
    await reindexOk(service);
    expect(contentRows(gen), note).toEqual({ whole: 40, empty: 0 });
    expect(textsOf(gen), note).toEqual(texts);
    expect(await answers(service, queries), note).toEqual(lean);

    // A new page in a whole store keeps its text in `content` too.
    vault.writePage(
      "concepts/back",
      pageText({ type: "concept", title: "Back" }, "A pangolin by the river.\n"),
    );
    await reindexOk(service);
    expect(contentRows(gen), note).toEqual({ whole: 41, empty: 0 });
    const pangolin = await service.recall({ query: "pangolin", mode: "lexical" });
    expect(pangolin.results.map((r) => r.id)).toEqual(["concepts/back"]);
  });
});

describe("an index of the older format (a mirror file per page)", () => {
  /** Turns the live generation into what format 1 left: no format in the manifest, mirror files. */
  function makeFormatOne(gen: GenerationPaths): void {
    const manifest = JSON.parse(readFileSync(gen.manifest, "utf8")) as Record<string, unknown>;
    delete manifest.format;
    writeFileSync(gen.manifest, `${JSON.stringify(manifest)}\n`);
    writeFileSync(join(gen.dir, "manifest.mark.json"), "{}\n");
    for (const [key, doc] of indexedDocuments(gen.db)) {
      const file = join(gen.documents, key);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, doc.text);
    }
  }

  it("answers until the next update rebuilds it, and nothing authoritative changes", async () => {
    const seed = corpusSeed();
    const note = corpusSeedNote(seed);
    const rand = new CorpusRandom(seed);
    const vault = randomVault(rand, 30, 4);
    mkdirSync(vault.paths.raw, { recursive: true });
    writeFileSync(join(vault.paths.raw, "source.txt"), "a raw source\n");
    await reindexOk(serviceFor(vault.root), { scope: "all" });
    const old = liveGeneration(vault.paths);
    makeFormatOne(old);
    const authoritative = () =>
      [...snapshotFiles(vault.paths.dir)].filter(([rel]) => !rel.startsWith("meta/qmd/"));
    const before = authoritative();

    const service = serviceFor(vault.root);
    const status = indexStatus(service);
    expect(status, note).toMatchObject({ state: "stale", pending: 30, documents: 30 });
    expect(status.diagnostics.map((d) => d.code)).toEqual(["index_outdated"]);
    const queries = queriesFor(rand);
    const fromOld = await answers(service, queries);

    const report = await reindexOk(service);
    expect(report, note).toMatchObject({ action: "rebuild", written: 30 });
    const rebuilt = liveGeneration(vault.paths);
    expect(rebuilt.name).not.toBe(old.name);
    expect(existsSync(rebuilt.documents)).toBe(false);
    expect(JSON.parse(readFileSync(rebuilt.manifest, "utf8")).format).toBe(INDEX_FORMAT);
    expect(indexStatus(service), note).toMatchObject({ state: "ready", pending: 0, documents: 30 });
    expect(await answers(service, queries), note).toEqual(fromOld);
    expect(authoritative()).toEqual(before);
  });
});
