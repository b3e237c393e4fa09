/**
 * A rebuild's bulk load writes its documents on a worker thread
 * (document-load.ts). What it leaves in the index must be exactly what the
 * in-thread writer leaves for the same batches, a batch that fails must roll
 * back alone and fail the load with SQLite's own code (a full disk stays a
 * full disk), and the bundle must ship the worker where the load looks for it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Metafile } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import {
  documentLoadWorker,
  documentLoadWorkerUrl,
  startDocumentLoad,
} from "../extensions/llm-wiki/lib/index/document-load.ts";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import type {
  DocumentRemoval,
  DocumentUpsert,
} from "../extensions/llm-wiki/lib/index/qmd-documents.ts";
import {
  openQmdStore,
  type QmdCollectionSpec,
  qmdRequire,
} from "../extensions/llm-wiki/lib/index/qmd-store.ts";
import { checkWorkerBeside } from "../scripts/build.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { childEnv } from "./helpers/index-services.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-doc-load-"));
  dirs.push(dir);
  return dir;
}

function collectionsIn(root: string): QmdCollectionSpec[] {
  return [
    { name: "canonical-0", dir: join(root, "docs", "canonical-0"), role: "canonical" },
    { name: "evidence-0", dir: join(root, "docs", "evidence-0"), role: "evidence" },
  ];
}

interface Db {
  prepare(sql: string): { all(...a: unknown[]): unknown[]; run(...a: unknown[]): unknown };
  exec(sql: string): void;
  close(): void;
}

/** Everything a load writes that recall reads, without the write times. */
function indexRows(dbPath: string): Record<string, unknown[]> {
  const db = openQmdSqlite<Db>(dbPath, { readonly: true });
  try {
    return {
      documents: db
        .prepare(
          "SELECT collection, path, title, hash, active FROM documents ORDER BY collection, path",
        )
        .all(),
      content: db.prepare("SELECT hash, doc FROM content ORDER BY hash").all(),
      fts: db
        .prepare(
          `SELECT d.collection || '/' || d.path AS key, f.filepath, f.title, f.body
           FROM documents d JOIN documents_fts f ON f.rowid = d.id ORDER BY key`,
        )
        .all(),
      ftsRows: db.prepare("SELECT count(*) AS n FROM documents_fts").all(),
    };
  } finally {
    db.close();
  }
}

/**
 * The full-text index's segments (a data row's id holds its segment's
 * number above bit 37; 0 is FTS5's own records), and each query's rows with
 * FTS5's BM25 figure under QMD's column weights.
 */
function fullText(
  dbPath: string,
  queries: readonly string[],
): { segments: number; scores: unknown[][]; freeShare: number } {
  const db = openQmdSqlite<Db>(dbPath, { readonly: true });
  try {
    const ids = db.prepare("SELECT id FROM documents_fts_data").all() as Array<{ id: number }>;
    const segments = new Set(ids.map(({ id }) => Math.floor(id / 2 ** 37)).filter((s) => s > 0));
    const ranked = db.prepare(
      "SELECT rowid AS id, bm25(documents_fts, 1.5, 4.0, 1.0) AS bm25 FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rowid",
    );
    const pragma = (name: string) =>
      Number(Object.values((db.prepare(`PRAGMA ${name}`).all()[0] ?? {}) as object)[0]);
    return {
      segments: segments.size,
      scores: queries.map((q) => ranked.all(q)),
      freeShare: pragma("freelist_count") / pragma("page_count"),
    };
  } finally {
    db.close();
  }
}

function worker(): URL {
  const url = documentLoadWorker();
  if (!url) throw new Error("the sources hold the worker's module");
  return url;
}

const SEED = Number(process.env.DOCUMENT_LOAD_SEED || Math.floor(Math.random() * 2 ** 31));
const seedNote = `document load seed ${SEED} (replay: DOCUMENT_LOAD_SEED=${SEED})`;

/** Batches of writes over a few paths: new pages, rewrites, same bytes, new titles, removals, CJK and empty texts. */
function batchesFrom(r: CorpusRandom): Array<{
  upserts: DocumentUpsert[];
  removals: DocumentRemoval[];
}> {
  const word = () => r.pick(["harbour", "crane", "ledger", "sync", "rotation", "quota", "vector"]);
  const words = (n: number) => Array.from({ length: n }, word).join(" ");
  const text = (): string => {
    const shape = r.int(6);
    if (shape === 0) return "";
    if (shape === 1) return `# ${words(2)}\n\n${words(8)} 港口起重机 ${words(3)}\n`;
    if (shape === 2) return `## Notes\n\n## ${words(2)}\n\n${words(12)}\n`;
    return `# ${words(3)}\n\n${words(r.between(5, 40))}\n`;
  };
  const paths = Array.from({ length: 12 }, (_, i) => `page-${i}.md`);
  const collection = () => r.pick(["canonical-0", "evidence-0"]);
  const written = new Map<string, DocumentUpsert>();
  const batches = Array.from({ length: r.between(4, 9) }, () => {
    const upserts: DocumentUpsert[] = [];
    for (let i = r.between(1, 6); i > 0; i -= 1) {
      const path = r.pick(paths);
      const before = written.get(path);
      const same = before && r.int(4) === 0;
      const retitled = before && r.int(4) === 0 ? `# ${words(2)}\n\n${before.text}` : undefined;
      const doc = same
        ? before
        : { collection: before?.collection ?? collection(), path, text: retitled ?? text() };
      upserts.push(doc);
      written.set(path, doc);
    }
    const removals: DocumentRemoval[] = [];
    for (const [path, doc] of written) {
      if (r.int(4) !== 0) continue;
      removals.push({ collection: doc.collection, path });
      written.delete(path);
    }
    return { upserts, removals };
  });
  // At least one removal of a written page, whatever the draw.
  const [path, doc] = [...written][0] ?? [];
  if (path && doc) batches.push({ upserts: [], removals: [{ collection: doc.collection, path }] });
  return batches;
}

describe("a bulk load on a worker thread", () => {
  it("leaves the index exactly as the in-thread writer does, batch by batch", async () => {
    const batches = batchesFrom(new CorpusRandom(SEED));
    const results: Record<string, unknown[]> = {};
    const rows: Record<string, Record<string, unknown[]>> = {};
    for (const bulkLoad of [true, false]) {
      const root = tempDir();
      const dbPath = join(root, "index.sqlite");
      const store = await openQmdStore({
        dbPath,
        collections: collectionsIn(root),
        models: resolveModels({}),
        bulkLoad,
      });
      const own: unknown[] = [];
      try {
        for (const { upserts, removals } of batches)
          own.push(await store.applyDocuments(upserts, removals));
      } finally {
        await store.close();
      }
      results[String(bulkLoad)] = own;
      rows[String(bulkLoad)] = indexRows(dbPath);
    }
    expect(results.true, seedNote).toEqual(results.false);
    expect(rows.true, seedNote).toEqual(rows.false);
    // Something was written: equal empty indexes would prove nothing.
    expect(rows.true?.documents?.length, seedNote).toBeGreaterThan(0);
  });

  it("rolls back a failing batch alone and fails the load with SQLite's code", async () => {
    const root = tempDir();
    const dbPath = join(root, "index.sqlite");
    const made = await openQmdStore({
      dbPath,
      collections: collectionsIn(root),
      models: resolveModels({}),
    });
    await made.close();
    // A trigger of the test's own makes one document fail to insert.
    const db = openQmdSqlite<Db>(dbPath);
    db.exec(
      "CREATE TRIGGER refuse_bad BEFORE INSERT ON documents WHEN new.path = 'bad.md' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    );
    db.close();
    const load = startDocumentLoad(worker(), {
      sqlitePath: qmdRequire().resolve("better-sqlite3"),
      dbPath,
    });
    const doc = (path: string) => ({
      collection: "canonical-0",
      path,
      text: `# ${path}\n\nharbour crane\n`,
    });
    await expect(load.apply([doc("good.md")], [])).resolves.toMatchObject({ indexed: 1 });
    const failed = load.apply([doc("also.md"), doc("bad.md")], []);
    await expect(failed).rejects.toMatchObject({
      message: expect.stringContaining("refused by the test"),
      code: expect.stringMatching(/^SQLITE_CONSTRAINT/),
    });
    await expect(load.apply([doc("later.md")], [])).rejects.toThrow("refused by the test");
    await expect(load.close()).rejects.toThrow("refused by the test");
    const paths = indexRows(dbPath).documents?.map((d) => (d as { path: string }).path);
    expect(paths).toEqual(["good.md"]);
  });

  it("merges the full-text index into one segment, every row's BM25 figure unchanged", async () => {
    const r = new CorpusRandom(SEED + 1);
    const words = Array.from(
      { length: r.between(30, 80) },
      (_, i) => `w${i}${r.chars("bdgkz", 3)}`,
    );
    const page = () =>
      Array.from(
        { length: r.between(3, 60) },
        () => words[Math.floor(r.int(words.length) ** 2 / words.length)] as string,
      ).join(" ");
    for (const bulkLoad of [true, false]) {
      const root = tempDir();
      const dbPath = join(root, "index.sqlite");
      const store = await openQmdStore({
        dbPath,
        collections: collectionsIn(root),
        models: resolveModels({}),
        bulkLoad,
      });
      try {
        // One segment per batch, less what FTS5's own merging joins.
        for (let b = 0; b < 12; b += 1)
          await store.applyDocuments(
            Array.from({ length: r.between(1, 8) }, (_, i) => ({
              collection: "canonical-0",
              path: `b${b}-p${i}.md`,
              text: `# ${page().split(" ").slice(0, 3).join(" ")}\n\n${page()}\n`,
            })),
            [],
          );
        const queries = [...words.slice(0, 8), `${words[0]} OR ${words[5]} OR ${words[20]}`];
        const before = fullText(dbPath, queries);
        expect(before.segments, `${seedNote}, bulk load ${bulkLoad}`).toBeGreaterThan(1);
        await store.mergeFullText();
        const after = fullText(dbPath, queries);
        expect(after.segments, seedNote).toBe(1);
        expect(after.scores, seedNote).toEqual(before.scores);
        // The old segments' pages are given back, not left free in the file.
        expect(after.freeShare, seedNote).toBeLessThanOrEqual(0.05);
        expect(after.scores.flat().length, seedNote).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    }
  });

  it("fails every batch with the reason when the worker cannot open the database", async () => {
    const dbPath = join(tempDir(), "no-such-folder", "index.sqlite");
    const load = startDocumentLoad(worker(), {
      sqlitePath: qmdRequire().resolve("better-sqlite3"),
      dbPath,
    });
    const batch = [{ collection: "canonical-0", path: "a.md", text: "# A\n\nharbour\n" }];
    await expect(load.apply(batch, [])).rejects.toThrow(/directory does not exist|unable to open/i);
    await expect(load.close()).rejects.toThrow(/directory does not exist|unable to open/i);
  });

  it("ends its worker on close: a process that built an index exits on its own", () => {
    const root = tempDir();
    const lib = join(import.meta.dirname, "..", "extensions", "llm-wiki", "lib", "index");
    const script = `
      import { openQmdStore } from ${JSON.stringify(join(lib, "qmd-store.ts"))};
      import { resolveModels } from ${JSON.stringify(join(lib, "models.ts"))};
      const root = ${JSON.stringify(root)};
      const store = await openQmdStore({
        dbPath: root + "/index.sqlite",
        collections: [{ name: "evidence-0", dir: root + "/docs/evidence-0", role: "evidence" }],
        models: resolveModels({}),
        bulkLoad: true,
      });
      await store.applyDocuments([{ collection: "evidence-0", path: "a.md", text: "# A\\n\\nquay\\n" }], []);
      await store.close();
      process.stdout.write("closed\\n");
    `;
    // A worker left running would keep the process alive until the timeout.
    const file = join(root, "build.mjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], {
      encoding: "utf8",
      env: childEnv(),
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("closed\n");
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
  });
});

describe("the bundle's worker", () => {
  it("is looked for beside the module that starts it, as TypeScript or as the bundle's JavaScript", () => {
    expect(documentLoadWorkerUrl("file:///pkg/lib/index/document-load.ts").href).toBe(
      "file:///pkg/lib/index/document-load-worker.ts",
    );
    expect(documentLoadWorkerUrl("file:///pkg/dist/chunks/chunk-AB12.js").href).toBe(
      "file:///pkg/dist/chunks/document-load-worker.js",
    );
    // Installed: Node runs no TypeScript under node_modules, so the bundle's worker.
    const installed = "file:///home/u/node_modules/llm-wiki-memory/extensions/llm-wiki/lib/index";
    expect(documentLoadWorkerUrl(`${installed}/document-load.ts`).href).toBe(
      "file:///home/u/node_modules/llm-wiki-memory/dist/chunks/document-load-worker.js",
    );
    // Installed without its build: none, and the load runs in-thread.
    expect(documentLoadWorker(`${installed}/document-load.ts`)).toBeUndefined();
  });

  it("fails the build when the starting module lands outside the worker's folder", () => {
    const starter = "extensions/llm-wiki/lib/index/document-load.ts";
    const metafile = (file: string): Metafile => ({
      inputs: {},
      outputs: {
        [file]: {
          bytes: 1,
          inputs: { [starter]: { bytesInOutput: 1 } },
          imports: [],
          exports: [],
        },
      },
    });
    const out = join(import.meta.dirname, "..", "dist");
    expect(() => checkWorkerBeside(metafile("dist/chunks/chunk-AB12.js"), out)).not.toThrow();
    expect(() => checkWorkerBeside(metafile("dist/cli/llm-wiki.js"), out)).toThrow(
      /must sit in dist\/chunks/,
    );
  });
});
