/**
 * Lexical search finds FTS5's candidate pool from phrase impacts (each
 * phrase's own bm25, added in the MATCH expression's order) instead of
 * having FTS5 rank every row holding a query term. It must return exactly
 * what the exhaustive path returns: the same pages in the same order with
 * the same scores, confidences and term matches, for every query. Checked
 * on fresh random vaults each run (IMPACT_POOL_SEED replays one): Zipf-like
 * vocabularies, so some words are on most pages (FTS5 then clamps their IDF
 * to almost zero) and others on a handful; queries of common words only,
 * rare and common mixed, words on no page, phrases; pages written twice
 * under two paths, so scores tie.
 */
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import {
  createLexicalSearch,
  type QmdSqlQueries,
} from "../extensions/llm-wiki/lib/index/qmd-lexical.ts";
import { openQmdStore, type QmdStore } from "../extensions/llm-wiki/lib/index/qmd-store.ts";
import { createImpactCache, poolByImpact } from "../extensions/llm-wiki/lib/lexical/fts-impacts.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";
import { randomWord } from "./helpers/random-text.ts";

const SEED = Number(process.env.IMPACT_POOL_SEED) || randomInt(1, 2 ** 31);
const at = `seed ${SEED} (IMPACT_POOL_SEED replays it)`;

interface Db extends QmdSqlQueries {
  close(): void;
}

const open: QmdStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Distinct lower-case words that the porter stemmer leaves alone (consonant endings). */
function vocabulary(random: CorpusRandom, n: number): string[] {
  const out = new Set<string>();
  while (out.size < n)
    out.add(
      `${random.chars("bdfgkmpvz", 1)}${random.chars("aeiou", 1)}${random.chars("bdfgkmptvz", random.between(2, 4))}`,
    );
  return [...out];
}

/** A word drawn with Zipf-like weights: the first words are on most pages. */
function zipf(random: CorpusRandom, words: readonly string[]): string {
  const u = random.int(1_000_000) / 1_000_000;
  const rank = Math.floor(words.length ** u) - 1;
  return words[Math.min(words.length - 1, Math.max(0, rank))] as string;
}

function page(random: CorpusRandom, words: readonly string[]): string {
  const title = Array.from({ length: random.between(1, 4) }, () => zipf(random, words)).join(" ");
  const body = Array.from({ length: random.between(3, 120) }, () => zipf(random, words)).join(" ");
  return `# ${title}\n\n${body}\n`;
}

function query(random: CorpusRandom, words: readonly string[]): string {
  const common = () => words[random.int(Math.min(6, words.length))] as string;
  const any = () => zipf(random, words);
  const rare = () => words[words.length - 1 - random.int(Math.ceil(words.length / 2))] as string;
  switch (random.int(5)) {
    case 0:
      return Array.from({ length: random.between(1, 4) }, common).join(" ");
    case 1:
      return [rare(), ...Array.from({ length: random.between(1, 3) }, common)].join(" ");
    case 2:
      return `"${any()} ${any()}" ${common()}`;
    case 3:
      return [`zz${random.chars("qxj", 6)}`, common(), any()].join(" ");
    default:
      return Array.from({ length: random.between(1, 8) }, any).join(" ");
  }
}

describe("the candidate pool merged from phrase impacts", () => {
  it("gives exactly the exhaustive FTS5 path's hits, order, scores and matches", async () => {
    const random = new CorpusRandom(SEED);
    const root = mkdtempSync(join(tmpdir(), "llm-wiki-impact-pool-"));
    dirs.push(root);
    const collections = [0, 1].map((i) => ({
      name: `canonical-${i}`,
      dir: join(root, "docs", `canonical-${i}`),
      role: "canonical" as const,
    }));
    const dbPath = join(root, "index.sqlite");
    const store = await openQmdStore({ dbPath, collections, models: resolveModels({}) });
    open.push(store);
    const words = vocabulary(random, random.between(20, 400));
    const docs = [];
    for (let i = 0, n = random.between(150, 500); i < n; i += 1) {
      const text = page(random, words);
      const collection = `canonical-${random.int(2)}`;
      docs.push({ collection, path: `concepts/p${i}.md`, text });
      // The same text under another path: the same bm25, so a tie.
      if (random.int(6) === 0) docs.push({ collection, path: `concepts/q${i}.md`, text });
    }
    await store.applyDocuments(docs, []);

    const db = openQmdSqlite<Db>(dbPath, { readonly: true });
    try {
      const names = collections.map((c) => c.name);
      const bounded = createLexicalSearch(db, names, undefined, { pool: "impacts" });
      // The default: FTS5 for a phrase met first, impacts once met again; the same answers.
      const adaptive = createLexicalSearch(db, names);
      const exhaustive = createLexicalSearch(db, names, undefined, { pool: "exhaustive" });
      let hits = 0;
      for (let q = 0; q < 60; q += 1) {
        const text = query(random, words);
        const limit = random.pick([1, 3, 10, 40]);
        const want = exhaustive.candidates(text, limit, true);
        const got = bounded.candidates(text, limit, true);
        expect(got, `${at}: query ${JSON.stringify(text)}, limit ${limit}`).toEqual(want);
        for (let again = 0; again < 2; again += 1)
          expect(adaptive.candidates(text, limit, true), `${at}: adaptive, ${again}`).toEqual(want);
        hits += want.list.length;
      }
      // The comparison compared something: most queries found pages.
      expect(hits, at).toBeGreaterThan(60);
    } finally {
      db.close();
    }
  }, 120_000);

  it("keeps phrases within its row budget, drops the least recently used and reads it again", () => {
    const random = new CorpusRandom(SEED + 2);
    const reads: string[] = [];
    const sizes = new Map<string, number>();
    const cache = createImpactCache((phrase) => {
      reads.push(phrase);
      const n = sizes.get(phrase) ?? 0;
      return {
        ids: Int32Array.from({ length: n }, (_, i) => i),
        scores: new Float64Array(n).fill(-1),
      };
    }, 100);
    const [a, b, c, huge] = ["a", "b", "c", "huge"];
    sizes
      .set(a, random.between(34, 45))
      .set(b, random.between(34, 45))
      .set(c, random.between(34, 45));
    sizes.set(huge, 101);
    cache.get([a, b]);
    cache.get([a]); // kept; now b is the least recently used
    cache.get([c]); // a + b + c pass 100 rows (each 34–45): b goes
    expect(reads, at).toEqual([a, b, c]);
    cache.get([a, c]);
    expect(reads, at).toEqual([a, b, c]);
    cache.get([b]);
    expect(reads, at).toEqual([a, b, c, b]);
    // A phrase larger than the whole budget is read on every use, and drops nothing.
    cache.get([huge]);
    cache.get([huge, b]);
    expect(reads, at).toEqual([a, b, c, b, huge, huge]);
    cache.clear();
    cache.get([b]);
    expect(reads.at(-1), at).toBe(b);
    expect(reads.length, at).toBe(7);
  });

  it("reads a phrase's impacts only when it is met again: a one-off process ranks with FTS5", () => {
    const reads: string[] = [];
    const cache = createImpactCache((phrase) => {
      reads.push(phrase);
      return { ids: Int32Array.from([1, 2]), scores: Float64Array.from([-1, -2]) };
    }, 1_000);
    const a = `"${randomWord(5, 9)}"`;
    const b = `"${randomWord(10, 14)}"`;
    expect(cache.worth([a])).toBe(false);
    expect(cache.worth([a])).toBe(true);
    cache.get([a]);
    // Kept: still worth it; one phrase new to it makes the query FTS5's once more.
    expect(cache.worth([a])).toBe(true);
    expect(cache.worth([a, b])).toBe(false);
    expect(cache.worth([a, b])).toBe(true);
    expect(reads).toEqual([a]);
    // The index changed: every phrase is new again.
    cache.clear();
    expect(cache.worth([a])).toBe(false);
  });

  it("ranks merged rows as FTS5's ORDER BY bm25, rowid does, ties included", () => {
    const random = new CorpusRandom(SEED + 1);
    const db = openQmdSqlite<Db & { exec(sql: string): void }>();
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='porter unicode61')");
      const insert = db.prepare("INSERT INTO t(a, b) VALUES (?, ?)") as unknown as {
        run(...v: string[]): void;
      };
      const words = vocabulary(random, random.between(5, 60));
      for (let i = 0, n = random.between(50, 400); i < n; i += 1) {
        const text = [page(random, words), page(random, words)];
        insert.run(...text);
        if (random.int(5) === 0) insert.run(...text);
      }
      const one = db.prepare(
        "SELECT rowid AS id, bm25(t, 4.0, 1.0) AS bm25 FROM t WHERE t MATCH ? ORDER BY rowid",
      );
      const ranked = db.prepare(
        "SELECT rowid AS id, bm25(t, 4.0, 1.0) AS bm25 FROM t WHERE t MATCH ? ORDER BY bm25, rowid LIMIT ?",
      );
      for (let q = 0; q < 80; q += 1) {
        const phrases = [
          ...new Set(
            Array.from({ length: random.between(1, 6) }, () => `"${zipf(random, words)}"`),
          ),
        ];
        const take = random.between(1, 60);
        const lists = phrases.map((p) => {
          const rows = one.all<{ id: number; bm25: number }>(p);
          return {
            ids: Int32Array.from(rows.map((r) => r.id)),
            scores: Float64Array.from(rows.map((r) => r.bm25)),
          };
        });
        const want = ranked.all<{ id: number; bm25: number }>(phrases.join(" OR "), take);
        expect(poolByImpact(lists, take), `${at}: ${phrases.join(" OR ")}, ${take}`).toEqual(want);
        // Row ids far apart (a long-lived index) are merged by id instead.
        const far = 5_000_000;
        const sparse = lists.map((l) => ({
          ids: l.ids.map((id) => id * 7 + far),
          scores: l.scores,
        }));
        expect(poolByImpact(sparse, take), `${at}: sparse ids`).toEqual(
          want.map((r) => ({ id: r.id * 7 + far, bm25: r.bm25 })),
        );
      }
    } finally {
      db.close();
    }
  });
});
