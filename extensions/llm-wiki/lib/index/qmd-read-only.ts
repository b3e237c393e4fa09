/**
 * A read-only store: model-free lexical search over an index this process
 * may not write (another user's folder, a read-only mount), opening nothing
 * for writing and creating no file. qmd-store.ts hands in the SQLite driver
 * QMD itself uses; nothing here names a QMD type.
 */
import { readFileSync } from "node:fs";
import { clampLimit, normalise } from "./qmd-excerpts.ts";
import { createHeldHashes } from "./qmd-held-hashes.ts";
import { createLexicalSearch } from "./qmd-lexical.ts";
import type { QmdCollectionSpec, QmdHit, QmdStore } from "./qmd-store-types.ts";

/** The part of a better-sqlite3 connection used here. */
export interface SqliteConnection {
  prepare(sql: string): {
    all<T>(...params: Array<string | number>): T[];
    get<T>(...params: Array<string | number>): T | undefined;
  };
  close(): void;
}

/** better-sqlite3's constructor, as far as it is used here. */
export type SqliteConstructor = new (
  source: string | Buffer,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => SqliteConnection;

const DEFAULT_LIMIT = 10;

/** What a write on a read-only store rejects with. */
export class IndexReadOnlyError extends Error {
  readonly code = "index_read_only";
  constructor(what: string) {
    super(`the index is open read-only: ${what} is not available`);
    this.name = "IndexReadOnlyError";
  }
}

/**
 * Opens `dbPath` for reading only, writing nothing anywhere. QMD keeps its
 * index in WAL mode, whose readers need a `-shm` file beside it: where that
 * cannot be created (a folder this user may not write) the file is read
 * into memory instead, marked as a rollback-journal database (header bytes
 * 18 and 19), which SQLite then reads without any shared memory.
 */
export function openReadOnlyDatabase(
  Database: SqliteConstructor,
  dbPath: string,
): SqliteConnection {
  try {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      db.prepare("SELECT count(*) AS n FROM documents").get();
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  } catch {
    const image = readFileSync(dbPath);
    if (image.length > 19) {
      image[18] = 1;
      image[19] = 1;
    }
    return new Database(image);
  }
}

/** The store over `db` for `specs`' collections: lexical search and counts; every write rejects. */
export function createReadOnlyStore(
  db: SqliteConnection,
  specs: ReadonlyMap<string, QmdCollectionSpec>,
): QmdStore {
  const lex = createLexicalSearch(db, [...specs.keys()]);
  const countStmt = db.prepare(
    "SELECT collection, count(*) AS n FROM documents WHERE active = 1 GROUP BY collection",
  );
  const heldHashes = createHeldHashes(db);
  let closed = false;
  const run = <T>(work: () => T): Promise<T> =>
    closed ? Promise.reject(new Error("QMD store is closed")) : Promise.resolve().then(work);
  const refuse = (what: string) => Promise.reject(new IndexReadOnlyError(what));
  return {
    update: () => refuse("updating"),
    applyDocuments: () => refuse("writing documents"),
    mergeFullText: () => refuse("merging the full-text index"),
    embed: () => refuse("embedding"),
    searchLex: (query, searchOpts) =>
      run(() => {
        const { list, respelled } = lex.candidates(
          query,
          clampLimit(searchOpts?.limit, DEFAULT_LIMIT),
          true,
          searchOpts?.evidence,
          searchOpts?.relatedWords !== false,
        );
        if (respelled.length > 0) searchOpts?.onRespelled?.(respelled);
        const hits = list.flatMap(({ candidate }): QmdHit[] => {
          const spec = specs.get(candidate.collection);
          if (!spec) return [];
          return [
            {
              role: spec.role,
              collection: candidate.collection,
              pageId: candidate.path.replace(/\.md$/i, ""),
              title: candidate.title,
              score: 0,
              rawScore: candidate.rawScore,
              confidence: candidate.confidence,
              source: "fts",
              ...(candidate.bestChunk ? { bestChunk: candidate.bestChunk } : {}),
              ...(candidate.matches ? { matches: candidate.matches } : {}),
            },
          ];
        });
        return normalise(hits);
      }),
    searchVector: () => refuse("vector search"),
    searchTyped: () => refuse("vector search"),
    searchExpanded: () => refuse("expanded search"),
    status: () =>
      run(() => {
        const counts = new Map(
          countStmt.all<{ collection: string; n: number }>().map((r) => [r.collection, r.n]),
        );
        const collections = [...specs.keys()].map((name) => ({
          name,
          documents: counts.get(name) ?? 0,
        }));
        return {
          documents: collections.reduce((n, c) => n + c.documents, 0),
          needsEmbedding: 0,
          hasVectors: false,
          collections,
        };
      }),
    heldHashes: (docs, hashes) => run(() => heldHashes(docs, hashes)),
    close: async () => {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
