/**
 * The engine's own cost of a query, for the benchmarks' ratio: a plain
 * SQLite FTS5 BM25 query (an OR of the query's terms, QMD's column weights,
 * the first `depth` rows), statement prepared once, on the vault's live
 * index opened read-only beside the service's store. Recall's latency over
 * this one, measured in the same run, is what its pipeline adds.
 */

import { generationPaths, indexLayout, readCurrent } from "../index/layout.ts";
import { buildLexQuery } from "../index/lex-query.ts";
import {
  openReadOnlyDatabase,
  type SqliteConnection,
  type SqliteConstructor,
} from "../index/qmd-read-only.ts";
import { qmdRequire } from "../index/qmd-store.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** A raw FTS5 query runner on one vault's index; `close` when done. */
export interface RawFts {
  /** Row ids of the best `depth` rows by FTS5's BM25 (empty when nothing is searchable). */
  search(query: string): number[];
  close(): void;
}

/** Opens the live index of `paths` for raw FTS5 queries to `depth`. */
export function openRawFts(paths: VaultPaths, depth: number): RawFts {
  const layout = indexLayout(paths);
  const current = readCurrent(layout);
  if (!current) throw new Error("the vault has no live index");
  // better-sqlite3 as QMD loads it: QMD's dependency, not this package's.
  const Database = qmdRequire()("better-sqlite3") as SqliteConstructor;
  const db: SqliteConnection = openReadOnlyDatabase(Database, generationPaths(layout, current).db);
  const stmt = db.prepare(`
    SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ?
    ORDER BY bm25(documents_fts, 1.5, 4.0, 1.0) LIMIT ${Math.max(1, Math.floor(depth))}`);
  return {
    search(query) {
      const built = buildLexQuery(query);
      return built ? stmt.all<{ id: number }>(built.match).map((r) => r.id) : [];
    },
    close: () => db.close(),
  };
}
