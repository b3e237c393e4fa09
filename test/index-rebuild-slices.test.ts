/**
 * A rebuild mirrors and indexes its pages a slice at a time, each slice
 * written to the new database in the pass that read it (its own
 * transaction), so no slice's texts wait across turns for the next ones
 * (lib/index/qmd-indexing.ts): held that long they were promoted to V8's old
 * space and made most of a 100k-page rebuild's peak memory. The slices'
 * full-text segments are merged into one at the end: every term lookup of
 * a recall then seeks one.
 */

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

interface Db {
  prepare(sql: string): { get(): unknown };
  close(): void;
}

/** SQLite as QMD loads it (better-sqlite3 is QMD's dependency, not ours), read-only. */
function connect(path: string): Db {
  return openQmdSqlite<Db>(path, { readonly: true });
}

describe("a rebuild's slices", () => {
  it("are each committed when reported, at most two slices ahead of the report", async () => {
    const pages = 560 + Math.floor(Math.random() * 80);
    const marker = randomWord(9, 12);
    const marked = Math.floor(Math.random() * pages);
    const entries: Record<string, string> = {};
    for (let i = 0; i < pages; i += 1) {
      const id = `concepts/p${String(i).padStart(4, "0")}`;
      entries[id] = pageText(
        { type: "concept", title: `Page ${i} ${randomWord()}` },
        `${i === marked ? marker : randomWord()} ${randomWord()} ${randomWord()}\n`,
      );
    }
    const vault = makeTempVault({ pages: entries });
    const service = serviceFor(vault.root);
    const qmdDir = vault.paths.qmd;
    const seen: Array<{ current: number; committed: number }> = [];
    const report = await service.reindex({
      scope: "all",
      onProgress: ({ phase, current }) => {
        if (phase !== "index") return;
        // The generation being built is the only one in a fresh vault.
        const gen = readdirSync(qmdDir).find((name) => name.startsWith("gen-"));
        if (!gen) throw new Error("no generation being built");
        const db = connect(join(qmdDir, gen, "index.sqlite"));
        try {
          const row = db.prepare("SELECT COUNT(*) AS n FROM documents WHERE active = 1").get();
          seen.push({ current, committed: (row as { n: number }).n });
        } finally {
          db.close();
        }
      },
    });
    expect(report.ok).toBe(true);
    const slices = Math.ceil(pages / 250);
    expect(seen.map((s) => s.current)).toEqual(
      Array.from({ length: slices }, (_, i) => Math.min(pages, (i + 1) * 250)),
    );
    // A slice reported indexed is committed. The load's worker may already
    // have committed the next ones by the time the report is read (the
    // slices after it are read while SQLite writes), never more than the two
    // it may run ahead: the vault's texts are never all held at once.
    for (const { current, committed } of seen) {
      expect(committed).toBeGreaterThanOrEqual(current);
      expect(committed).toBeLessThanOrEqual(Math.min(pages, current + 2 * 250));
    }
    // Each slice wrote a segment of the full-text index; the rebuild merged them into one.
    const live = readdirSync(qmdDir).find((name) => name.startsWith("gen-"));
    const db = connect(join(qmdDir, String(live), "index.sqlite"));
    try {
      const ids = db.prepare("SELECT json_group_array(id) AS ids FROM documents_fts_data").get();
      const segments = new Set(
        (JSON.parse((ids as { ids: string }).ids) as number[])
          .map((id) => Math.floor(id / 2 ** 37))
          .filter((segment) => segment > 0),
      );
      expect(segments.size).toBe(1);
    } finally {
      db.close();
    }
    const found = await service.recall({ query: marker, policy: "explicit", mode: "lexical" });
    expect(found.results.map((r) => r.id)).toContain(
      `concepts/p${String(marked).padStart(4, "0")}`,
    );
  });
});
