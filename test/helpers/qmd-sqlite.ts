/**
 * SQLite as QMD loads it: better-sqlite3 is QMD's dependency, not this
 * package's, so specs that read an index or ask SQLite itself as an oracle
 * (its tokenizer, its `lower`/`instr`) load it from QMD's folder. Each spec
 * declares the slice of the driver it uses.
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

/** A connection to `path` (":memory:" by default), typed as the caller's slice of better-sqlite3. */
export function openQmdSqlite<Db>(path = ":memory:", options: { readonly?: boolean } = {}): Db {
  const qmdRequire = createRequire(
    realpathSync(join(root, "node_modules", "@tobilu", "qmd", "package.json")),
  );
  const Database = qmdRequire("better-sqlite3") as new (
    path: string,
    options: { readonly?: boolean },
  ) => Db;
  return new Database(path, options);
}
