/**
 * A rebuild's fresh database is loaded without per-commit durability
 * (lib/index/bulk-load.ts) and made durable once, by `close()`: from then on
 * it is the WAL database QMD keeps, whole in its file, and reopens as usual.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { openQmdStore, type QmdStore } from "../extensions/llm-wiki/lib/index/qmd-store.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";
import { randomWord } from "./helpers/random-text.ts";

const dirs: string[] = [];
const open: QmdStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Db {
  pragma(sql: string): unknown;
  prepare(sql: string): { get(): unknown };
  close(): void;
}

const connect = (path: string) => openQmdSqlite<Db>(path);

async function loaded(bulkLoad: boolean) {
  const root = mkdtempSync(join(tmpdir(), "llm-wiki-bulk-"));
  dirs.push(root);
  const dbPath = join(root, "gen", "index.sqlite");
  const collections = [
    { name: "canonical-0", dir: join(root, "docs"), role: "canonical" as const },
  ];
  const store = await openQmdStore({
    dbPath,
    collections,
    models: resolveModels({}),
    ...(bulkLoad ? { bulkLoad } : {}),
  });
  open.push(store);
  const word = randomWord(8, 12);
  const docs = Array.from({ length: 300 }, (_, i) => ({
    collection: "canonical-0",
    path: `p${i}.md`,
    text: `# Page ${i}\n\n${i === 7 ? word : randomWord()} ${"filler text ".repeat(40)}\n`,
  }));
  for (let at = 0; at < docs.length; at += 100)
    await store.applyDocuments(docs.slice(at, at + 100), []);
  return { store, dbPath, collections, word };
}

describe("a bulk-loaded index database", () => {
  it("writes nothing to a WAL while loading, and is a whole, checkpointed WAL database once closed", async () => {
    const { store, dbPath, collections, word } = await loaded(true);
    // The journal is in memory: no WAL file grows beside the database.
    expect(existsSync(`${dbPath}-wal`) ? statSync(`${dbPath}-wal`).size : 0).toBe(0);
    await store.close();
    expect(existsSync(`${dbPath}-wal`) ? statSync(`${dbPath}-wal`).size : 0).toBe(0);
    const db = connect(dbPath);
    try {
      expect(db.pragma("journal_mode")).toEqual([{ journal_mode: "wal" }]);
      expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
      expect(db.prepare("SELECT count(*) AS n FROM documents_fts").get()).toEqual({ n: 300 });
    } finally {
      db.close();
    }
    const reopened = await openQmdStore({ dbPath, collections, models: resolveModels({}) });
    open.push(reopened);
    expect((await reopened.searchLex(word)).map((h) => h.pageId)).toEqual(["p7"]);
  });
});
