/**
 * What a generation's QMD index holds per document, read straight from its
 * SQLite file: the text QMD's readers get for it (its `content` row, or the
 * FTS row where `content` leaves the text to it) and when the row last
 * changed. Specs observe indexing through it, as they once did through the
 * mirror files.
 */
import { openQmdSqlite } from "./qmd-sqlite.ts";

export interface IndexedDocument {
  text: string;
  /** QMD's `documents.modified_at`: moves only when the row is written. */
  modifiedAt: string;
}

interface Db {
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

/** Active documents of the index at `dbPath`, by `<collection>/<path>`; empty when there is no index. */
export function indexedDocuments(dbPath: string): Map<string, IndexedDocument> {
  const out = new Map<string, IndexedDocument>();
  let db: Db;
  try {
    db = openQmdSqlite<Db>(dbPath, { readonly: true });
  } catch {
    return out;
  }
  try {
    const rows = db
      .prepare(
        `SELECT d.collection || '/' || d.path AS key, d.modified_at AS modifiedAt,
                CASE WHEN c.doc = '' THEN f.body ELSE c.doc END AS text
         FROM documents d JOIN content c ON c.hash = d.hash
         LEFT JOIN documents_fts f ON f.rowid = d.id
         WHERE d.active = 1 ORDER BY key`,
      )
      .all() as Array<{ key: string; modifiedAt: string; text: string }>;
    for (const row of rows) out.set(row.key, { text: row.text, modifiedAt: row.modifiedAt });
  } finally {
    db.close();
  }
  return out;
}
