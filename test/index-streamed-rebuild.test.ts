/**
 * A first index in a fresh process is fed by the registry refresh itself
 * (lib/index/streamed-load.ts): SQLite indexes each slice of pages while the
 * refresh reads the next ones, instead of the rebuild reading every page
 * again once the registry is done. The index it builds is the one a rebuild
 * from the finished registry builds: the same documents in the same order,
 * with the same texts, secrets redacted, rejected pages left out; and when
 * the pages fed cannot make that index (a collection boundary crossed by
 * rejected pages), the rebuild from the registry is what is kept.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { indexTables } from "./helpers/index-tables.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

interface Db {
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

/** SQLite as QMD loads it (better-sqlite3 is QMD's dependency, not ours), read-only. */
function connect(path: string): Db {
  return openQmdSqlite<Db>(path, { readonly: true });
}

/** The segments of the full-text index (a data row's id holds its segment's number above bit 37). */
function ftsSegments(db: Db): number {
  const ids = db.prepare("SELECT id FROM documents_fts_data").all() as Array<{ id: number }>;
  return new Set(ids.map(({ id }) => Math.floor(id / 2 ** 37)).filter((s) => s > 0)).size;
}

/** The live generation's documents in insertion order, with their texts, its manifest and every table. */
function liveIndex(vault: TempVault): {
  documents: unknown[];
  entries: Record<string, { hash: string; role: string; collection: string }>;
  shards: number;
  tables: Record<string, string[]>;
  segments: number;
} {
  const live = readFileSync(join(vault.paths.qmd, "LIVE"), "utf8").trim();
  const gen = join(vault.paths.qmd, live);
  const tables = indexTables(join(gen, "index.sqlite"));
  const db = connect(join(gen, "index.sqlite"));
  try {
    const documents = db
      .prepare(
        "SELECT d.id, d.collection, d.path, d.title, d.hash, f.filepath, f.body FROM documents d JOIN documents_fts f ON f.rowid = d.id WHERE d.active = 1 ORDER BY d.id",
      )
      .all();
    const manifest = JSON.parse(readFileSync(join(gen, "manifest.json"), "utf8")) as {
      entries: Record<string, { hash: string; role: string; collection: string }>;
      shards: number;
    };
    return {
      documents,
      entries: manifest.entries,
      shards: manifest.shards,
      tables,
      segments: ftsSegments(db),
    };
  } finally {
    db.close();
  }
}

const TYPES = ["concept", "entity", "source", "analysis"] as const;
const FOLDERS = {
  concept: "concepts",
  entity: "entities",
  source: "sources",
  analysis: "analyses",
};

/** `count` pages with random words and links between them; every `rejectEvery`-th is malformed (front matter that is not YAML). */
function pagesOf(count: number, rejectEvery = 0): Record<string, string> {
  const ids = Array.from({ length: count }, (_, i) => {
    const type = TYPES[i % TYPES.length] ?? "concept";
    return `${FOLDERS[type]}/p${String(i).padStart(5, "0")}-${randomWord(3, 6)}`;
  });
  const pages: Record<string, string> = {};
  ids.forEach((id, i) => {
    const type = TYPES[i % TYPES.length] ?? "concept";
    const fields: Record<string, string> =
      rejectEvery > 0 && i % rejectEvery === rejectEvery - 1
        ? { type, title: `[Malformed ${i}` }
        : { type, title: `${randomWord()} ${randomWord()} ${i}`, tags: `[${randomWord()}]` };
    const link = ids[(i * 7 + 3) % count];
    pages[id] = pageText(
      fields,
      `${randomWord()} ${randomWord()} ${randomWord()} [[${link}]] ${randomWord()}\n`,
    );
  });
  return pages;
}

describe("a fresh process's first index", () => {
  it("indexes slices while the registry is still being read, and holds what a rebuild from the registry holds, table for table", async () => {
    // Four slices of 250 or fewer, in eight collections per role either way.
    const count = 900 + Math.floor(Math.random() * 100);
    const pages = pagesOf(count, 97);
    const secret = `sk-ant-api03-${randomWord(20, 24)}${randomWord(20, 24)}AA`;
    const marker = randomWord(10, 12);
    pages["concepts/keys"] = pageText(
      { type: "concept", title: "Keys" },
      `${marker} ANTHROPIC_API_KEY=${secret}\n`,
    );
    const vault = makeTempVault({ pages });
    const summary = join(vault.paths.registryCache, "summary.json");
    let registrySavedAtFirstSlice: boolean | undefined;
    const service = serviceFor(vault.root);
    const first = await service.reindex({
      onProgress: ({ phase }) => {
        if (phase === "index") registrySavedAtFirstSlice ??= existsSync(summary);
      },
    });
    expect(first.ok).toBe(true);
    expect(first.reports[0]?.action).toBe("rebuild");
    // SQLite wrote the first slice before the registry was saved: the refresh was still reading.
    expect(registrySavedAtFirstSlice).toBe(false);
    const streamed = liveIndex(vault);
    // Every page but the malformed ones, and the page with the key.
    const accepted = count - Math.floor(count / 97) + 1;
    expect(streamed.documents.length).toBe(accepted);
    expect(Object.keys(streamed.entries).length).toBe(accepted);
    const texts = JSON.stringify(streamed.documents);
    expect(texts).not.toContain(secret);
    expect(texts).toContain("[REDACTED:");

    // The same service holds the registry now: `--all` rebuilds from it, reading every page.
    const again = await service.reindex({ scope: "all" });
    expect(again.ok).toBe(true);
    const rebuilt = liveIndex(vault);
    expect(streamed.documents).toEqual(rebuilt.documents);
    expect(streamed.entries).toEqual(rebuilt.entries);
    expect(streamed.shards).toBe(rebuilt.shards);
    // Its full-text index was merged (beside the registry's last steps) into
    // one segment, as the rebuild's is after its load: every table of the two
    // databases holds the same rows, the full-text index's own included.
    expect(streamed.segments).toBe(1);
    expect(Object.keys(streamed.tables)).toContain("documents_fts_data");
    expect(Object.keys(streamed.tables)).toEqual(Object.keys(rebuilt.tables));
    for (const [name, rows] of Object.entries(rebuilt.tables))
      expect(streamed.tables[name], name).toEqual(rows);
    const found = await service.recall({ query: marker, policy: "explicit", mode: "lexical" });
    expect(found.results.map((r) => r.id)).toContain("concepts/keys");
  });

  it("is rebuilt from the registry when rejected pages take it below a collection boundary", async () => {
    // 1,026 files hold 1,023 pages: collections per role are 16 by the files, 8 by the pages.
    const pages = pagesOf(1_026, 342);
    const vault = makeTempVault({ pages });
    const service = serviceFor(vault.root);
    const report = await service.reindex();
    expect(report.ok).toBe(true);
    expect(report.reports[0]?.status.documents).toBe(1_023);
    const index = liveIndex(vault);
    expect(index.shards).toBe(8);
    expect(index.documents.length).toBe(1_023);
    const id = Object.keys(pages)[0] ?? "";
    const title = /^title: (.*)$/m.exec(pages[id] ?? "")?.[1] ?? "";
    const found = await service.recall({ query: title, policy: "explicit", mode: "lexical" });
    expect(found.results.map((r) => r.id)).toContain(id);
  });
});
