/**
 * The store's surface as types only: what every search path returns and what
 * an open index offers. Kept apart from qmd-store.ts (which loads QMD) so the
 * read-only and lexical-first stores and the excerpt helpers can name these
 * types without importing the adapter that imports them.
 */
import type { SpellingRepair } from "../lexical/spelling.ts";
import type { ResolvedModels } from "./models.ts";
import type { DocumentApplyResult, DocumentRemoval, DocumentUpsert } from "./qmd-documents.ts";

/** How one query term matched one page (for evidence and `--explain`). */
export interface TermMatch {
  /** The query term as written (lower case). */
  term: string;
  /** Its index terms (stemmed), one per word. */
  stems: string[];
  /** Pages of the index holding it, and the index's size. */
  df: number;
  documents: number;
  idf: number;
  /** Occurrences in the page's path, title and body. */
  counts: [number, number, number];
  /** What it added to the page's score. */
  score: number;
  /**
   * What the term as written added, when its other spellings (a camelCase
   * word's parts, the word joined with its neighbour) added more: evidence
   * counts only this, since "swift" on a page is no evidence of "SwiftUI".
   */
  asWritten?: number;
}

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
  /**
   * A fresh database no other process can see yet (see bulk-load.ts): written
   * without syncing, made durable by `close()`, which then rejects if it could not be.
   */
  bulkLoad?: boolean;
}

/**
 * Automatic recall's evidence gate (recall-evidence.ts), handed to the
 * lexical search so it can skip a search no page could pass: when the most
 * evidence every query term together can give a page is under `min`, no
 * page is looked at (the work of an OR over words that most pages hold
 * grows with the vault).
 */
export interface LexEvidenceFloor {
  /** Evidence a page needs: the sum over the query terms it matches. */
  min: number;
  /** The most evidence `match`'s term can give any page (its presence at 1). */
  bound(match: TermMatch): number;
  /** Called when the search was skipped because no page could reach `min`. */
  onSkip(): void;
}

/** Options of `QmdStore.searchLex`. */
export interface LexSearchOptions {
  limit?: number;
  evidence?: LexEvidenceFloor;
  /** Also search each word's related words (lexical/related-words.ts); default true. */
  relatedWords?: boolean;
  /** Told the query words searched as another spelling the vault holds ("postgress" as "postgres"). */
  onRespelled?(repairs: readonly SpellingRepair[]): void;
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
  /** Lexical lists: how each query term matched the page (evidence, `--explain`). */
  matches?: TermMatch[];
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

/** A document of a collection, by its path there (`<pageId>.md`). */
export interface QmdDocumentRef {
  collection: string;
  path: string;
}

/** Result of `heldHashes`. */
export interface HeldHashes {
  /** The content hash each asked document holds, undefined where none is active. */
  docs: Array<string | undefined>;
  /** The asked hashes some active document holds. */
  held: Set<string>;
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
  /**
   * Merges the full-text index into one segment (qmd-documents.ts
   * `mergeFullText`): for the end of a rebuild's bulk load, after its last
   * batch. Same rows and scores; each term lookup is then one seek.
   */
  mergeFullText(): Promise<void>;
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
  searchLex(query: string, opts?: LexSearchOptions): Promise<QmdHit[]>;
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
  /**
   * What a change's counts move by (see qmd-held-hashes.ts): reads a row
   * per asked document and hash, so counts follow a change by difference.
   */
  heldHashes(docs: readonly QmdDocumentRef[], hashes: Iterable<string>): Promise<HeldHashes>;
  /** Waits for running operations, then releases models and the database. */
  close(): Promise<void>;
}
