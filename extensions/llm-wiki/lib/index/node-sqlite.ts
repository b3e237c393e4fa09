/**
 * Node's own SQLite (`node:sqlite`) as a read-only driver for an existing
 * index: a hook's lexical-first store reads with it instead of loading
 * better-sqlite3, whose module and native library took 8–15 ms of every
 * hook on a quiet machine (33–86 ms under load, against 0.5–1.2 ms here).
 * The statements a reader runs (prepare, get, all, close) behave the same in
 * both drivers, and Node's SQLite is built with FTS5 and JSON, so a search
 * answers the same (test/qmd-store.test.ts compares them). Node 22 still
 * calls the module experimental and warns on stderr when it loads; that
 * one warning is dropped while it loads, any other passes through.
 */
import type { DatabaseSync } from "node:sqlite";
import type { SqliteConnection, SqliteConstructor } from "./qmd-read-only.ts";

/** better-sqlite3's default page cache (16 MB); Node's own default is 2 MB. */
const CACHE_SIZE_KIB = 16_000;

type SqliteModule = { DatabaseSync: typeof DatabaseSync };

/** `node:sqlite`, loaded without its experimental warning; undefined where Node has none. */
function loadNodeSqlite(): SqliteModule | undefined {
  const emit = process.emitWarning;
  // Only while the module loads: the warning is emitted synchronously then.
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return process.getBuiltinModule("node:sqlite") as SqliteModule | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * A constructor opening an existing database read-only through
 * `node:sqlite`, with better-sqlite3's call shape; undefined when this Node
 * has no `node:sqlite`.
 */
export function nodeSqliteReader(): SqliteConstructor | undefined {
  const mod = loadNodeSqlite();
  if (!mod) return undefined;
  const { DatabaseSync: Database } = mod;
  return class NodeSqliteReader implements SqliteConnection {
    readonly #db: DatabaseSync;
    constructor(source: string | Buffer, options?: { readonly?: boolean }) {
      if (typeof source !== "string" || options?.readonly !== true)
        throw new TypeError("node:sqlite here opens an existing file read-only");
      // Read-only: a missing file fails to open, as `fileMustExist` asks.
      this.#db = new Database(source, { readOnly: true });
      this.#db.exec(`PRAGMA cache_size = -${CACHE_SIZE_KIB}`);
    }
    prepare(sql: string) {
      const statement = this.#db.prepare(sql);
      return {
        all: <T>(...params: Array<string | number>): T[] => statement.all(...params) as T[],
        get: <T>(...params: Array<string | number>): T | undefined =>
          statement.get(...params) as T | undefined,
      };
    }
    close(): void {
      this.#db.close();
    }
  } as SqliteConstructor;
}
