/**
 * The engine adapter: the ONLY module that imports `@tobilu/qmd`. Everything
 * it exports is SDK-free, so other modules may import its types and never a
 * QMD one.
 *
 * Search paths, cheapest first:
 * - `searchLex`: model-free BM25 over QMD's own `documents_fts` with an OR of
 *   the query's terms (QMD's `searchLex` ANDs them, so a question whose words
 *   are not all in one page finds nothing). One statement prepared per store.
 * - `searchVector`: QMD's vector list alone; `searchTyped`: the lexical list
 *   fused by reciprocal rank with it (no expansion, no rerank). Embed model.
 * - `searchExpanded`: QMD's full pipeline (LLM expansion + rerank, with intent).
 *
 * Process-wide effects, confined to this module and qmd-process-guards.ts:
 * - `QMD_EMBED_MODEL` / `QMD_RERANK_MODEL` / `QMD_GENERATE_MODEL` hold the
 *   store's models while QMD creates the store's LLM object and while
 *   `embed()` runs, and are restored afterwards. `embed()` chunks documents
 *   with QMD's process-wide default LLM object, which reads only these
 *   variables, once, when the first embed of the process creates it; without
 *   them it would tokenise with (and download) QMD's default model. Once it
 *   exists it keeps that first model: a later store with another embed model
 *   gets chunk sizes counted with the first one's tokenizer (vectors still
 *   come from the store's own model).
 * - `CI` is cleared while QMD creates the store's LLM object (which reads it
 *   once) and restored at once: whether model paths run is decided here, from
 *   model availability, not by an ambient variable.
 * - While a model call runs, writes to stdout made from inside that call are
 *   routed to stderr (an MCP stdio stream must carry protocol only); writes
 *   from any other async context pass through untouched.
 * - The llama.cpp runtime a store's LLM object loads gets no more threads
 *   than the machine has cores (llama-threads.ts).
 * - `QMD_LLAMA_GPU=false` is set while QMD starts loading a llama.cpp runtime
 *   (the store's LLM object's load, and `embed()`) when no installed GPU
 *   build can start here and the user set none (llama-backend.ts).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute } from "node:path";
import type { QMDStore } from "@tobilu/qmd";
import { makeDirs } from "../vault/fs-safe.ts";
import { deferDurability } from "./bulk-load.ts";
import { documentLoadWorker, startDocumentLoad } from "./document-load.ts";
import { buildLexQuery, type LexTerm } from "./lex-query.ts";
import { lazyBackendEnv } from "./llama-backend.ts";
import { capLlamaThreads } from "./llama-threads.ts";
import { modelRuntime } from "./model-runtime.ts";
import {
  type ModelRole,
  modelAvailability,
  modelFileAvailability,
  qmdModelCacheDir,
  type ResolvedModels,
  requireModels,
} from "./models.ts";
import { nodeSqliteReader } from "./node-sqlite.ts";
import { createDocumentWriter, mergeFullText } from "./qmd-documents.ts";
import {
  boundExcerpt,
  type Candidate,
  clampLimit,
  fuse,
  normalise,
  plainQuery,
} from "./qmd-excerpts.ts";
import { createHeldHashes } from "./qmd-held-hashes.ts";
import { createLexicalSearch } from "./qmd-lexical.ts";
import { lexicalFirstStore } from "./qmd-lexical-first.ts";
import {
  abortable,
  loadRuntimeWithEnv,
  modelCall,
  withEnv,
  withModelEnv,
  withoutCi,
  withStdoutToStderr,
} from "./qmd-process-guards.ts";
import {
  createReadOnlyStore,
  openReadOnlyDatabase,
  type SqliteConnection,
  type SqliteConstructor,
} from "./qmd-read-only.ts";
import type { QmdCollectionSpec, QmdHit, QmdStore, QmdStoreOptions } from "./qmd-store-types.ts";
import type { ReaderLease, ReaderPool } from "./reader-pool.ts";

// Re-exported for callers that hold a store anyway; models.ts has it without loading QMD.
export { ModelUnavailableError } from "./models.ts";
export { EXCERPT_MAX_CHARS } from "./qmd-excerpts.ts";
export { IndexReadOnlyError } from "./qmd-read-only.ts";

export type {
  CollectionRole,
  QmdCollectionSpec,
  QmdEmbedResult,
  QmdHit,
  QmdStatus,
  QmdStore,
  QmdStoreOptions,
  QmdUpdateResult,
  TermMatch,
} from "./qmd-store-types.ts";

const DEFAULT_LIMIT = 10;
/** Files of a mirror collection. */
const MIRROR_PATTERN = "**/*.md";
const DEFAULT_CANDIDATES = 40;
/** Characters of a page body taken from a vector hit's chunk start (QMD chunks are ~900 tokens). */
const CHUNK_SPAN = 3_600;

/** QMD's entry and the model cache folder its evaluation fixed. */
interface QmdEngine {
  createStore: typeof import("@tobilu/qmd").createStore;
  cacheDir: string;
  /** What to set while QMD loads a runtime; once per process, or a store would take another's setting for the user's. */
  buildEnv: () => Record<string, string>;
}

let engine: Promise<QmdEngine> | undefined;

/**
 * QMD itself, loaded by the first store that needs it rather than with this
 * module: its root pulls yaml, fast-glob and picomatch (most of a fresh
 * process's module loading), which a lexical-first store never needs.
 */
function loadQmd(): Promise<QmdEngine> {
  engine ??= (async () => {
    // QMD reads XDG_CACHE_HOME once, when its llm.js is first evaluated: that is now.
    const cacheDir = qmdModelCacheDir(process.env);
    const { createStore } = await import("@tobilu/qmd");
    return { createStore, cacheDir, buildEnv: lazyBackendEnv() };
  })();
  return engine;
}

/**
 * Starts loading QMD now, without waiting: a host that will open a store
 * (Pi at session start, the MCP server, the CLI) pays for the modules while
 * it does other work, as when QMD was loaded with this module. A failure is
 * seen by the first store that opens.
 */
export function preloadQmd(): void {
  loadQmd().catch(() => undefined);
}

/**
 * Without the model runtime (a lean install) QMD warns on stderr at every
 * store open that sqlite-vec's extension is missing; lexical work needs no
 * extension, and a model path says so itself (model_unavailable, with the
 * repair). Only that one warning is held back, only then.
 */
async function withoutVecWarning<T>(open: () => Promise<T>): Promise<T> {
  if (modelRuntime().available) return open();
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes("sqlite-vec")) warn(...args);
  };
  try {
    return await open();
  } finally {
    console.warn = warn;
  }
}

/**
 * `hf:` models are handed to QMD as URIs only when QMD looks in the same cache
 * we checked; otherwise as the file we found, so QMD never resolves (and never
 * downloads) a file we did not see.
 */
function modelsForQmd(models: ResolvedModels, qmdCacheDir: string): ResolvedModels {
  if (models.cacheDir === qmdCacheDir) return models;
  const found = modelFileAvailability(models);
  const one = (role: ModelRole) => {
    const path = found[role].path;
    return models[role].kind === "hf" && path
      ? { ...models[role], uri: path, kind: "file" as const }
      : models[role];
  };
  return {
    embed: one("embed"),
    rerank: one("rerank"),
    generate: one("generate"),
    cacheDir: qmdCacheDir,
  };
}

// ---------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------

function specsOf(collections: QmdCollectionSpec[]): Map<string, QmdCollectionSpec> {
  const specs = new Map<string, QmdCollectionSpec>();
  for (const spec of collections) {
    if (!/^[A-Za-z0-9_-]+$/.test(spec.name))
      throw new TypeError(`invalid collection name "${spec.name}"`);
    if (!isAbsolute(spec.dir))
      throw new TypeError(`collection "${spec.name}" needs an absolute dir`);
    if (specs.has(spec.name)) throw new TypeError(`duplicate collection "${spec.name}"`);
    specs.set(spec.name, spec);
  }
  return specs;
}

/**
 * Opens (creating if needed) the index at `dbPath` with exactly these
 * collections. `lexicalFirst` (an index that exists): see `lexicalFirstStore`.
 */
export async function openQmdStore(
  opts: QmdStoreOptions & { lexicalFirst?: boolean; readers?: ReaderPool },
): Promise<QmdStore> {
  const specs = specsOf(opts.collections);
  if (opts.lexicalFirst && existsSync(opts.dbPath)) {
    const openReadOnly = () => {
      const db = openReader(opts.dbPath);
      return db ? createReadOnlyStore(db, specs) : undefined;
    };
    // A pool's store outlives this one (a warm hook process's next request reads it again).
    const lease = opts.readers
      ? opts.readers.lease(opts.dbPath, [...specs.keys()], openReadOnly)
      : ownLease(openReadOnly());
    if (lease) return lexicalFirstStore(lease, () => openFullStore(opts, specs));
  }
  return openFullStore(opts, specs);
}

/** `store` lent to its one user, closed when released. */
function ownLease(store: QmdStore | undefined): ReaderLease | undefined {
  return store && { store, release: () => store.close() };
}

/** The index opened through QMD: every path, writes and models included. */
async function openFullStore(
  opts: QmdStoreOptions,
  specs: Map<string, QmdCollectionSpec>,
): Promise<QmdStore> {
  const { createStore, cacheDir, buildEnv } = await loadQmd();
  const models = modelsForQmd(opts.models, cacheDir);
  makeDirs(dirname(opts.dbPath));
  if (!existsSync(opts.dbPath)) createIndexFile(opts.dbPath);
  // DB-only mode: an inline `config` would install a process-wide config source in QMD.
  const qmd: QMDStore = await withModelEnv(models, () =>
    withoutCi(() => withoutVecWarning(() => createStore({ dbPath: opts.dbPath }))),
  );
  try {
    // The registered collections as stored, not `listCollections()`: that one
    // also counts every collection's documents (most of an open at 100k pages).
    const registered = new Map(
      qmd.internal.db
        .prepare("SELECT name, path AS pwd, pattern AS glob_pattern FROM store_collections")
        .all()
        .map((c) => {
          const row = c as { name: string; pwd: string; glob_pattern: string };
          return [row.name, row];
        }),
    );
    for (const name of registered.keys()) {
      if (!specs.has(name)) await qmd.removeCollection(name);
    }
    for (const spec of specs.values()) {
      // Only what differs is written (a moved vault's folders): an open by a
      // reader then writes nothing, and a 10k-page vault has 128 collections.
      const have = registered.get(spec.name);
      if (have?.pwd === spec.dir && have.glob_pattern === MIRROR_PATTERN) continue;
      await qmd.addCollection(spec.name, { path: spec.dir, pattern: MIRROR_PATTERN });
    }
  } catch (error) {
    await qmd.close();
    throw error;
  }
  return createAdapter(qmd, specs, models, opts, buildEnv);
}

function createAdapter(
  qmd: QMDStore,
  specs: Map<string, QmdCollectionSpec>,
  models: ResolvedModels,
  opts: QmdStoreOptions,
  buildEnv: () => Record<string, string>,
): QmdStore {
  const db = qmd.internal.db;
  capLlamaThreads(qmd.internal.llm);
  loadRuntimeWithEnv(qmd.internal.llm, buildEnv);
  const settle = opts.bulkLoad ? deferDurability(db, opts.dbPath) : undefined;
  // A bulk load writes its documents on a worker thread; this connection
  // writes again only after the worker closed (embedding, the durability switch).
  const worker = opts.bulkLoad ? documentLoadWorker() : undefined;
  const load = worker
    ? startDocumentLoad(worker, {
        sqlitePath: qmdRequire().resolve("better-sqlite3"),
        dbPath: opts.dbPath,
      })
    : undefined;
  const lex = createLexicalSearch(db, [...specs.keys()]);
  const vectorModelStmt = db.prepare(
    "SELECT model FROM content_vectors GROUP BY model ORDER BY COUNT(*) DESC, model LIMIT 1",
  );
  const documents = createDocumentWriter(db);
  const heldHashes = createHeldHashes(db);
  const running = new Set<Promise<unknown>>();
  let closed = false;

  /** Remembers running work so `close` can wait for it, abandoned (aborted) work included. */
  const remember = <T>(promise: Promise<T>): Promise<T> => {
    running.add(promise);
    const forget = () => running.delete(promise);
    promise.then(forget, forget);
    return promise;
  };

  const track = <T>(work: () => Promise<T>): Promise<T> =>
    closed ? Promise.reject(new Error("QMD store is closed")) : remember(work());

  /**
   * Checks availability now (files may come and go), then runs the model
   * call guarded. QMD's model paths read page texts from `content`, which
   * a lexical store leaves to the FTS rows: they get it back first (once).
   */
  const modelPath = <T>(
    roles: ModelRole[],
    signal: AbortSignal | undefined,
    fn: () => Promise<T>,
  ) =>
    track(async () => {
      signal?.throwIfAborted();
      requireModels(modelAvailability(models), roles);
      documents.hydrate();
      return abortable(remember(withStdoutToStderr(fn)), signal);
    });

  const hitFrom = (c: Candidate, source: QmdHit["source"]): QmdHit | undefined => {
    const spec = specs.get(c.collection);
    if (!spec) return undefined;
    return {
      role: spec.role,
      collection: c.collection,
      pageId: c.path.replace(/\.md$/i, ""),
      title: c.title,
      score: 0,
      rawScore: c.rawScore,
      confidence: c.confidence,
      source,
      ...(c.bestChunk ? { bestChunk: c.bestChunk } : {}),
      ...(c.matches ? { matches: c.matches } : {}),
    };
  };

  /** `qmd://collection/path` → a candidate of a collection this store has. */
  const fromFile = (
    file: string,
    fields: Omit<Candidate, "key" | "collection" | "path">,
  ): Candidate | undefined => {
    const match = /^qmd:\/\/([^/]+)\/(.+)$/.exec(file);
    if (!match?.[1] || !match[2] || !specs.has(match[1])) return undefined;
    return { key: `${match[1]}/${match[2]}`, collection: match[1], path: match[2], ...fields };
  };

  /** QMD's vector list (cosine similarity), chunk excerpts bounded. Loads the embed model. */
  const vectorCandidates = async (text: string, limit: number, terms: LexTerm[]) => {
    if (!text || limit === 0) return [];
    const results = await qmd.searchVector(text, { limit });
    return results.flatMap((r) => {
      const at = r.chunkPos ?? 0;
      return (
        fromFile(r.filepath, {
          title: r.title,
          rawScore: r.score,
          confidence: Math.max(0, Math.min(1, r.score)),
          bestChunk: boundExcerpt((r.body ?? "").slice(at, at + CHUNK_SPAN), terms),
        }) ?? []
      );
    });
  };

  return {
    update: (updateOpts) =>
      track(async () => {
        const names = updateOpts?.collections;
        for (const name of names ?? []) {
          if (!specs.has(name)) throw new TypeError(`unknown collection "${name}"`);
        }
        const onProgress = updateOpts?.onProgress;
        const result = await qmd.update({
          collections: names ?? [...specs.keys()],
          ...(onProgress
            ? {
                onProgress: (p) =>
                  onProgress({ collection: p.collection, current: p.current, total: p.total }),
              }
            : {}),
        });
        // Frequencies and the document count change with the index.
        lex.invalidate();
        const { indexed, updated, unchanged, removed, needsEmbedding } = result;
        return { indexed, updated, unchanged, removed, needsEmbedding };
      }),

    applyDocuments: (upserts, removals, applyOpts) =>
      track(async () => {
        for (const { collection } of [...upserts, ...removals]) {
          if (!specs.has(collection)) throw new TypeError(`unknown collection "${collection}"`);
        }
        const result = load
          ? await load.apply(upserts, removals)
          : documents.apply(upserts, removals);
        const total = upserts.length + removals.length;
        applyOpts?.onProgress?.({ current: total, total });
        lex.invalidate();
        return result;
      }),

    mergeFullText: () =>
      track(async () => {
        // On the load's worker when there is one: the main thread keeps answering meanwhile.
        if (load) await load.merge();
        else mergeFullText(db);
        lex.invalidate();
      }),

    embed: (embedOpts) => {
      const signal = embedOpts?.signal;
      return modelPath(["embed"], signal, async () => {
        const onProgress = embedOpts?.onProgress;
        // QMD's chunking loads its process-wide default LLM object's runtime in here.
        const result = await withEnv(buildEnv(), () =>
          withModelEnv(models, () =>
            qmd.embed({
              force: embedOpts?.force ?? false,
              onProgress: (p) => {
                // Throwing here is how QMD's embed loop stops at the next batch.
                signal?.throwIfAborted();
                // The caller's callback is not QMD output: its stdout stays stdout.
                modelCall.exit(() => onProgress?.({ done: p.bytesProcessed, total: p.totalBytes }));
              },
            }),
          ),
        );
        return {
          embedded: result.docsProcessed,
          chunks: result.chunksEmbedded,
          errors: result.errors,
        };
      });
    },

    searchLex: (query, searchOpts) =>
      track(async () => {
        const { list, respelled } = lex.candidates(
          query,
          clampLimit(searchOpts?.limit, DEFAULT_LIMIT),
          true,
          searchOpts?.evidence,
          searchOpts?.relatedWords !== false,
        );
        if (respelled.length > 0) searchOpts?.onRespelled?.(respelled);
        return normalise(list.flatMap(({ candidate }) => hitFrom(candidate, "fts") ?? []));
      }),

    searchVector: (query, searchOpts) => {
      const limit = clampLimit(searchOpts?.limit, DEFAULT_LIMIT);
      return modelPath(["embed"], searchOpts?.signal, async () => {
        const text = plainQuery(query);
        const terms = buildLexQuery(text)?.terms ?? [];
        const list = await vectorCandidates(text, limit, terms);
        return normalise(list.flatMap((c) => hitFrom(c, "vec") ?? []));
      });
    },

    searchTyped: (query, searchOpts) => {
      const limit = clampLimit(searchOpts?.limit, DEFAULT_LIMIT);
      const candidates = Math.max(
        limit,
        clampLimit(searchOpts?.candidateLimit, DEFAULT_CANDIDATES),
      );
      return modelPath(["embed"], searchOpts?.signal, async () => {
        const found = lex.candidates(query, candidates, false);
        const vec = await vectorCandidates(plainQuery(query), candidates, found.terms);
        const fused = fuse([found.list.map((l) => l.candidate), vec], limit);
        // A lexical-only hit has no chunk from QMD: cut a window of its body instead.
        const rowids = new Map(found.list.map((l) => [l.candidate.key, l.rowid]));
        const missing = fused.flatMap((f) =>
          f.candidate.bestChunk ? [] : [rowids.get(f.candidate.key) ?? -1],
        );
        const chunks = lex.excerpts(found.terms, missing);
        const hits = fused.flatMap(({ candidate, rrf, lists }) => {
          const bestChunk = candidate.bestChunk || chunks.get(rowids.get(candidate.key) ?? -1);
          const source = lists.size > 1 ? "hybrid" : lists.has(0) ? "fts" : "vec";
          return (
            hitFrom({ ...candidate, rawScore: rrf, ...(bestChunk ? { bestChunk } : {}) }, source) ??
            []
          );
        });
        return normalise(hits);
      });
    },

    searchExpanded: (query, searchOpts) => {
      const limit = clampLimit(searchOpts?.limit, DEFAULT_LIMIT);
      return modelPath(["embed", "generate", "rerank"], searchOpts?.signal, async () => {
        const text = plainQuery(query);
        if (!text || limit === 0) return [];
        const terms = buildLexQuery(text)?.terms ?? [];
        const results = await qmd.search({
          query: text,
          ...(searchOpts?.intent ? { intent: searchOpts.intent } : {}),
          rerank: true,
          limit,
          ...(searchOpts?.candidateLimit !== undefined
            ? {
                candidateLimit: Math.max(
                  limit,
                  clampLimit(searchOpts.candidateLimit, DEFAULT_CANDIDATES),
                ),
              }
            : {}),
          explain: true,
        });
        const hits = results.flatMap((r) => {
          const fts = (r.explain?.ftsScores.length ?? 0) > 0;
          const vec = (r.explain?.vectorScores.length ?? 0) > 0;
          const c = fromFile(r.file, {
            title: r.title,
            rawScore: r.score,
            // The reranker's own relevance judgment (0..1) is the absolute evidence here.
            confidence: Math.max(0, Math.min(1, r.explain?.rerankScore ?? r.score)),
            bestChunk: boundExcerpt(r.bestChunk || "", terms),
          });
          return (c && hitFrom(c, fts && vec ? "hybrid" : vec ? "vec" : "fts")) ?? [];
        });
        return normalise(hits);
      });
    },

    status: () =>
      track(async () => {
        const s = await qmd.getStatus();
        const counts = new Map(s.collections.map((c) => [c.name, c.documents]));
        const collections = [...specs.keys()].map((name) => ({
          name,
          documents: counts.get(name) ?? 0,
        }));
        const vectorModel = s.hasVectorIndex
          ? vectorModelStmt.get<{ model: string }>()?.model
          : undefined;
        return {
          documents: collections.reduce((n, c) => n + c.documents, 0),
          needsEmbedding: s.needsEmbedding,
          hasVectors: s.hasVectorIndex,
          ...(vectorModel ? { vectorModel } : {}),
          collections,
        };
      }),

    heldHashes: (docs, hashes) => track(async () => heldHashes(docs, hashes)),

    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...running]);
      try {
        await load?.close();
        settle?.();
      } finally {
        await qmd.close();
      }
    },
  };
}

/**
 * SQLite page size of a new index. A row of one page text (a few KB: 2.5 KB
 * on average in the synthetic vaults, 1.8 KB the median of the fixtures)
 * fills a 4 KiB page alone when it is over half of one, as FTS5's ~4 KB
 * segment leaves do; 8 KiB pages hold three and two of them. Measured on
 * synthetic vaults, index bytes / page bytes: 4 KiB 3.9× (text twice), 8 KiB
 * 1.78× at 10k and 1.87× at 1k, 16 KiB 1.88× and 2.05× (more space per
 * table of a few rows); on pages of 2–8 KB, 8 and 16 KiB alike (1.88×).
 */
const INDEX_PAGE_SIZE = 8192;

/** Creates the database file of a new index with INDEX_PAGE_SIZE pages, in WAL mode as QMD keeps it. */
function createIndexFile(dbPath: string): void {
  const db = new (sqlite())(dbPath) as SqliteConnection & { exec(sql: string): void };
  try {
    db.exec(`PRAGMA page_size = ${INDEX_PAGE_SIZE}`);
    // The first journal-mode switch writes the header: the page size is fixed from here on.
    db.exec("PRAGMA journal_mode = WAL");
  } finally {
    db.close();
  }
}

/**
 * A read-only connection to an existing index for a lexical-first store, or
 * undefined when SQLite cannot read it so (QMD then opens it, and says why
 * if it cannot). Node's own SQLite first (node-sqlite.ts: no native module
 * to load), better-sqlite3 where that one cannot read the file. Never the
 * read-only store's in-memory copy: this index's folder is writable, and a
 * copy of a large index costs more than QMD.
 */
function openReader(dbPath: string): SqliteConnection | undefined {
  for (const driver of [nodeSqliteReader, sqlite]) {
    try {
      const Database = driver();
      if (!Database) continue;
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      try {
        db.prepare("SELECT 1 FROM documents LIMIT 1").get();
        // A full-text query too: a driver whose FTS5 cannot read the index must not answer.
        db.prepare("SELECT rowid FROM documents_fts WHERE documents_fts MATCH 'a' LIMIT 1").get();
        return db;
      } catch {
        db.close();
      }
    } catch {
      // The next driver, or QMD.
    }
  }
  return undefined;
}

/**
 * A `require` that resolves as QMD does, for its own dependencies (its
 * SQLite driver); QMD is named here only, so other modules ask for this.
 */
export function qmdRequire(): NodeJS.Require {
  return createRequire(import.meta.resolve("@tobilu/qmd"));
}

/** better-sqlite3 as QMD loads it (QMD's dependency, not this package's), loaded when first needed. */
function sqlite(): SqliteConstructor {
  return qmdRequire()("better-sqlite3") as SqliteConstructor;
}

/**
 * Opens the index at `dbPath` for lexical search only, writing nothing: for
 * an index folder this process may not write (another user's, read-only).
 * Writes, embedding and the model paths reject with `IndexReadOnlyError`.
 */
export async function openQmdStoreReadOnly(
  opts: Pick<QmdStoreOptions, "dbPath" | "collections">,
): Promise<QmdStore> {
  const specs = specsOf(opts.collections);
  return createReadOnlyStore(openReadOnlyDatabase(sqlite(), opts.dbPath), specs);
}

export { buildLexQuery, type LexQuery, type LexTerm } from "./lex-query.ts";
