/**
 * Bulk loading of a fresh index database that nothing else can see yet (a
 * rebuild's new generation, private until the pointer swap): it is written
 * with its rollback journal in memory and without syncing, then made durable
 * once, in WAL mode as QMD keeps it, before the swap.
 *
 * A crash mid-build can at worst leave that private database torn, and
 * recovery removes every generation that is not live; the live one is never
 * touched. A failed batch still rolls back (the journal is in memory, not
 * gone). What this saves, at 10k pages: half the bytes written (each page
 * went to the WAL, then into the database at a checkpoint) and an fsync at
 * every commit and every automatic checkpoint.
 */
import { closeSync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";

/** The part of a better-sqlite3 connection used here. */
interface BulkDatabase {
  exec(sql: string): void;
  prepare(sql: string): { get(): unknown };
}

/** Makes the bulk-loaded database durable; throws when it could not be. */
export type SettleDurability = () => void;

/** The value of one-column pragma `sql`, e.g. `PRAGMA synchronous` → 2. */
function pragma(db: BulkDatabase, sql: string): unknown {
  const row = db.prepare(sql).get();
  return row && typeof row === "object" ? Object.values(row)[0] : undefined;
}

/**
 * Turns off syncing and the WAL on `db` (the database file at `dbPath`, open
 * on this one connection only) and returns the step that restores both: the
 * connection's own `synchronous` setting back, WAL mode back (which writes
 * the database file through and syncs it), then file and folder synced.
 */
export function deferDurability(db: BulkDatabase, dbPath: string): SettleDurability {
  const normal = pragma(db, "PRAGMA synchronous");
  const journal = pragma(db, "PRAGMA journal_mode");
  db.exec("PRAGMA synchronous = OFF");
  if (journal === "wal") db.exec("PRAGMA journal_mode = MEMORY");
  return () => {
    db.exec(`PRAGMA synchronous = ${typeof normal === "number" ? normal : 2}`);
    if (journal === "wal" && pragma(db, "PRAGMA journal_mode = WAL") !== "wal")
      throw new Error("the new index could not be switched back to WAL mode");
    // Nothing may stay in a WAL that no sync has covered.
    if (pragma(db, "PRAGMA wal_checkpoint(TRUNCATE)") !== 0)
      throw new Error("the new index could not be checkpointed");
    fsyncPath(dbPath);
    fsyncPath(dirname(dbPath));
  };
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
