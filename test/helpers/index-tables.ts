/**
 * Every table of an index database as rows, to hold two builds to the same
 * contents: QMD's own tables, FTS5's shadow tables (the full-text index's
 * segments and sizes) and SQLite's. Only the clock may differ between two
 * builds of the same pages and the folder each was built in: ISO timestamps
 * (`created_at`, `modified_at`) read as one placeholder, and so do
 * generation folders' names in paths (`store_collections.path`).
 */
import { openQmdSqlite } from "./qmd-sqlite.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const GENERATION = /\/gen-[0-9]+-[a-z0-9]+-[a-z0-9]+\//g;

/** One cell as compared: blobs by their bytes, timestamps as one placeholder. */
function cell(value: unknown): unknown {
  if (value instanceof Uint8Array) return `blob:${Buffer.from(value).toString("base64")}`;
  if (typeof value === "string" && ISO_TIME.test(value)) return "<time>";
  if (typeof value === "string") return value.replace(GENERATION, "/<generation>/");
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** Each table of the database at `path` by name: its rows (columns by name), in a fixed order. */
export function indexTables(path: string): Record<string, string[]> {
  const db = openQmdSqlite<{
    prepare(sql: string): { all(): Array<Record<string, unknown>> };
    close(): void;
  }>(path, { readonly: true });
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => String(row.name));
    const tables: Record<string, string[]> = {};
    for (const name of names) {
      const rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all();
      tables[name] = rows
        .map((row) => JSON.stringify(Object.entries(row).map(([k, v]) => [k, cell(v)])))
        .sort();
    }
    return tables;
  } finally {
    db.close();
  }
}
