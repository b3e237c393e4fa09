/**
 * Direct document writes into an open QMD index: the pages a change touched,
 * in one transaction, with statements prepared once per store. They write
 * what QMD's `update()` writes for a file (content row, document row, and
 * the FTS row QMD's triggers insert and QMD then rewrites with CJK text
 * split per character) but without rescanning whole collections and then
 * sweeping orphaned content across the index (~90 ms per change at 10k
 * pages, most of it the sweep). QMD's own per-document helpers re-prepare
 * their statements on every call, which at 10k pages held ~40 KB of native
 * memory per page until the process ended.
 *
 * A page's text is kept once. QMD's FTS5 table `documents_fts` stores its
 * own copy of every column it indexes, and QMD would keep a second in its
 * `content` table; here `content.doc` is left empty wherever the FTS row
 * holds the text verbatim (no CJK, which QMD's FTS spelling spaces apart),
 * and readers take the text from the FTS row then. QMD's model paths read
 * `content` themselves: `hydrate` gives it every text back before them, and
 * a store once hydrated keeps writing it whole.
 *
 * QMD's schema is pinned by contract tests: a later `update()` over the same
 * texts as files finds every document unchanged, and the FTS rows are
 * byte-identical to QMD's own.
 *
 * Structural types only: qmd-store.ts hands in QMD's database connection, and
 * this module never imports QMD itself.
 */
import { createHash } from "node:crypto";

interface SqlStatement {
  run(...params: Array<string | number>): { changes: number };
  get<T>(...params: Array<string | number>): T | undefined;
}

/** The part of a QMD database connection used here (better-sqlite3 shaped). */
export interface QmdSqlDatabase {
  exec(sql: string): void;
  /** Whether a transaction is open (better-sqlite3); SQLite ends one itself on some errors. */
  readonly inTransaction?: boolean;
  prepare(sql: string): SqlStatement;
}

/** A document to write: `path` inside the collection folder, e.g. `concepts/rag.md`. */
export interface DocumentUpsert {
  collection: string;
  path: string;
  text: string;
}

export interface DocumentRemoval {
  collection: string;
  path: string;
}

/** What `applyDocuments` did, counted like QMD's `update()`. */
export interface DocumentApplyResult {
  indexed: number;
  updated: number;
  unchanged: number;
  removed: number;
}

/** QMD's content hash (store.js `hashContent`): sha256 of the text, hex. */
export function qmdContentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The title QMD's `update()` derives from a Markdown file (store.js
 * `extractTitle`): the first `#`/`##` heading, except that a heading reading
 * "Notes" defers to the first `##` one; else the file name. Kept identical so
 * a later rescan does not see a changed title.
 */
export function qmdMarkdownTitle(text: string, path: string): string {
  const match = text.match(/^##?\s+(.+)$/m);
  if (match) {
    const title = (match[1] ?? "").trim();
    if (title === "📝 Notes" || title === "Notes") {
      const next = text.match(/^##\s+(.+)$/m);
      if (next?.[1]) return next[1].trim();
    }
    return title;
  }
  return (
    path
      .replace(/\.[^.]+$/, "")
      .split("/")
      .pop() || path
  );
}

/** QMD's FTS text (store.js `normalizeCjkForFTS`): each CJK run spelled out one character per token. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
function ftsText(text: string): string {
  return text.replace(CJK_RUN, (run) => ` ${Array.from(run).join(" ")} `);
}
/** True when `ftsText` would change `text`: it holds a character of a CJK run. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * QMD's `store_config` key set once a store keeps every text in `content`
 * (`hydrate`); read inside each write transaction, so a process that
 * hydrated is followed by every other writer of the index.
 */
export const CONTENT_WHOLE_KEY = "llm_wiki_content_whole";

/**
 * The text of a document as QMD's readers would take it from `content`,
 * for a query over `documents d`, `content c` and `documents_fts f`
 * (`f.rowid = d.id`): `content.doc`, or the FTS body where `doc` was left
 * empty (the FTS row then holds the text verbatim).
 */
export const DOCUMENT_TEXT_SQL = "CASE WHEN c.doc = '' THEN f.body ELSE c.doc END";

/**
 * Merges the full-text index into one segment (FTS5's `optimize`). A bulk
 * load leaves one segment per batch, less what FTS5's automatic merging
 * joined (ten for Cranfield's 1,400 pages), and every term looked up seeks
 * each of them: counting a query's phrases, ranking the candidate pool and
 * a typo's few hundred spellings cost 2–12× what they do on one segment.
 * The rows, their terms and FTS5's BM25 figures stay exactly as they were.
 * Costs about 0.3 s at 10k pages, in the same pass as the load's writes.
 */
export function mergeFullText(db: Pick<QmdSqlDatabase, "exec" | "prepare">): void {
  db.exec("INSERT INTO documents_fts(documents_fts) VALUES('optimize')");
  // The merged segment is written before the old ones are let go, so their
  // pages stay in the file as free pages: a fifth of a 1k-page index, a
  // hundredth of a 100k one. Where that is a noticeable share, the private
  // generation is compacted (a small file: a fraction of a second).
  const count = (pragma: string) =>
    Number(
      Object.values(db.prepare(`PRAGMA ${pragma}`).get<Record<string, number>>() ?? {})[0] ?? 0,
    );
  const pages = count("page_count");
  if (pages > 0 && count("freelist_count") / pages > FREE_SHARE_COMPACTED) db.exec("VACUUM");
}

/** The share of free pages past which a merged index is compacted. */
const FREE_SHARE_COMPACTED = 0.05;

/** A writer bound to one open store; every statement is prepared once, here. */
export function createDocumentWriter(db: QmdSqlDatabase) {
  const findActive = db.prepare(
    "SELECT id, hash, title FROM documents WHERE collection = ? AND path = ? AND active = 1",
  );
  // A row left empty gets its text when it is now to be kept whole (a page
  // back after a removal, in a store hydrated since): QMD's trigger copies it.
  const insertContent = db.prepare(`
    INSERT INTO content (hash, doc, created_at) VALUES (?, ?, ?)
    ON CONFLICT(hash) DO UPDATE SET doc = excluded.doc
    WHERE content.doc = '' AND excluded.doc <> ''`);
  // An inactive row of the same path comes back to life, as in QMD's insertDocument.
  const insertDocument = db.prepare(`
    INSERT INTO documents (collection, path, title, hash, created_at, modified_at, active)
    VALUES (?, ?, ?, ?, ?, ?, 1)
    ON CONFLICT(collection, path) DO UPDATE SET
      title = excluded.title, hash = excluded.hash, modified_at = excluded.modified_at, active = 1
    RETURNING id`);
  const updateDocument = db.prepare(
    "UPDATE documents SET title = ?, hash = ?, modified_at = ? WHERE id = ?",
  );
  const updateTitle = db.prepare("UPDATE documents SET title = ?, modified_at = ? WHERE id = ?");
  // QMD's triggers keep the FTS row in step with the document row (and drop
  // it on deactivation), verbatim: `collection || '/' || path`, the title,
  // and the content row's text. QMD then rewrites it with its CJK spelling.
  const deleteFts = db.prepare("DELETE FROM documents_fts WHERE rowid = ?");
  const insertFts = db.prepare(
    "INSERT INTO documents_fts(rowid, filepath, title, body) VALUES (?, ?, ?, ?)",
  );
  const deactivate = db.prepare(
    "UPDATE documents SET active = 0 WHERE collection = ? AND path = ? AND active = 1",
  );
  // QMD's own sweep (`cleanupOrphanedContent`) scans every content row; only
  // the hashes this batch dropped can have become orphans.
  const dropContent = db.prepare(
    "DELETE FROM content WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM documents WHERE hash = ?)",
  );
  const wholeFlag = db.prepare("SELECT value FROM store_config WHERE key = ?");
  const setWhole = db.prepare("INSERT OR REPLACE INTO store_config (key, value) VALUES (?, '1')");
  // Only texts the FTS rows hold verbatim were left empty, and an inactive
  // document has no FTS row: such a content row stays empty (nothing embeds it).
  const fillContent = db.prepare(`
    UPDATE content SET doc = COALESCE((
      SELECT f.body FROM documents d JOIN documents_fts f ON f.rowid = d.id
      WHERE d.hash = content.hash AND d.active = 1 LIMIT 1), '')
    WHERE doc = ''`);
  /** Whether this store keeps every text in `content`; read in the write transaction. */
  let whole = false;

  /**
   * Gives row `id` its text in QMD's CJK spelling. QMD's trigger wrote the
   * row from `content.doc`: where that holds the text and no field holds a
   * CJK character (whose spelling is then the text itself), the row is
   * already byte-identical and rewriting it (two more tokenisations of the
   * page) is skipped.
   */
  const writeFts = (id: number, collection: string, path: string, title: string, text: string) => {
    const filepath = `${collection}/${path}`;
    if (whole && !CJK_CHAR.test(filepath) && !CJK_CHAR.test(title) && !CJK_CHAR.test(text)) return;
    deleteFts.run(id);
    insertFts.run(id, ftsText(filepath), ftsText(title), ftsText(text));
  };
  /** What `content.doc` keeps of `text`: nothing where the FTS row holds it verbatim. */
  const stored = (text: string): string => (whole || CJK_CHAR.test(text) ? text : "");

  return {
    /**
     * Writes `upserts` and deactivates `removals` in one transaction (all or
     * nothing), then drops content rows no document uses any more. Empty text
     * is skipped, as QMD's rescan skips empty files.
     */
    apply(
      upserts: readonly DocumentUpsert[],
      removals: readonly DocumentRemoval[],
    ): DocumentApplyResult {
      const result: DocumentApplyResult = { indexed: 0, updated: 0, unchanged: 0, removed: 0 };
      const dropped = new Set<string>();
      const now = new Date().toISOString();
      db.exec("BEGIN IMMEDIATE");
      try {
        whole = wholeFlag.get(CONTENT_WHOLE_KEY) !== undefined;
        for (const { collection, path } of removals) {
          const existing = findActive.get<{ hash: string }>(collection, path);
          if (!existing) continue;
          deactivate.run(collection, path);
          dropped.add(existing.hash);
          result.removed += 1;
        }
        for (const { collection, path, text } of upserts) {
          if (!text.trim()) continue;
          const hash = qmdContentHash(text);
          const title = qmdMarkdownTitle(text, path);
          const existing = findActive.get<{ id: number; hash: string; title: string }>(
            collection,
            path,
          );
          if (existing?.hash === hash) {
            if (existing.title === title) {
              result.unchanged += 1;
            } else {
              updateTitle.run(title, now, existing.id);
              writeFts(existing.id, collection, path, title, text);
              result.updated += 1;
            }
            continue;
          }
          insertContent.run(hash, stored(text), now);
          if (existing) {
            updateDocument.run(title, hash, now, existing.id);
            writeFts(existing.id, collection, path, title, text);
            dropped.add(existing.hash);
            result.updated += 1;
          } else {
            const row = insertDocument.get<{ id: number }>(collection, path, title, hash, now, now);
            if (row) writeFts(row.id, collection, path, title, text);
            result.indexed += 1;
          }
        }
        for (const hash of dropped) dropContent.run(hash, hash);
        db.exec("COMMIT");
      } catch (error) {
        // A full disk (SQLITE_FULL) can end the transaction on SQLite's side:
        // the error says why, and a ROLLBACK of nothing would replace it.
        if (db.inTransaction !== false) db.exec("ROLLBACK");
        throw error;
      }
      return result;
    },

    /**
     * Puts every text back into `content` for QMD's own readers (embedding
     * chunks `content.doc`; vector and expanded search return it) and marks
     * the store whole, so later writes keep it there. Once per store: a
     * store already whole is only read.
     */
    hydrate(): void {
      if (wholeFlag.get(CONTENT_WHOLE_KEY) !== undefined) return;
      db.exec("BEGIN IMMEDIATE");
      try {
        fillContent.run();
        setWhole.run(CONTENT_WHOLE_KEY);
        db.exec("COMMIT");
      } catch (error) {
        if (db.inTransaction !== false) db.exec("ROLLBACK");
        throw error;
      }
    },
  };
}
