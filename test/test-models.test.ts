/**
 * Specification of the generated test models: they are deterministic, and the
 * real QMD SDK embeds, searches, expands and reranks with them offline, fast,
 * without downloading anything. The only test allowed to import QMD directly.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { QMDStore } from "@tobilu/qmd";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { capLlamaThreads } from "../extensions/llm-wiki/lib/index/llama-threads.ts";
import {
  ensureTestModels,
  ensureTestModelsSync,
  type TestModelPaths,
} from "../scripts/generate-test-models.ts";

const sha256 = (path: string): string =>
  createHash("sha256").update(readFileSync(path)).digest("hex");

const NAMES = ["embed", "rerank", "generate"] as const;

const NOTES: Record<string, string> = {
  "database-migrations.md":
    "# Database migrations\n\nEvery schema migration ships with a rollback script.\n" +
    "Run the migration on staging first, then on the production database.\n",
  "authentication.md":
    "# Authentication\n\nLogin issues a session token; the token expires after one hour.\n" +
    "Refresh the token before it expires.\n",
  "coffee.md": "# Coffee\n\nThe cat sat on the keyboard while the coffee machine was brewing.\n",
  "deploy.md":
    "# Deploy\n\nBuild the docker image, push it to the registry, then restart the service.\n",
};

describe("generated test models", () => {
  let root: string;
  let models: TestModelPaths;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "llm-wiki-test-models-"));
    models = await ensureTestModels();
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("are written byte-identically on every run", () => {
    const first = ensureTestModelsSync(join(root, "gen-a"));
    const second = ensureTestModelsSync(join(root, "gen-b"));
    expect(first.written).toEqual(["embed", "rerank", "generate"]);
    for (const name of NAMES) {
      const hash = sha256(first.paths[name]);
      expect(sha256(second.paths[name])).toBe(hash);
      expect(sha256(models[name])).toBe(hash);
    }
  });

  it("are not rewritten when up to date, and repaired when changed", () => {
    const dir = join(root, "gen-repair");
    const { paths } = ensureTestModelsSync(dir);
    expect(ensureTestModelsSync(dir).written).toEqual([]);
    const good = sha256(paths.rerank);
    writeFileSync(paths.rerank, "not a model");
    expect(ensureTestModelsSync(dir).written).toEqual(["rerank"]);
    expect(sha256(paths.rerank)).toBe(good);
  });

  it("are small GGUF files at absolute paths", () => {
    for (const name of NAMES) {
      const path = models[name];
      expect(path.startsWith("/")).toBe(true);
      const bytes = readFileSync(path);
      expect(bytes.subarray(0, 4).toString("latin1")).toBe("GGUF");
      expect(bytes.length).toBeLessThan(4_000_000);
    }
  });
});

describe("QMD with the generated test models", () => {
  const saved = new Map<string, string | undefined>();
  const setEnv = (key: string, value: string | undefined) => {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };

  let root: string;
  let modelCache: string;
  let store: QMDStore;
  // The one embedding run, shared by every test that needs vectors, whichever runs first.
  let embedding: ReturnType<QMDStore["embed"]> | undefined;
  const embedded = () => {
    embedding ??= store.embed();
    return embedding;
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "llm-wiki-qmd-models-"));
    const models = await ensureTestModels();
    // QMD fixes its model cache dir when its module loads, and its LLM object
    // reads CI when created: both must be set before the dynamic import below.
    const xdg = join(root, "xdg-cache");
    modelCache = join(xdg, "qmd", "models");
    setEnv("XDG_CACHE_HOME", xdg);
    setEnv("CI", undefined);
    // The env vars, not config.models: QMD chunks with a process-wide model
    // that only reads QMD_EMBED_MODEL.
    setEnv("QMD_EMBED_MODEL", models.embed);
    setEnv("QMD_RERANK_MODEL", models.rerank);
    setEnv("QMD_GENERATE_MODEL", models.generate);
    // Two single-thread contexts instead of one two-thread one: on a busy
    // 2-core machine ggml's spinning threads make each decode 10-100x slower.
    setEnv("QMD_EMBED_PARALLELISM", "2");

    const notes = join(root, "notes");
    mkdirSync(notes);
    for (const [file, body] of Object.entries(NOTES)) writeFileSync(join(notes, file), body);

    const { createStore } = await import("@tobilu/qmd");
    store = await createStore({
      dbPath: join(root, "index.sqlite"),
      config: { collections: { notes: { path: notes, pattern: "**/*.md" } } },
    });
    const updated = await store.update();
    expect(updated.indexed).toBe(Object.keys(NOTES).length);
  });

  afterAll(async () => {
    await store?.close();
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(root, { recursive: true, force: true });
  });

  // After every model call: no model was downloaded.
  afterEach(() => {
    const files = existsSync(modelCache) ? readdirSync(modelCache) : [];
    expect(files).toEqual([]);
  });

  it("embeds every document", async () => {
    const result = await embedded();
    expect(result.errors).toBe(0);
    expect(result.chunksEmbedded).toBeGreaterThanOrEqual(Object.keys(NOTES).length);
    const status = await store.getStatus();
    expect(status.needsEmbedding).toBe(0);
    expect(status.hasVectorIndex).toBe(true);
  });

  it("ranks a note sharing the query's words above unrelated ones", async () => {
    await embedded();
    const hits = await store.searchVector("database migration rollback");
    expect(hits[0]?.displayPath).toBe("notes/database-migrations.md");
    const coffee = hits.find((h) => h.displayPath === "notes/coffee.md");
    expect(hits[0]?.score ?? 0).toBeGreaterThan(coffee?.score ?? 0);
  });

  it("answers typed lex + vec queries without reranking", async () => {
    await embedded();
    const results = await store.search({
      queries: [
        { type: "lex", query: "token" },
        { type: "vec", query: "session token expires" },
      ],
      rerank: false,
    });
    expect(results[0]?.displayPath).toBe("notes/authentication.md");
  });

  it("expands a query, falling back to QMD's own expansion", async () => {
    const expanded = await store.expandQuery("how do we undo a schema change");
    expect(expanded.length).toBeGreaterThan(0);
    for (const q of expanded) expect(["lex", "vec", "hyde"]).toContain(q.type);
  });

  it("expands with the llama.cpp threads llm-wiki caps it at (node-llama-cpp would take at least four)", async () => {
    const llm = store.internal.llm;
    capLlamaThreads(llm, 1);
    const expanded = await store.expandQuery("which note says how to roll back a migration");
    expect(expanded.length).toBeGreaterThan(0);
    const runtime = (llm as unknown as { llama?: { maxThreads: number } } | undefined)?.llama;
    expect(runtime?.maxThreads).toBe(1);
    // The runtime may be node-llama-cpp's shared one: leave it as llm-wiki's own stores set it.
    if (runtime) runtime.maxThreads = availableParallelism();
  });

  it("runs the full pipeline with expansion and reranking", async () => {
    await embedded();
    // Words not all in one note: no strong lexical hit, so QMD expands the query.
    const results = await store.search({
      query: "rollback the staging database docker",
      rerank: true,
      explain: true,
    });
    expect(results.length).toBeGreaterThan(0);
    const score = (file: string) =>
      results.find((r) => r.displayPath === file)?.explain?.rerankScore ?? 0;
    // The reranker scores word overlap: the migration note holds three query words.
    expect(score("notes/database-migrations.md")).toBeGreaterThan(0.5);
    expect(score("notes/database-migrations.md")).toBeGreaterThan(score("notes/coffee.md"));
  });
});
