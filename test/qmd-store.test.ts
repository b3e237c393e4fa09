/**
 * The QMD adapter (extensions/llm-wiki/lib/index/qmd-store.ts), against the
 * real QMD SDK on real temp folders. Model-backed specs use the tiny GGUF
 * models from scripts/generate-test-models.ts; none ever downloads anything.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GPU_ENV_VARS } from "../extensions/llm-wiki/lib/index/llama-backend.ts";
import { hfCacheFileNames, resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import {
  buildLexQuery,
  EXCERPT_MAX_CHARS,
  ModelUnavailableError,
  openQmdStore,
  type QmdCollectionSpec,
  type QmdEmbedResult,
  type QmdStore,
} from "../extensions/llm-wiki/lib/index/qmd-store.ts";
import { createReaderPool } from "../extensions/llm-wiki/lib/index/reader-pool.ts";
import { ensureTestModels } from "../scripts/generate-test-models.ts";
import { randomWord } from "./helpers/random-text.ts";

const root = mkdtempSync(join(tmpdir(), "llm-wiki-qmd-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An environment naming no model: QMD's hf: defaults, which this machine's cache does not hold. */
const offlineEnv = { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
const MODEL_VARS = ["QMD_EMBED_MODEL", "QMD_RERANK_MODEL", "QMD_GENERATE_MODEL"] as const;

/** QMD's model cache for this test run (vitest points XDG_CACHE_HOME at .cache/test-env). */
const modelCache = resolveModels({}).cacheDir;
const cacheEntries = () => (existsSync(modelCache) ? readdirSync(modelCache).sort() : []);

const LONG_BODY = `${"Filler sentence about nothing in particular. ".repeat(60)}The needle word is xylophone, hidden deep in a long page. ${"More filler text follows here. ".repeat(60)}`;

const PAGES: Record<string, string> = {
  "canonical/concepts/reciprocal-rank-fusion.md":
    "# Reciprocal Rank Fusion\n\nRRF merges several ranked lists: every list adds 1/(60 + rank) to a page's score, so pages that several retrievers rank well rise to the top.\n",
  "canonical/concepts/rag.md":
    "# Retrieval-augmented generation\n\nRAG retrieves wiki pages and passes them to the model as context.\n",
  "canonical/entities/qmd.md":
    "# QMD\n\nQMD (Query Markup Documents) is a local Markdown search engine: BM25, vectors and reranking. Release v1.0.21 matches dotted versions; the config key is embed_model and the CLI flag is --no-rerank.\n",
  "canonical/concepts/zettelkasten.md":
    "# Zettelkasten\n\nAtomic permanent notes with meaningful links. 中文名：卡片盒笔记法。\n",
  "canonical/concepts/long-page.md": `# Long page\n\n${LONG_BODY}\n`,
  "evidence/sources/recall-study.md":
    "# Recall study\n\n检索系统的召回率衡量找到了多少相关页面。召回 is the Chinese word for recall.\n",
  "evidence/sources/lunch-menu.md":
    "# Lunch menu\n\nSoup, bread and a salad with olives. Coffee afterwards.\n",
};

function writePage(relative: string, text: string): void {
  const path = join(root, "vault", relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const collections: QmdCollectionSpec[] = [
  { name: "canonical", dir: join(root, "vault", "canonical"), role: "canonical" },
  { name: "evidence", dir: join(root, "vault", "evidence"), role: "evidence" },
];

let store: QmdStore;
let cacheBefore: string[];

beforeAll(async () => {
  for (const [relative, text] of Object.entries(PAGES)) writePage(relative, text);
  cacheBefore = cacheEntries();
  store = await openQmdStore({
    dbPath: join(root, "index", "lexical.sqlite"),
    collections,
    models: resolveModels({}),
  });
  const result = await store.update();
  expect(result).toMatchObject({ indexed: Object.keys(PAGES).length, removed: 0 });
});

afterAll(async () => {
  await store?.close();
});

const ids = (hits: Array<{ pageId: string }>) => hits.map((h) => h.pageId);

describe("searchLex", () => {
  it("answers a natural-language question although not every word is in the page", async () => {
    const hits = await store.searchLex("what is reciprocal rank fusion and why use it?");
    expect(hits[0]).toMatchObject({
      pageId: "concepts/reciprocal-rank-fusion",
      role: "canonical",
      collection: "canonical",
      title: "Reciprocal Rank Fusion",
      source: "fts",
    });
    // "use" is on no page: the page covers most, not all, of the question's weight.
    expect(hits[0]?.confidence).toBeGreaterThan(0.5);
    expect(hits[0]?.confidence).toBeLessThan(1);
    expect(ids(await store.searchLex("how do several retrievers merge ranked lists"))[0]).toBe(
      "concepts/reciprocal-rank-fusion",
    );
  });

  it("finds CJK text through single-character phrases", async () => {
    const hits = await store.searchLex("召回");
    expect(hits[0]).toMatchObject({ pageId: "sources/recall-study", role: "evidence" });
    expect(hits[0]?.bestChunk).toContain("召回");
    expect(ids(await store.searchLex("什么是卡片盒笔记法"))[0]).toBe("concepts/zettelkasten");
  });

  it("keeps identifiers whole: versions, snake_case, flags", async () => {
    for (const query of ["v1.0.21", "embed_model", "--no-rerank", "Query-Markup documents"]) {
      expect(ids(await store.searchLex(query))[0], query).toBe("entities/qmd");
    }
  });

  it("maps nested page ids and roles from the collection folders", async () => {
    const hits = await store.searchLex("RAG retrieves wiki pages");
    const rag = hits.find((h) => h.pageId === "concepts/rag");
    expect(rag).toMatchObject({ role: "canonical", collection: "canonical" });
    const lunch = (await store.searchLex("olives soup"))[0];
    expect(lunch).toMatchObject({ pageId: "sources/lunch-menu", role: "evidence" });
  });

  it("creates no model file and loads no model", async () => {
    await store.searchLex("reciprocal rank fusion");
    await store.status();
    expect(cacheEntries()).toEqual(cacheBefore);
  });

  it("returns at most `limit` hits in a deterministic order, ties broken by page id", async () => {
    writePage("canonical/twins/b-twin.md", "# Twin\n\nIdentical twin page about quokkas.\n");
    writePage("canonical/twins/a-twin.md", "# Twin\n\nIdentical twin page about quokkas.\n");
    await store.update({ collections: ["canonical"] });
    const first = await store.searchLex("quokkas twin", { limit: 5 });
    expect(ids(first)).toEqual(["twins/a-twin", "twins/b-twin"]);
    expect(first.map((h) => h.score)).toEqual([1, 1]);
    expect(await store.searchLex("quokkas twin", { limit: 5 })).toEqual(first);
    expect(ids(await store.searchLex("quokkas twin", { limit: 1 }))).toEqual(["twins/a-twin"]);
    expect(await store.searchLex("quokkas twin", { limit: 0 })).toEqual([]);
    const many = await store.searchLex("page pages notes rank", { limit: 3 });
    expect(many.length).toBe(3);
    const scores = many.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("scores 0..1 within the list, and an absolute confidence in the same order", async () => {
    const strong = await store.searchLex("reciprocal rank fusion");
    expect(strong[0]?.score).toBe(1);
    const confidences = strong.map((h) => h.confidence ?? -1);
    expect([...confidences].sort((a, b) => b - a)).toEqual(confidences);
    for (const hit of strong) {
      expect(hit.score).toBeGreaterThan(0);
      expect(hit.confidence).toBeGreaterThan(0);
      expect(hit.confidence).toBeLessThanOrEqual(hit.score);
    }
    // The named page matches all three words in its title and body.
    expect(strong[0]?.confidence).toBeGreaterThan(0.6);
    // Only "olives" occurs anywhere: a coincidental single-term match stays weak,
    // weaker than a plain one-in-three count, since words on no page weigh most.
    const weak = await store.searchLex("olives quasar nebula");
    expect(ids(weak)).toEqual(["sources/lunch-menu"]);
    expect(weak[0]?.score).toBe(1);
    expect(weak[0]?.confidence).toBeGreaterThan(0);
    expect(weak[0]?.confidence).toBeLessThan(1 / 3);
  });

  it("cuts a bounded excerpt around the query words, never the whole body", async () => {
    const hit = (await store.searchLex("xylophone"))[0];
    expect(hit?.pageId).toBe("concepts/long-page");
    expect(hit?.bestChunk).toContain("xylophone");
    expect(hit?.bestChunk?.startsWith("…")).toBe(true);
    expect(hit?.bestChunk?.length ?? 0).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
  });

  it("returns nothing for stop words, punctuation or emoji only", async () => {
    for (const query of ["", "   ", "what is it", "the of and", "🙂🚀", "?!…", "的了吗"]) {
      expect(await store.searchLex(query), JSON.stringify(query)).toEqual([]);
    }
  });

  it("never throws on a hostile string", async () => {
    const hostile = [
      '"',
      '""',
      '"unterminated phrase',
      "(",
      "())(",
      "-",
      "-rank",
      "*",
      "rank*",
      "^rank",
      "title:rank",
      "NEAR(rank fusion, 2)",
      "rank AND fusion OR NOT merge",
      "{rank fusion}",
      "rank + fusion",
      '\\"; DROP TABLE documents; --',
      "\u0000\u0001\u001f",
      "\ud800 lone surrogate",
      "e\u0301\u0301\u0301 combining",
      "مرحبا بالعالم",
      "🙂 rank 🚀 fusion 👨‍👩‍👧",
      "x".repeat(2_000),
      "rank ".repeat(400),
    ];
    // A seeded stream of random code points, with FTS5's special characters over-represented.
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const specials = ['"', "*", "(", ")", ":", "-", "^", "+", "{", "}", " ", "'", "."];
    for (let i = 0; i < 200; i++) {
      let s = "";
      for (let j = 0; j < 1 + (next() % 40); j++) {
        s +=
          next() % 3 === 0
            ? (specials[next() % specials.length] ?? "")
            : String.fromCodePoint(next() % 0x3000);
      }
      hostile.push(s);
    }
    for (const query of hostile) {
      const hits = await store.searchLex(query, { limit: 5 });
      expect(Array.isArray(hits), query).toBe(true);
      for (const hit of hits) expect(hit.score).toBeGreaterThanOrEqual(0);
    }
    expect(ids(await store.searchLex("rank ".repeat(400)))[0]).toBe(
      "concepts/reciprocal-rank-fusion",
    );
  });

  it("keeps the rarest terms of a long pasted prompt", async () => {
    const filler = Array.from({ length: 120 }, (_, i) => `word${i} page notes text`).join(" ");
    const prompt = `${filler.slice(0, 900)} xylophone ${filler.slice(900, 1_900)}`;
    expect(prompt.length).toBeLessThanOrEqual(2_000);
    expect(ids(await store.searchLex(prompt))[0]).toBe("concepts/long-page");
  });

  it("sees a changed page after update of its collection, and forgets a deleted one", async () => {
    expect(await store.searchLex("pumpernickel")).toEqual([]);
    writePage(
      "canonical/concepts/rag.md",
      "# Retrieval-augmented generation\n\nRAG retrieves wiki pages; now with pumpernickel.\n",
    );
    const changed = await store.update({ collections: ["canonical"] });
    expect(changed).toMatchObject({ indexed: 0, updated: 1, removed: 0 });
    expect(ids(await store.searchLex("pumpernickel"))).toEqual(["concepts/rag"]);

    unlinkSync(join(root, "vault", "evidence", "sources", "lunch-menu.md"));
    const removed = await store.update({ collections: ["evidence"] });
    expect(removed).toMatchObject({ removed: 1 });
    expect(await store.searchLex("olives soup")).toEqual([]);
    await expect(store.update({ collections: ["nope"] })).rejects.toThrow(/unknown collection/);
  });

  it("reports status per collection without loading a model", async () => {
    const dir = join(root, "status-vault");
    const page = (relative: string, text: string) => {
      mkdirSync(dirname(join(dir, relative)), { recursive: true });
      writeFileSync(join(dir, relative), text);
    };
    page("canonical/concepts/one.md", "# One\n\nThe first page.\n");
    page("canonical/twins/a-twin.md", "# Twin\n\nIdentical twin page.\n");
    page("canonical/twins/b-twin.md", "# Twin\n\nIdentical twin page.\n");
    page("evidence/sources/only.md", "# Only\n\nThe one evidence page.\n");
    const own = await openQmdStore({
      dbPath: join(root, "index", "status.sqlite"),
      collections: [
        { name: "canonical", dir: join(dir, "canonical"), role: "canonical" },
        { name: "evidence", dir: join(dir, "evidence"), role: "evidence" },
      ],
      models: resolveModels({}),
    });
    await own.update();
    const status = await own.status();
    await own.close();
    expect(status.collections).toEqual([
      { name: "canonical", documents: 3 },
      { name: "evidence", documents: 1 },
    ]);
    expect(status.documents).toBe(4);
    expect(status.hasVectors).toBe(false);
    // Vectors are per content: the twin pages share one.
    expect(status.needsEmbedding).toBe(3);
    expect(status.vectorModel).toBeUndefined();
    expect(cacheEntries()).toEqual(cacheBefore);
  });
});

describe("lexical-first (a hook's store)", () => {
  it("answers lexical searches as the QMD store does (read with Node's own SQLite, not QMD's driver), and opens QMD for anything else", async () => {
    const dir = join(root, "lexical-first");
    const page = (relative: string, text: string) => {
      mkdirSync(dirname(join(dir, relative)), { recursive: true });
      writeFileSync(join(dir, relative), text);
    };
    const words = Array.from({ length: 6 }, (_, i) => `${randomWord()}${i}`);
    words.forEach((w, i) => {
      page(`canonical/concepts/p${i}.md`, `# Page ${w}\n\nAbout ${w} and ${words[(i + 1) % 6]}.\n`);
    });
    const spec = {
      dbPath: join(root, "index", "lexical-first.sqlite"),
      collections: [{ name: "canonical", dir: join(dir, "canonical"), role: "canonical" as const }],
      models: resolveModels({}),
    };
    const full = await openQmdStore(spec);
    await full.update();
    const first = await openQmdStore({ ...spec, lexicalFirst: true });
    try {
      for (const query of [...words, `${words[0]} ${words[3]}`, randomWord()]) {
        expect(await first.searchLex(query), query).toEqual(await full.searchLex(query));
      }
      // Anything but a lexical search is QMD's: its status, then a write through it.
      expect(await first.status()).toEqual(await full.status());
      const fresh = randomWord(12, 14);
      page("canonical/concepts/p0.md", `# Page ${words[0]}\n\nNow about ${fresh}.\n`);
      expect(await first.update()).toMatchObject({ updated: 1 });
      // Lexical searches after a write see it.
      expect(ids(await first.searchLex(fresh))).toEqual(["concepts/p0"]);
    } finally {
      await first.close();
      await full.close();
    }
    await expect(first.searchLex(words[1] ?? "")).rejects.toThrow(/closed/);
    await first.close();
  });

  it("keeps its read-only store in a reader pool: the same answers from one opening to the next, another connection's write seen, a gone file's store closed", async () => {
    const dir = join(root, "reader-pool");
    const page = (relative: string, text: string) => {
      mkdirSync(dirname(join(dir, relative)), { recursive: true });
      writeFileSync(join(dir, relative), text);
    };
    const words = Array.from({ length: 5 }, (_, i) => `${randomWord()}${i}`);
    words.forEach((w, i) => {
      page(`canonical/concepts/p${i}.md`, `# Page ${w}\n\nAbout ${w} and ${words[(i + 1) % 5]}.\n`);
    });
    const spec = {
      dbPath: join(root, "index", "reader-pool.sqlite"),
      collections: [{ name: "canonical", dir: join(dir, "canonical"), role: "canonical" as const }],
      models: resolveModels({}),
    };
    const full = await openQmdStore(spec);
    await full.update();
    const readers = createReaderPool();
    try {
      // A service's store, closed at its end as a hook's is; the next opening reads on.
      for (let round = 0; round < 2; round += 1) {
        const pooled = await openQmdStore({ ...spec, lexicalFirst: true, readers });
        for (const query of [...words, `${words[0]} ${words[2]}`, randomWord()])
          expect(await pooled.searchLex(query), query).toEqual(await full.searchLex(query));
        await pooled.close();
      }
      // Written by another connection (another process's reindex) while the pool kept its store.
      const fresh = randomWord(12, 14);
      page("canonical/concepts/p1.md", `# Page ${words[1]}\n\nNow about ${fresh}.\n`);
      expect(await full.update()).toMatchObject({ updated: 1 });
      const after = await openQmdStore({ ...spec, lexicalFirst: true, readers });
      expect(ids(await after.searchLex(fresh))).toEqual(["concepts/p1"]);
      expect(await after.searchLex(words[1] ?? "")).toEqual(await full.searchLex(words[1] ?? ""));
      await after.close();
      // The kept store is lent again, not reopened; once its file is gone (a
      // retired generation), the next lease closes it.
      const lent = readers.lease(spec.dbPath, ["canonical"], () => undefined);
      expect(lent).toBeDefined();
      await lent?.release();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${spec.dbPath}${suffix}`, { force: true });
      expect(
        readers.lease(join(dir, "none.sqlite"), ["canonical"], () => undefined),
      ).toBeUndefined();
      await expect(lent?.store.searchLex(fresh)).rejects.toThrow(/closed/);
    } finally {
      await readers.close();
      await full.close();
    }
  });

  it("opens QMD at once for an index that does not exist yet (a new generation)", async () => {
    const store = await openQmdStore({
      dbPath: join(root, "index", "lexical-first-new.sqlite"),
      collections,
      models: resolveModels({}),
      lexicalFirst: true,
    });
    try {
      expect(await store.update()).toMatchObject({ indexed: expect.any(Number) });
      expect(ids(await store.searchLex("zettelkasten"))).toEqual(["concepts/zettelkasten"]);
    } finally {
      await store.close();
    }
  });
});

describe("buildLexQuery", () => {
  it("drops stop words, quotes every term and ORs them", () => {
    const query = buildLexQuery("What is Reciprocal Rank Fusion?");
    expect(query?.terms.map((t) => t.text)).toEqual(["reciprocal", "rank", "fusion"]);
    // Adjacent words also search written together, as the index holds a camelCase name.
    expect(query?.match).toBe(
      '"reciprocal" OR "reciprocalrank" OR "reciprocalrankfusion" OR "rank" OR "rankfusion" OR "fusion"',
    );
  });

  it("keeps identifiers as phrases plus their word parts, and CJK as bigram phrases", () => {
    expect(buildLexQuery("wiki_reindex")?.match).toBe('"wiki_reindex" OR "wiki" OR "reindex"');
    expect(buildLexQuery("v1.0.21")?.match).toBe('"v1.0.21"');
    expect(buildLexQuery("召回")?.match).toBe('"召 回"');
    expect(buildLexQuery("API接口")?.match).toBe('"api" OR "接 口"');
    expect(buildLexQuery("the QMD's")?.match).toBe('"qmd"');
    expect(buildLexQuery("and/or the")).toBeNull();
  });
});

describe("collections", () => {
  it("drops pages of a collection the store no longer has", async () => {
    const dbPath = join(root, "index", "reopen.sqlite");
    const both = await openQmdStore({ dbPath, collections, models: resolveModels({}) });
    await both.update();
    expect((await both.searchLex("召回")).length).toBeGreaterThan(0);
    await both.close();
    const [canonicalOnly] = collections;
    const one = await openQmdStore({
      dbPath,
      collections: canonicalOnly ? [canonicalOnly] : [],
      models: resolveModels({}),
    });
    expect(await one.searchLex("召回")).toEqual([]);
    expect((await one.status()).collections.map((c) => c.name)).toEqual(["canonical"]);
    await one.close();
    await expect(one.searchLex("rank")).rejects.toThrow(/closed/);
  });

  it("rejects invalid collection specs", async () => {
    const models = resolveModels({});
    const dbPath = join(root, "index", "invalid.sqlite");
    await expect(
      openQmdStore({
        dbPath,
        models,
        collections: [{ name: "a/b", dir: root, role: "canonical" }],
      }),
    ).rejects.toThrow(/invalid collection name/);
    await expect(
      openQmdStore({ dbPath, models, collections: [{ name: "a", dir: "rel", role: "canonical" }] }),
    ).rejects.toThrow(/absolute/);
  });
});

describe("model paths without their models", () => {
  it("fail with ModelUnavailableError and never start a download", async () => {
    const missing = join(root, "no-such-model.gguf");
    const offline = await openQmdStore({
      dbPath: join(root, "index", "offline.sqlite"),
      collections,
      // Embed points at a missing file; rerank and generate are QMD's hf: defaults, not cached.
      models: resolveModels({ embed: missing }, offlineEnv),
    });
    await offline.update();
    const typed = offline.searchTyped("reciprocal rank fusion");
    await expect(typed).rejects.toBeInstanceOf(ModelUnavailableError);
    await expect(typed).rejects.toMatchObject({
      code: "model_unavailable",
      role: "embed",
      model: missing,
    });
    await expect(offline.embed()).rejects.toMatchObject({ code: "model_unavailable" });
    await expect(offline.searchVector("rank")).rejects.toMatchObject({ role: "embed" });
    await expect(offline.searchExpanded("reciprocal rank fusion")).rejects.toMatchObject({
      code: "model_unavailable",
    });
    expect(cacheEntries()).toEqual(cacheBefore);
    // The lexical path of the same store still works.
    expect(ids(await offline.searchLex("reciprocal rank fusion"))[0]).toBe(
      "concepts/reciprocal-rank-fusion",
    );
    await offline.close();
  });
});

// ---------------------------------------------------------------------------
// With the tiny generated models
// ---------------------------------------------------------------------------

describe("model paths with local test models", () => {
  let models: ReturnType<typeof resolveModels>;
  let modelStore: QmdStore;
  let savedCi: string | undefined;
  let pending: number;
  // The one embedding run, shared by every test that needs vectors, whichever runs first.
  const progress: Array<{ done: number; total: number }> = [];
  let embedding: Promise<QmdEmbedResult> | undefined;
  const embedded = () => {
    embedding ??= modelStore.embed({ onProgress: (p) => progress.push(p) });
    return embedding;
  };
  const savedModelVars = MODEL_VARS.map((name) => process.env[name]);
  const gpuVars = GPU_ENV_VARS.map((name) => [name, process.env[name]] as const);

  beforeAll(async () => {
    models = resolveModels(await ensureTestModels(), {});
    // The suite's environment names the test models too; clear it so only the
    // adapter's own handling can hand QMD its models.
    for (const name of MODEL_VARS) delete process.env[name];
    // QMD refuses LLM work when CI is set; the adapter must not let that decide.
    savedCi = process.env.CI;
    process.env.CI = "true";
    modelStore = await openQmdStore({
      dbPath: join(root, "index", "models.sqlite"),
      collections,
      models,
    });
    await modelStore.update();
    pending = (await modelStore.status()).needsEmbedding;
  });

  afterAll(async () => {
    await modelStore?.close();
    if (savedCi === undefined) delete process.env.CI;
    else process.env.CI = savedCi;
    MODEL_VARS.forEach((name, i) => {
      const value = savedModelVars[i];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    });
  });

  // Checked after every model call of this block, not before the first one.
  afterEach(() => {
    // The adapter leaves QMD_*_MODEL, QMD's build variables and CI as it found them.
    for (const name of MODEL_VARS) expect(process.env[name], name).toBeUndefined();
    for (const [name, value] of gpuVars) expect(process.env[name], name).toBe(value);
    expect(process.env.CI).toBe("true");
  });

  // QMD chunks with a process-wide model that reads only QMD_EMBED_MODEL: had
  // the adapter not set it during embed, this would try to download QMD's default.
  it("embeds every page, with progress, and status reports the vectors", async () => {
    const result = await embedded();
    const before = await modelStore.status();
    expect(pending).toBeGreaterThan(0);
    expect(result.embedded).toBe(pending);
    expect(result.chunks).toBeGreaterThanOrEqual(result.embedded);
    expect(result.errors).toBe(0);
    expect(progress.at(-1)?.done).toBe(progress.at(-1)?.total);
    expect(before).toMatchObject({
      hasVectors: true,
      needsEmbedding: 0,
      vectorModel: models.embed.uri,
    });
    expect((await modelStore.embed()).embedded).toBe(0);
  });

  it("searchVector returns QMD's vector list with cosine similarity as confidence", async () => {
    await embedded();
    const hits = await modelStore.searchVector("reciprocal rank fusion merges ranked lists", {
      limit: 3,
    });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]?.score).toBe(1);
    for (const hit of hits) {
      expect(hit.source).toBe("vec");
      expect(hit.confidence).toBe(Math.max(0, Math.min(1, hit.rawScore)));
      expect(hit.bestChunk?.length ?? 0).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    }
    expect(ids(hits)).toContain("concepts/reciprocal-rank-fusion");
  });

  it("searchTyped fuses the lexical and the vector list", async () => {
    await embedded();
    const hits = await modelStore.searchTyped("what is reciprocal rank fusion", { limit: 4 });
    expect(hits[0]).toMatchObject({
      pageId: "concepts/reciprocal-rank-fusion",
      role: "canonical",
      score: 1,
      source: "hybrid",
    });
    expect(hits.length).toBeLessThanOrEqual(4);
    for (const hit of hits) {
      expect(hit.score).toBeGreaterThan(0);
      expect(hit.score).toBeLessThanOrEqual(1);
      expect(hit.confidence).toBeGreaterThan(0);
      expect(hit.confidence).toBeLessThanOrEqual(1);
      expect(hit.bestChunk?.length ?? 0).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    }
    expect(new Set(hits.map((h) => h.source)).has("vec")).toBe(true);
    const hostile = await modelStore.searchTyped('-"unterminated (NEAR\nnewline -x', { limit: 3 });
    expect(Array.isArray(hostile)).toBe(true);
  });

  it("searchExpanded runs QMD's expansion and rerank with an intent", async () => {
    await embedded();
    const hits = await modelStore.searchExpanded("how are ranked lists merged", {
      intent: "search result ranking",
      limit: 3,
      candidateLimit: 10,
    });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]?.score).toBe(1);
    for (const hit of hits) {
      expect(hit.confidence).toBeGreaterThanOrEqual(0);
      expect(hit.confidence).toBeLessThanOrEqual(1);
    }
    expect(ids(hits)).toContain("concepts/reciprocal-rank-fusion");
  });

  it("stops at once on an aborted signal", async () => {
    await embedded();
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(modelStore.embed({ signal: controller.signal, force: true })).rejects.toThrow(
      "stop",
    );
    await expect(modelStore.searchTyped("rank", { signal: controller.signal })).rejects.toThrow(
      "stop",
    );
    expect((await modelStore.status()).needsEmbedding).toBe(0);
  });

  it("hands QMD the cached file of an hf: model found in a cache QMD does not read", async () => {
    const otherCache = join(root, "other-cache");
    const uri = "hf:test/tiny-embed-GGUF/tiny-embed.gguf";
    const [name] = hfCacheFileNames(uri);
    mkdirSync(join(otherCache, "qmd", "models"), { recursive: true });
    copyFileSync(models.embed.uri, join(otherCache, "qmd", "models", name ?? "missing"));
    const elsewhere = resolveModels(
      { embed: uri, rerank: models.rerank.uri, generate: models.generate.uri },
      { XDG_CACHE_HOME: otherCache },
    );
    expect(elsewhere.cacheDir).not.toBe(modelCache);
    const small = await openQmdStore({
      dbPath: join(root, "index", "other-cache.sqlite"),
      collections: collections.slice(1),
      models: elsewhere,
    });
    await small.update();
    await small.embed();
    expect((await small.status()).vectorModel).toBe(
      join(otherCache, "qmd", "models", name ?? "missing"),
    );
    await small.close();
    expect(cacheEntries()).toEqual(cacheBefore);
  });

  it("writes nothing to stdout from any model path (an MCP stdio stream must stay clean)", () => {
    const script = join(root, "stdout-child.ts");
    const adapter = join(import.meta.dirname, "..", "extensions", "llm-wiki", "lib", "index");
    writeFileSync(
      script,
      `
import { resolveModels } from ${JSON.stringify(join(adapter, "models.ts"))};
import { openQmdStore } from ${JSON.stringify(join(adapter, "qmd-store.ts"))};
const hostWrite = process.stdout.write;
const store = await openQmdStore({
  dbPath: ${JSON.stringify(join(root, "index", "child.sqlite"))},
  collections: ${JSON.stringify(collections)},
  models: resolveModels(${JSON.stringify({ embed: models.embed.uri, rerank: models.rerank.uri, generate: models.generate.uri })}),
});
await store.update();
await store.embed();
await store.searchLex("reciprocal rank fusion");
await store.searchVector("reciprocal rank fusion");
await store.searchTyped("reciprocal rank fusion");
// Protocol written by the host while a model call runs must still reach stdout.
let lines = 0;
const protocol = () => { lines += 1; process.stdout.write("PROTOCOL\\n"); };
const ticker = setInterval(protocol, 5);
await store.searchExpanded("how are ranked lists merged", { intent: "ranking" });
clearInterval(ticker);
protocol();
const offline = await openQmdStore({
  dbPath: ${JSON.stringify(join(root, "index", "child-offline.sqlite"))},
  collections: ${JSON.stringify(collections)},
  models: resolveModels({}, ${JSON.stringify(offlineEnv)}),
});
await offline.update();
await offline.searchTyped("rank").catch((error) => process.stderr.write("refused: " + error.code + "\\n"));
await offline.close();
await store.close();
process.stderr.write("stdout.write restored: " + (process.stdout.write === hostWrite) + "\\n");
process.stderr.write("child done, protocol lines: " + lines + "\\n");
`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, CI: "true" };
    for (const name of MODEL_VARS) delete env[name];
    const child = spawnSync(process.execPath, [script], {
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stderr).toContain("refused: model_unavailable");
    expect(child.stderr).toContain("stdout.write restored: true");
    const written = Number(/protocol lines: (\d+)/.exec(child.stderr)?.[1]);
    expect(written).toBeGreaterThan(1);
    // Every line the host wrote, and nothing from QMD or node-llama-cpp.
    expect(child.stdout).toBe("PROTOCOL\n".repeat(written));
  });
});

describe("reopening an index with other collections", () => {
  it("drops the collections no longer asked for and follows a collection's new folder", async () => {
    const base = mkdtempSync(join(root, "reopen-"));
    const page = (dir: string, name: string, word: string) => {
      mkdirSync(join(base, dir), { recursive: true });
      writeFileSync(join(base, dir, `${name}.md`), `---\ntitle: ${name}\n---\n${word} text\n`);
    };
    const [kept, moved, dropped] = [randomWord(8, 12), randomWord(8, 12), randomWord(8, 12)];
    page("a", "first", kept);
    page("b", "second", dropped);
    page("a2", "third", moved);
    const dbPath = join(base, "index.sqlite");
    const models = resolveModels({});
    const first: QmdCollectionSpec[] = [
      { name: "alpha", dir: join(base, "a"), role: "canonical" },
      { name: "beta", dir: join(base, "b"), role: "evidence" },
    ];
    const before = await openQmdStore({
      dbPath,
      models,
      collections: first,
    });
    await before.update();
    expect(ids(await before.searchLex(dropped))).toEqual(["second"]);
    await before.close();
    // The same collections again: the open writes nothing (a reader's open stays a read).
    const bytes = readFileSync(dbPath);
    const same = await openQmdStore({
      dbPath,
      models,
      collections: first,
    });
    await same.close();
    expect(readFileSync(dbPath).equals(bytes)).toBe(true);

    const after = await openQmdStore({
      dbPath,
      models,
      collections: [{ name: "alpha", dir: join(base, "a2"), role: "canonical" }],
    });
    try {
      await after.update();
      expect(ids(await after.searchLex(moved))).toEqual(["third"]);
      expect(await after.searchLex(kept)).toEqual([]);
      expect(await after.searchLex(dropped)).toEqual([]);
    } finally {
      await after.close();
    }
  });
});
