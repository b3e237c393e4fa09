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
 */
import { mkdirSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import { createStore, type QMDStore } from "@tobilu/qmd";
import { buildLexQuery, type LexQuery, type LexTerm } from "./lex-query.ts";
import {
  type ModelRole,
  modelAvailability,
  qmdModelCacheDir,
  type ResolvedModels,
  requireModels,
} from "./models.ts";
import {
  createDocumentWriter,
  type DocumentApplyResult,
  type DocumentRemoval,
  type DocumentUpsert,
} from "./qmd-documents.ts";
import {
  abortable,
  modelCall,
  withModelEnv,
  withoutCi,
  withStdoutToStderr,
} from "./qmd-process-guards.ts";

// Re-exported for callers that hold a store anyway; models.ts has it without loading QMD.
export { ModelUnavailableError } from "./models.ts";

/** `canonical` pages answer; `evidence` pages back answers up. */
export type CollectionRole = "canonical" | "evidence";

/** One folder of `.md` mirror files, laid out as `<dir>/<pageId>.md`. */
export interface QmdCollectionSpec {
  /** Letters, digits, `_` and `-` only. */
  name: string;
  /** Absolute folder. */
  dir: string;
  role: CollectionRole;
}

/** How to open a store. */
export interface QmdStoreOptions {
  /** SQLite index file; its folder is created if missing. */
  dbPath: string;
  collections: QmdCollectionSpec[];
  /** From `resolveModels` in models.ts. */
  models: ResolvedModels;
}

/** One search result, free of QMD types. */
export interface QmdHit {
  role: CollectionRole;
  collection: string;
  /** File path inside the collection folder without `.md`, e.g. `concepts/rag`. */
  pageId: string;
  title: string;
  /**
   * 0..1 within this list: `rawScore / max rawScore`, so the top is 1. Lexical
   * lists are also scaled by the best hit's coverage (see `QmdStore.searchLex`):
   * a best hit that matches only one of several query terms stays below 1.
   */
  score: number;
  /** Lexical: −BM25 (higher is better). Vector: cosine. Typed: fused RRF. Expanded: QMD's blend. */
  rawScore: number;
  /**
   * Absolute evidence, 0..1, comparable across lists: lexical, the coverage-
   * scaled score; vector, cosine similarity; expanded, the reranker's score;
   * typed, the better of its lexical and vector evidence.
   */
  confidence?: number;
  source: "fts" | "vec" | "hybrid";
  /** A bounded excerpt (≤ 800 characters), never the whole body. */
  bestChunk?: string;
}

/** Result of `update`. */
export interface QmdUpdateResult {
  indexed: number;
  updated: number;
  unchanged: number;
  removed: number;
  needsEmbedding: number;
}

/** Result of `embed`. */
export interface QmdEmbedResult {
  /** Distinct document contents embedded (identical pages share vectors). */
  embedded: number;
  /** Chunks embedded. */
  chunks: number;
  /** Chunks that failed even after retries. */
  errors: number;
}

/** Result of `status`; reads the database only, loads no model. */
export interface QmdStatus {
  documents: number;
  needsEmbedding: number;
  hasVectors: boolean;
  /** The model most stored vectors were made with. */
  vectorModel?: string;
  collections: Array<{ name: string; documents: number }>;
}

/** An open QMD index. */
export interface QmdStore {
  /** Rescans the given collections (default: all). Model-free. */
  update(opts?: {
    collections?: string[];
    onProgress?: (p: { collection: string; current: number; total: number }) => void;
  }): Promise<QmdUpdateResult>;
  /**
   * Writes the given documents (their mirror files already hold `text`) and
   * deactivates the removed ones, in one transaction, without rescanning any
   * collection (see qmd-documents.ts). Model-free.
   */
  applyDocuments(
    upserts: readonly DocumentUpsert[],
    removals: readonly DocumentRemoval[],
    opts?: { onProgress?: (p: { current: number; total: number }) => void },
  ): Promise<DocumentApplyResult>;
  /** Embeds what needs it. Progress counts bytes of document text. Needs the embed model. */
  embed(opts?: {
    force?: boolean;
    signal?: AbortSignal;
    onProgress?: (p: { done: number; total: number }) => void;
  }): Promise<QmdEmbedResult>;
  /**
   * Model-free BM25 (QMD's column weights) over an OR of the query's terms
   * (see `buildLexQuery`); never throws on a user string. At most `limit`
   * (default 10) hits by BM25, ties by collection and page id. A query with
   * more than 16 terms keeps its 16 rarest. Scores: `raw / max`, times
   * `min(1, m / min(t, 3))` where `t` is the number of query terms and `m`
   * how many of them the best hit contains: one matched term of three gives
   * 1/3, so a coincidental match can be told from an answer. `bestChunk` is a
   * window of the body around the first query word found.
   */
  searchLex(query: string, opts?: { limit?: number }): Promise<QmdHit[]>;
  /**
   * QMD's vector search alone (cosine similarity over embedded chunks); `[]`
   * before `embed`. Needs the embed model. `bestChunk` comes from the chunk
   * that matched.
   */
  searchVector(query: string, opts?: { limit?: number; signal?: AbortSignal }): Promise<QmdHit[]>;
  /**
   * The `searchLex` list (top `candidateLimit`, default 40) fused by reciprocal
   * rank with QMD's vector list for the same query (typed `vec` search, no
   * expansion, no rerank). QMD's own typed `lex` query would AND the terms and
   * drop every page missing one word. Needs the embed model; before `embed`
   * the vector list is empty and this is lexical.
   */
  searchTyped(
    query: string,
    opts?: { limit?: number; candidateLimit?: number; signal?: AbortSignal },
  ): Promise<QmdHit[]>;
  /**
   * QMD's full pipeline: LLM expansion, vectors, rerank (steered by `intent`)
   * of `candidateLimit` chunks (QMD's default 40; on a CPU each costs about a
   * second with QMD's default reranker). Needs all three models. On abort the
   * call rejects at once; QMD's work finishes in the background and `close`
   * waits for it.
   */
  searchExpanded(
    query: string,
    opts?: { intent?: string; limit?: number; candidateLimit?: number; signal?: AbortSignal },
  ): Promise<QmdHit[]>;
  status(): Promise<QmdStatus>;
  /** Waits for running operations, then releases models and the database. */
  close(): Promise<void>;
}

/** Upper bound of `QmdHit.bestChunk`. */
export const EXCERPT_MAX_CHARS = 800;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 200;
const DEFAULT_CANDIDATES = 40;
/** Query terms weighed for a hit's coverage (see `coverage` in openQmdStore); more are noise. */
const COVERAGE_TERMS = 32;
/** Terms one OR query may carry (see `selectTerms`). */
const MAX_QUERY_TERMS = 16;
/** Document-frequency probes stop counting here: any term this common is "common". */
const DF_PROBE_CAP = 64;
/** Excerpt window: this many characters before the first query word, this many in all. */
const WINDOW_BEFORE = 120;
const WINDOW_CHARS = 720;
/** Characters of a page body taken from a vector hit's chunk start (QMD chunks are ~900 tokens). */
const CHUNK_SPAN = 3_600;
/** QMD's reciprocal-rank constant and top-rank bonuses (store.js `reciprocalRankFusion`). */
const RRF_K = 60;

// QMD reads XDG_CACHE_HOME once, when its llm.js is first evaluated: that is
// now, since this module's static import evaluates QMD before this line runs.
const QMD_CACHE_DIR = qmdModelCacheDir(process.env);

// ---------------------------------------------------------------------------
// Excerpts and scores (pure)
// ---------------------------------------------------------------------------

/** Plain words a term may appear as in a page body (phrases like "召 回" excepted). */
function surfaces(terms: LexTerm[]): string[] {
  const out = new Set<string>();
  for (const term of terms) {
    out.add(term.text);
    for (const fts of term.fts) {
      const word = fts.slice(1, -1);
      if (!word.includes(" ")) out.add(word);
    }
  }
  return [...out];
}

/** Tidies a body window: whole words at cut edges, one line, ellipses where cut. */
function tidyWindow(text: string, cutStart: boolean, cutEnd: boolean): string {
  let t = text;
  if (cutStart) t = t.replace(/^\S{0,30}\s/, "");
  if (cutEnd) t = t.replace(/\s\S{0,30}$/, "");
  t = t.replace(/\s+/g, " ").trim();
  return `${cutStart ? "…" : ""}${t}${cutEnd ? "…" : ""}`;
}

/** QMD's chunk as one line, cut to EXCERPT_MAX_CHARS around the first query word found. */
function boundExcerpt(chunk: string, terms: LexTerm[]): string {
  const text = chunk.replace(/\s+/g, " ").trim();
  if (text.length <= EXCERPT_MAX_CHARS) return text;
  const lower = text.toLowerCase();
  const found = surfaces(terms)
    .map((word) => lower.indexOf(word))
    .filter((i) => i >= 0);
  const at = found.length > 0 ? Math.min(...found) : 0;
  const start = Math.max(0, Math.min(at - WINDOW_BEFORE, text.length - WINDOW_CHARS));
  const end = Math.min(text.length, start + WINDOW_CHARS);
  return tidyWindow(text.slice(start, end), start > 0, end < text.length);
}

function clampLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(0, Math.min(MAX_LIMIT, Math.floor(limit)));
}

/** `rawScore / max` times a list-wide factor; stable for an all-zero list. */
function normalise<T extends { rawScore: number }>(
  hits: T[],
  factor = 1,
): Array<T & { score: number }> {
  const max = Math.max(0, ...hits.map((h) => h.rawScore));
  return hits.map((h) => ({ ...h, score: max > 0 ? (h.rawScore / max) * factor : factor }));
}

/** Query text safe for QMD's typed queries: one line, no `-negation`. */
function plainQuery(query: string): string {
  return query
    .normalize("NFKC")
    .replace(/\s+/g, " ")
    .replace(/(^|\s)-+(?=\S)/g, "$1")
    .trim();
}

/**
 * QMD's reciprocal-rank fusion (k = 60; +0.05 for a list's first, +0.02 for
 * its second and third), with equal weights: every list answers the original
 * query. A page keeps its best confidence and the first excerpt found. Ties
 * break by key, so the order is deterministic.
 */
function fuse(lists: Candidate[][], limit: number) {
  const fused = new Map<
    string,
    { candidate: Candidate; rrf: number; top: number; lists: Set<number> }
  >();
  lists.forEach((list, index) => {
    list.forEach((candidate, rank) => {
      const entry = fused.get(candidate.key) ?? {
        candidate,
        rrf: 0,
        top: rank,
        lists: new Set<number>(),
      };
      entry.rrf += 1 / (RRF_K + rank + 1);
      entry.top = Math.min(entry.top, rank);
      entry.lists.add(index);
      entry.candidate = {
        ...entry.candidate,
        confidence: Math.max(entry.candidate.confidence, candidate.confidence),
        ...(!entry.candidate.bestChunk && candidate.bestChunk
          ? { bestChunk: candidate.bestChunk }
          : {}),
      };
      fused.set(candidate.key, entry);
    });
  });
  return [...fused.values()]
    .map((e) => ({ ...e, rrf: e.rrf + (e.top === 0 ? 0.05 : e.top <= 2 ? 0.02 : 0) }))
    .sort((a, b) => b.rrf - a.rrf || a.candidate.key.localeCompare(b.candidate.key))
    .slice(0, limit);
}

/**
 * `hf:` models are handed to QMD as URIs only when QMD looks in the same cache
 * we checked; otherwise as the file we found, so QMD never resolves (and never
 * downloads) a file we did not see.
 */
function modelsForQmd(models: ResolvedModels): ResolvedModels {
  if (models.cacheDir === QMD_CACHE_DIR) return models;
  const found = modelAvailability(models);
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
    cacheDir: QMD_CACHE_DIR,
  };
}

// ---------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------

interface LexRow {
  id: number;
  bm25: number;
  collection: string;
  path: string;
  title: string;
}

/** A page on its way to becoming a hit. */
interface Candidate {
  /** `collection/path`, unique within a store. */
  key: string;
  collection: string;
  path: string;
  title: string;
  rawScore: number;
  confidence: number;
  bestChunk?: string;
}

/** Opens (creating if needed) the index at `dbPath` with exactly these collections. */
export async function openQmdStore(opts: QmdStoreOptions): Promise<QmdStore> {
  const specs = new Map<string, QmdCollectionSpec>();
  for (const spec of opts.collections) {
    if (!/^[A-Za-z0-9_-]+$/.test(spec.name))
      throw new TypeError(`invalid collection name "${spec.name}"`);
    if (!isAbsolute(spec.dir))
      throw new TypeError(`collection "${spec.name}" needs an absolute dir`);
    if (specs.has(spec.name)) throw new TypeError(`duplicate collection "${spec.name}"`);
    specs.set(spec.name, spec);
  }
  const models = modelsForQmd(opts.models);
  mkdirSync(dirname(opts.dbPath), { recursive: true });
  // DB-only mode: an inline `config` would install a process-wide config source in QMD.
  const qmd: QMDStore = await withModelEnv(models, () =>
    withoutCi(() => createStore({ dbPath: opts.dbPath })),
  );
  try {
    for (const existing of await qmd.listCollections()) {
      if (!specs.has(existing.name)) await qmd.removeCollection(existing.name);
    }
    for (const spec of specs.values()) {
      await qmd.addCollection(spec.name, { path: spec.dir, pattern: "**/*.md" });
    }
  } catch (error) {
    await qmd.close();
    throw error;
  }
  return createAdapter(qmd, specs, models);
}

function createAdapter(
  qmd: QMDStore,
  specs: Map<string, QmdCollectionSpec>,
  models: ResolvedModels,
): QmdStore {
  const db = qmd.internal.db;
  const collectionsJson = JSON.stringify([...specs.keys()]);
  // Ids, scores, title and path only: QMD's own statement returns every body.
  // Weights follow QMD's column order (filepath 1.5, title 4, body 1). FTS5
  // ranks first and only its best rows are joined; the slack lets ties at the
  // cut (identical pages) and rows of dropped collections sort out by path.
  const lexStmt = db.prepare(`
    WITH ranked AS (
      SELECT rowid AS id, bm25(documents_fts, 1.5, 4.0, 1.0) AS bm25
      FROM documents_fts WHERE documents_fts MATCH ?
      ORDER BY bm25 LIMIT ?)
    SELECT ranked.id AS id, ranked.bm25 AS bm25,
           d.collection AS collection, d.path AS path, d.title AS title
    FROM ranked JOIN documents d ON d.id = ranked.id
    WHERE d.active = 1 AND d.collection IN (SELECT value FROM json_each(?))
    ORDER BY ranked.bm25, d.collection, d.path
    LIMIT ?`);
  // An excerpt is a window of the page body around the first query word found,
  // cut inside SQLite for all hits in one statement: no body crosses into JavaScript.
  const windowStmt = db.prepare(`
    WITH page AS MATERIALIZED (
      SELECT d.id AS id, c.doc AS doc, lower(c.doc) AS low
      FROM documents d JOIN content c ON c.hash = d.hash
      WHERE d.id IN (SELECT value FROM json_each(?))),
    hit AS (
      SELECT page.id AS id, coalesce(min(nullif(instr(page.low, j.value), 0)), 1) AS at
      FROM page, json_each(?) j GROUP BY page.id)
    SELECT page.id AS id, substr(page.doc, max(1, hit.at - ${WINDOW_BEFORE}), ${WINDOW_CHARS}) AS text,
           max(1, hit.at - ${WINDOW_BEFORE}) AS start, length(page.doc) AS length
    FROM page JOIN hit ON hit.id = page.id`);
  // Document frequency per term, capped: one statement for all terms of a long query.
  const dfStmt = db.prepare(`
    SELECT j.key AS term, (
      SELECT count(*) FROM (
        SELECT 1 FROM documents_fts WHERE documents_fts MATCH j.value LIMIT ${DF_PROBE_CAP})
    ) AS df
    FROM json_each(?) j`);
  const dfOneStmt = db.prepare(
    "SELECT count(*) AS df FROM (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT ?)",
  );
  const totalStmt = db.prepare("SELECT count(*) AS n FROM documents WHERE active = 1");
  const termStmt = db.prepare(
    "SELECT 1 AS hit FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?",
  );
  const vectorModelStmt = db.prepare(
    "SELECT model FROM content_vectors GROUP BY model ORDER BY COUNT(*) DESC, model LIMIT 1",
  );
  const documents = createDocumentWriter(db);
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

  /** Checks availability now (files may come and go), then runs the model call guarded. */
  const modelPath = <T>(
    roles: ModelRole[],
    signal: AbortSignal | undefined,
    fn: () => Promise<T>,
  ) =>
    track(async () => {
      signal?.throwIfAborted();
      requireModels(modelAvailability(models), roles);
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
    };
  };

  /** Document frequency of a term, counted up to `cap`; cached until the next `update`. */
  const dfCache = new Map<string, number>();
  let totalDocs: number | undefined;
  const documentCount = (): number => {
    totalDocs ??= totalStmt.get<{ n: number }>()?.n ?? 0;
    return totalDocs;
  };
  const documentFrequency = (match: string, cap: number): number => {
    const cached = dfCache.get(match);
    if (cached !== undefined) return cached;
    const df = dfOneStmt.get<{ df: number }>(match, cap)?.df ?? 0;
    dfCache.set(match, df);
    return df;
  };

  /**
   * How much of the query the best hit covers: the IDF-weighted share of the
   * query's terms it contains (BM25's idf). A term absent from the vault
   * weighs most, so "tell me a joke" against notes that only share "tell"
   * covers little, while a question whose rare words are all on the page
   * covers nearly everything. Frequencies above a tenth of the vault are
   * capped: such terms weigh little either way, and counting them is slow.
   */
  const coverage = (terms: LexTerm[], rowid: number): number => {
    const n = documentCount();
    if (n === 0 || terms.length === 0) return 0;
    const cap = Math.max(64, Math.ceil(n / 10));
    let all = 0;
    let matched = 0;
    for (const term of terms.slice(0, COVERAGE_TERMS)) {
      const match = term.fts.join(" OR ");
      const df = documentFrequency(match, cap);
      const weight = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      all += weight;
      if (df > 0 && termStmt.get(match, rowid)) matched += weight;
    }
    return all === 0 ? 0 : matched / all;
  };

  /** Excerpts by document id, for the given query words. */
  const excerpts = (terms: LexTerm[], ids: number[]): Map<number, string> => {
    const out = new Map<number, string>();
    if (ids.length === 0 || terms.length === 0) return out;
    const rows = windowStmt.all<{ id: number; text: string | null; start: number; length: number }>(
      JSON.stringify(ids),
      JSON.stringify(surfaces(terms)),
    );
    for (const row of rows) {
      if (!row.text) continue;
      const cutEnd = row.start - 1 + row.text.length < row.length;
      out.set(row.id, tidyWindow(row.text, row.start > 1, cutEnd));
    }
    return out;
  };

  /**
   * A long query (a pasted prompt) keeps its MAX_QUERY_TERMS rarest terms:
   * OR-BM25 cost is driven by common terms' long posting lists (at 10k pages,
   * the 16 rarest of ~100 terms ran ~7× faster than the 32 rarest), while
   * BM25 gives those terms little weight. Terms absent from the index go
   * first; ties keep query order.
   */
  const selectTerms = (built: LexQuery): LexQuery => {
    if (built.terms.length <= MAX_QUERY_TERMS) return built;
    const probes = JSON.stringify(built.terms.map((term) => term.fts.join(" OR ")));
    const df = new Map(dfStmt.all<{ term: number; df: number }>(probes).map((r) => [r.term, r.df]));
    const rarest = built.terms
      .map((term, order) => ({ term, order, df: df.get(order) ?? 0 }))
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df || a.order - b.order)
      .slice(0, MAX_QUERY_TERMS)
      .sort((a, b) => a.order - b.order)
      .map((t) => t.term);
    return { terms: rarest, match: [...new Set(rarest.flatMap((t) => t.fts))].join(" OR ") };
  };

  /** Lexical candidates in BM25 order, plus the scale factor from the best hit's coverage. */
  const lexical = (
    query: string,
    limit: number,
  ): { built?: LexQuery; rows: LexRow[]; strength: number } => {
    const parsed = buildLexQuery(query);
    if (!parsed || limit === 0) return { rows: [], strength: 0 };
    try {
      const built = selectTerms(parsed);
      if (built.terms.length === 0) return { rows: [], strength: 0 };
      const rows = lexStmt.all<LexRow>(built.match, limit * 2 + 20, collectionsJson, limit);
      const top = rows[0];
      // Coverage weighs every term of the query, including those too rare to search for.
      return { built, rows, strength: top ? coverage(parsed.terms, top.id) : 0 };
    } catch (error) {
      // Every term is quoted, so this should be unreachable; a user string must never throw.
      if (/fts5/i.test(String(error))) return { rows: [], strength: 0 };
      throw error;
    }
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

  /** Lexical candidates; confidence is the list score (see `QmdStore.searchLex`). */
  const lexCandidates = (query: string, limit: number, withExcerpts: boolean) => {
    const { built, rows, strength } = lexical(query, limit);
    const terms = built?.terms ?? [];
    const chunks = withExcerpts
      ? excerpts(
          terms,
          rows.map((row) => row.id),
        )
      : new Map<number, string>();
    const max = Math.max(0, ...rows.map((row) => -row.bm25));
    const list = rows.map((row) => {
      const confidence = max > 0 ? (-row.bm25 / max) * strength : strength;
      const bestChunk = chunks.get(row.id);
      return {
        candidate: {
          key: `${row.collection}/${row.path}`,
          collection: row.collection,
          path: row.path,
          title: row.title,
          rawScore: -row.bm25,
          confidence,
          ...(bestChunk ? { bestChunk } : {}),
        },
        rowid: row.id,
      };
    });
    return { terms, list, strength };
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
        dfCache.clear();
        totalDocs = undefined;
        const { indexed, updated, unchanged, removed, needsEmbedding } = result;
        return { indexed, updated, unchanged, removed, needsEmbedding };
      }),

    applyDocuments: (upserts, removals, applyOpts) =>
      track(async () => {
        for (const { collection } of [...upserts, ...removals]) {
          if (!specs.has(collection)) throw new TypeError(`unknown collection "${collection}"`);
        }
        const result = documents.apply(upserts, removals);
        const total = upserts.length + removals.length;
        applyOpts?.onProgress?.({ current: total, total });
        dfCache.clear();
        totalDocs = undefined;
        return result;
      }),

    embed: (embedOpts) => {
      const signal = embedOpts?.signal;
      return modelPath(["embed"], signal, async () => {
        const onProgress = embedOpts?.onProgress;
        const result = await withModelEnv(models, () =>
          qmd.embed({
            force: embedOpts?.force ?? false,
            onProgress: (p) => {
              // Throwing here is how QMD's embed loop stops at the next batch.
              signal?.throwIfAborted();
              // The caller's callback is not QMD output: its stdout stays stdout.
              modelCall.exit(() => onProgress?.({ done: p.bytesProcessed, total: p.totalBytes }));
            },
          }),
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
        const { list, strength } = lexCandidates(
          query,
          clampLimit(searchOpts?.limit, DEFAULT_LIMIT),
          true,
        );
        return normalise(
          list.flatMap(({ candidate }) => hitFrom(candidate, "fts") ?? []),
          strength,
        );
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
        const lex = lexCandidates(query, candidates, false);
        const vec = await vectorCandidates(plainQuery(query), candidates, lex.terms);
        const fused = fuse([lex.list.map((l) => l.candidate), vec], limit);
        // A lexical-only hit has no chunk from QMD: cut a window of its body instead.
        const rowids = new Map(lex.list.map((l) => [l.candidate.key, l.rowid]));
        const missing = fused.flatMap((f) =>
          f.candidate.bestChunk ? [] : [rowids.get(f.candidate.key) ?? -1],
        );
        const chunks = excerpts(lex.terms, missing);
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

    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...running]);
      await qmd.close();
    },
  };
}

export { buildLexQuery, type LexQuery, type LexTerm } from "./lex-query.ts";
