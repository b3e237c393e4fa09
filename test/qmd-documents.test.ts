/**
 * Direct document writes (qmd-documents.ts through `QmdStore.applyDocuments`)
 * against the real QMD SDK: they must leave the index exactly as QMD's own
 * rescan of the same mirror files would, so the two paths mix freely.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { qmdMarkdownTitle } from "../extensions/llm-wiki/lib/index/qmd-documents.ts";
import {
  openQmdStore,
  type QmdCollectionSpec,
  type QmdStore,
} from "../extensions/llm-wiki/lib/index/qmd-store.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";
import { CorpusRandom, corpusSeed, corpusSeedNote } from "./helpers/secret-corpus.ts";

const open: QmdStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fixture() {
  const root = mkdtempSync(join(tmpdir(), "llm-wiki-qmd-docs-"));
  dirs.push(root);
  const collections: QmdCollectionSpec[] = [
    { name: "canonical-0", dir: join(root, "docs", "canonical-0"), role: "canonical" },
    { name: "evidence-0", dir: join(root, "docs", "evidence-0"), role: "evidence" },
  ];
  const dbPath = join(root, "index.sqlite");
  const store = await openQmdStore({
    dbPath,
    collections,
    models: resolveModels({}),
  });
  open.push(store);
  /** Writes the mirror file and returns the document to apply. */
  const doc = (collection: string, path: string, text: string) => {
    const file = join(root, "docs", collection, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return { collection, path, text };
  };
  const remove = (collection: string, path: string) => {
    rmSync(join(root, "docs", collection, path));
    return { collection, path };
  };
  return { store, doc, remove, dbPath };
}

interface Db {
  prepare(sql: string): { all(...a: unknown[]): unknown[] };
  close(): void;
}

/** Every FTS row of the active documents, by file path: exactly the text FTS5 tokenised. */
function ftsRows(dbPath: string): unknown[] {
  const db = openQmdSqlite<Db>(dbPath, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT d.collection || '/' || d.path AS key, f.filepath, f.title, f.body
         FROM documents d LEFT JOIN documents_fts f ON f.rowid = d.id
         WHERE d.active = 1 ORDER BY key`,
      )
      .all();
    const orphans = db
      .prepare(
        "SELECT rowid FROM documents_fts WHERE rowid NOT IN (SELECT id FROM documents WHERE active = 1)",
      )
      .all();
    return [...rows, { orphans }];
  } finally {
    db.close();
  }
}

/** Words from every script QMD's FTS spelling treats apart, and some it does not. */
const SCRIPTS = [
  "abcdefghijklmnopqrstuvwxyz",
  "召回检索系统率衡量找到多少相关页面",
  "ひらがなのもじをかく",
  "カタカナノモジヲカク",
  "한국어검색시스템문서",
  "éüñçøåß",
  "αβγδεζηθ",
  "🙂🚀",
];

function randomText(rand: CorpusRandom, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    // Mostly one script per run of words, so CJK runs of several characters occur.
    const script = rand.int(3) === 0 ? rand.pick(SCRIPTS) : (SCRIPTS[0] ?? "");
    const word = Array.from({ length: rand.between(1, 6) }, () => rand.pick(Array.from(script)));
    out.push(word.join(""));
    if (rand.int(12) === 0) out.push("\n");
  }
  return out.join(rand.int(4) === 0 ? "" : " ");
}

const PAGES: Array<[string, string, string]> = [
  ["canonical-0", "concepts/rrf.md", "# Reciprocal Rank Fusion\n\nMerges ranked lists.\n"],
  ["canonical-0", "concepts/notes.md", "# Notes\n\n## Meeting notes on fusion\n\nBody text.\n"],
  ["canonical-0", "concepts/plain.md", "No heading in this page about quokkas.\n"],
  ["evidence-0", "sources/recall.md", "# 召回研究\n\n检索系统的召回率衡量找到了多少相关页面。\n"],
  ["evidence-0", "sources/copy.md", "# Reciprocal Rank Fusion\n\nMerges ranked lists.\n"],
];

describe("applyDocuments", () => {
  it("leaves nothing for QMD's own rescan of the same files to change", async () => {
    const { store, doc } = await fixture();
    const applied = await store.applyDocuments(
      PAGES.map(([c, p, t]) => doc(c, p, t)),
      [],
    );
    expect(applied).toEqual({ indexed: 5, updated: 0, unchanged: 0, removed: 0 });
    const rescan = await store.update();
    expect(rescan).toMatchObject({ indexed: 0, updated: 0, removed: 0, unchanged: 5 });
    expect((await store.status()).documents).toBe(5);
  });

  it("indexes the same FTS text as QMD's own rescan: every query scores identically", async () => {
    const direct = await fixture();
    const rescanned = await fixture();
    await direct.store.applyDocuments(
      PAGES.map(([c, p, t]) => direct.doc(c, p, t)),
      [],
    );
    for (const [c, p, t] of PAGES) rescanned.doc(c, p, t);
    await rescanned.store.update();
    for (const query of [
      "reciprocal fusion",
      "召回率 检索",
      "meeting notes",
      "quokkas",
      "canonical-0",
    ]) {
      const a = await direct.store.searchLex(query, { limit: 10 });
      const b = await rescanned.store.searchLex(query, { limit: 10 });
      expect(a.map((h) => [h.pageId, h.title, h.rawScore, h.bestChunk])).toEqual(
        b.map((h) => [h.pageId, h.title, h.rawScore, h.bestChunk]),
      );
      expect(a.length).toBeGreaterThan(0);
    }
  });

  it("writes FTS rows byte-identical to QMD's own rescan: random pages in every script, updates and returns included", async () => {
    const seed = corpusSeed();
    const note = corpusSeedNote(seed);
    const rand = new CorpusRandom(seed);
    const direct = await fixture();
    const pagePath = (i: number) =>
      `${rand.pick(["concepts", "sources", "概念", "資料"])}/p${i}${rand.int(3) === 0 ? randomText(rand, 1).replace(/[\s/\\]/g, "") : ""}.md`;
    const pageText = () =>
      `${rand.int(4) === 0 ? "" : `# ${randomText(rand, rand.between(1, 5))}\n\n`}${randomText(rand, rand.between(5, 80))}\n`;
    const files = new Map<string, { collection: string; path: string; text: string }>();
    for (let i = 0; i < 40; i++) {
      const collection = rand.pick(["canonical-0", "evidence-0"]);
      const path = pagePath(i);
      files.set(`${collection}/${path}`, { collection, path, text: pageText() });
    }
    await direct.store.applyDocuments(
      [...files.values()].map((f) => direct.doc(f.collection, f.path, f.text)),
      [],
    );
    // Second batch: changed bodies (and so titles), removals, and a removed page back.
    const entries = [...files.entries()];
    const removed = entries.filter((_, i) => i % 5 === 0);
    await direct.store.applyDocuments(
      entries
        .filter((_, i) => i % 3 === 0 && i % 5 !== 0)
        .map(([key, f]) => {
          const text = pageText();
          files.set(key, { ...f, text });
          return direct.doc(f.collection, f.path, text);
        }),
      removed.map(([key, f]) => {
        files.delete(key);
        return direct.remove(f.collection, f.path);
      }),
    );
    const back = removed[0]?.[1];
    if (back) {
      const text = pageText();
      files.set(`${back.collection}/${back.path}`, { ...back, text });
      await direct.store.applyDocuments([direct.doc(back.collection, back.path, text)], []);
    }
    const rescanned = await fixture();
    for (const f of files.values()) rescanned.doc(f.collection, f.path, f.text);
    await rescanned.store.update();
    const written = ftsRows(direct.dbPath);
    expect(written.length, note).toBe(files.size + 1);
    expect(written, note).toEqual(ftsRows(rescanned.dbPath));
  });

  it("makes written pages searchable at once, in every script, under QMD's titles", async () => {
    const { store, doc } = await fixture();
    await store.applyDocuments(
      PAGES.map(([c, p, t]) => doc(c, p, t)),
      [],
    );
    const hits = await store.searchLex("meeting fusion");
    expect(hits.map((h) => h.pageId)).toContain("concepts/notes");
    expect(hits.find((h) => h.pageId === "concepts/notes")?.title).toBe("Meeting notes on fusion");
    expect((await store.searchLex("召回率")).map((h) => h.pageId)).toEqual(["sources/recall"]);
    expect((await store.searchLex("quokkas"))[0]?.title).toBe("plain");
  });

  it("updates a changed page, deactivates a removed one, and agrees with a rescan afterwards", async () => {
    const { store, doc, remove } = await fixture();
    await store.applyDocuments(
      PAGES.map(([c, p, t]) => doc(c, p, t)),
      [],
    );
    const result = await store.applyDocuments(
      [
        doc("canonical-0", "concepts/rrf.md", "# Reciprocal Rank Fusion\n\nNow mentions zebras.\n"),
        doc("evidence-0", "sources/copy.md", "# Reciprocal Rank Fusion\n\nMerges ranked lists.\n"),
      ],
      [remove("canonical-0", "concepts/plain.md"), { collection: "canonical-0", path: "gone.md" }],
    );
    expect(result).toEqual({ indexed: 0, updated: 1, unchanged: 1, removed: 1 });
    expect((await store.searchLex("zebras")).map((h) => h.pageId)).toEqual(["concepts/rrf"]);
    expect(await store.searchLex("quokkas")).toEqual([]);
    expect(await store.update()).toMatchObject({ indexed: 0, updated: 0, removed: 0 });
    expect((await store.status()).documents).toBe(4);
  });

  it("changes nothing when one document of the batch is refused", async () => {
    const { store, doc } = await fixture();
    await expect(
      store.applyDocuments(
        [
          doc("canonical-0", "a.md", "# A\n\nalpha\n"),
          { collection: "nope", path: "b.md", text: "# B\n" },
        ],
        [],
      ),
    ).rejects.toThrow(/unknown collection/);
    expect(await store.searchLex("alpha")).toEqual([]);
  });
});

describe("the text kept once", () => {
  it("leaves content empty where the FTS row holds the text, and QMD's reopen keeps every row", async () => {
    const { store, doc, dbPath } = await fixture();
    await store.applyDocuments(
      PAGES.map(([c, p, t]) => doc(c, p, t)),
      [],
    );
    const db = openQmdSqlite<Db>(dbPath, { readonly: true });
    const rows = db
      .prepare(
        `SELECT d.path AS path, c.doc AS doc FROM documents d JOIN content c ON c.hash = d.hash
         WHERE d.active = 1 ORDER BY d.path`,
      )
      .all() as Array<{ path: string; doc: string }>;
    db.close();
    // Only the CJK page (spaced apart in its FTS row) keeps its text in content.
    expect(rows.filter((r) => r.doc !== "").map((r) => r.path)).toEqual(["sources/recall.md"]);
    const before = ftsRows(dbPath);
    await store.close();
    open.splice(open.indexOf(store), 1);
    // QMD's open runs its schema checks (and would rebuild documents_fts from content if it chose to).
    const reopened = await openQmdStore({
      dbPath,
      collections: [
        {
          name: "canonical-0",
          dir: join(dirname(dbPath), "docs", "canonical-0"),
          role: "canonical",
        },
        { name: "evidence-0", dir: join(dirname(dbPath), "docs", "evidence-0"), role: "evidence" },
      ],
      models: resolveModels({}),
    });
    open.push(reopened);
    expect(ftsRows(dbPath)).toEqual(before);
    expect((await reopened.searchLex("quokkas")).map((h) => h.pageId)).toEqual(["concepts/plain"]);
  });

  it("relies on QMD rebuilding documents_fts only when its CJK spelling version changes", () => {
    // A new version makes QMD's first open rebuild every FTS row from
    // content.doc, which is empty for most pages here: such an upgrade must
    // bump INDEX_FORMAT (mirror.ts), so every generation is rebuilt from the pages.
    const qmd = dirname(
      realpathSync(
        join(import.meta.dirname, "..", "node_modules", "@tobilu", "qmd", "package.json"),
      ),
    );
    const store = readFileSync(join(qmd, "dist", "store.js"), "utf8");
    expect(/^const FTS_CJK_NORMALIZED_VERSION = "([^"]+)"/m.exec(store)?.[1]).toBe("1");
    expect(store).toContain("if (cjkRebuildVersion(db) === FTS_CJK_NORMALIZED_VERSION)");
  });
});

describe("qmdMarkdownTitle", () => {
  it("follows QMD's rule: first # or ## heading, a 'Notes' heading defers to the first ##, else the file name", () => {
    expect(qmdMarkdownTitle("# Title\n\n## Sub\n", "a/b.md")).toBe("Title");
    expect(qmdMarkdownTitle("intro\n## Second level\n", "a/b.md")).toBe("Second level");
    expect(qmdMarkdownTitle("# Notes\n\n## Real\n", "a/b.md")).toBe("Real");
    expect(qmdMarkdownTitle("# 📝 Notes\n", "a/b.md")).toBe("📝 Notes");
    expect(qmdMarkdownTitle("### deep only\n", "dir/page-name.md")).toBe("page-name");
  });
});
