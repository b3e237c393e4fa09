/**
 * Lexical search's faster paths must answer exactly as the general ones:
 * ASCII text is tokenized by scanning character codes rather than by the
 * Unicode pattern, and must give the same terms as the index (SQLite's
 * porter unicode61) and as the general path. Random texts, seeded per run
 * (FAST_PATHS_SEED replays one).
 */
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_BM25,
  idf,
  phraseScore,
  saturated,
  tokenizedDoc,
} from "../extensions/llm-wiki/lib/lexical/bm25.ts";
import { ftsTokens } from "../extensions/llm-wiki/lib/lexical/fts-tokens.ts";
import { distinctTerms, proximityScore } from "../extensions/llm-wiki/lib/lexical/proximity.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";

const SEED = Number(process.env.FAST_PATHS_SEED) || randomInt(1, 2 ** 31);
const at = `seed ${SEED} (FAST_PATHS_SEED replays it)`;

interface Db {
  exec(sql: string): void;
  prepare(sql: string): {
    run(...a: unknown[]): void;
    all(...a: unknown[]): Array<{ term: string }>;
  };
  close(): void;
}

const sqlite = () => openQmdSqlite<Db>();

const WORDS = [
  "Flow",
  "flows",
  "BOUNDARY",
  "layers",
  "running",
  "v1",
  "0",
  "21",
  "rateLimit",
  "x86_64",
  "aerodynamically",
  "caresses",
  "ponies",
  "generalizations",
];
const GLUE = [" ", "  ", "\n", "\t", ".", "-", "_", "/", ":", "'", '"', "(", ")", "#", "", "~"];

function asciiText(random: CorpusRandom): string {
  let text = "";
  for (let i = random.between(0, 80); i > 0; i -= 1) {
    text +=
      random.int(4) === 0 ? random.chars("aBcXyZ0189", random.between(1, 6)) : random.pick(WORDS);
    text += random.pick(GLUE);
  }
  return text;
}

describe("lexical fast paths", () => {
  it("tokenizes ASCII text as the general path and as the index do", () => {
    const random = new CorpusRandom(SEED);
    const db = sqlite();
    try {
      db.exec(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61'); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');",
      );
      const insert = db.prepare("INSERT INTO t(x) VALUES (?)");
      const texts: string[] = [];
      for (let round = 0; round < 300; round += 1) {
        const text = asciiText(random);
        texts.push(text);
        insert.run(text);
        // A character past ASCII sends the same text down the general path.
        expect(ftsTokens(text), `${at}: ${JSON.stringify(text)}`).toEqual(
          ftsTokens(`${text} é`).slice(0, -1),
        );
      }
      const index = db
        .prepare("SELECT term FROM v")
        .all()
        .map((r) => r.term)
        .sort();
      expect([...new Set(texts.flatMap((t) => ftsTokens(t)))].sort(), at).toEqual(index);
    } finally {
      db.close();
    }
  });

  it("packs each column's positions: every term's positions ascending, as a scan finds them", () => {
    const random = new CorpusRandom(SEED + 3);
    const vocabulary = ["flow", "layer", "shock", "wave", "heat", "plate"];
    const words = (most: number) =>
      Array.from({ length: random.between(0, most) }, () => random.pick([...vocabulary, "wing"]));
    for (let round = 0; round < 300; round += 1) {
      // The page's other columns share its term numbers; the body's answers are its own.
      const title = words(6);
      const body = Array.from({ length: random.between(0, 80) }, () => random.pick(vocabulary));
      const doc = tokenizedDoc(words(3), title, body, words(8));
      const firsts = [...new Set(body)];
      const seen: Array<[string, number]> = [];
      doc.positions[2].forEachCount((count, term) => seen.push([term, count]));
      // Each term of the column once, with its count.
      expect(seen.map(([t]) => t).sort(), at).toEqual([...firsts].sort());
      for (const [term, count] of seen)
        expect(count, at).toBe(body.filter((b) => b === term).length);
      expect(doc.positions[1].length, at).toBe(title.length);
      for (const term of [...vocabulary, "absent"]) {
        const expected = body.flatMap((t, i) => (t === term ? [i] : []));
        const got = doc.positions[2].get(term);
        expect(got === undefined ? undefined : [...got], at).toEqual(
          expected.length > 0 ? expected : undefined,
        );
        expect(doc.positions[2].count(term), at).toBe(expected.length);
      }
      expect(doc.positions[2].length, at).toBe(body.length);
    }
  });

  it("counts a phrase's occurrences per column as a plain scan does, and scores it once per page", () => {
    const random = new CorpusRandom(SEED + 1);
    const vocabulary = ["flow", "layer", "shock", "wave", "heat"];
    const column = () =>
      Array.from({ length: random.between(0, 40) }, () => random.pick(vocabulary));
    const scan = (tokens: readonly string[], phrase: readonly string[]) => {
      let n = 0;
      for (let i = 0; i + phrase.length <= tokens.length; i += 1)
        if (phrase.every((t, k) => tokens[i + k] === t)) n += 1;
      return n;
    };
    const stats = { documents: 50, averageLength: 30, fieldAverages: [3, 5, 22] as const };
    const params = [DEFAULT_BM25, { ...DEFAULT_BM25, heading: 2, perField: true }];
    const scratch: [number, number, number] = [0, 0, 0];
    for (let round = 0; round < 500; round += 1) {
      const fields = [column(), column(), column()] as const;
      const headings = fields[2].slice(0, 5);
      const doc = tokenizedDoc(fields[0], fields[1], fields[2], headings);
      const terms = Array.from({ length: random.between(1, 3) }, () => random.pick(vocabulary));
      const phrase = { terms, df: random.between(0, 50) };
      const expected = fields.map((f) => scan(f, terms));
      // The three columns at once, from one look-up of the first term; a word
      // no column holds means no occurrence anywhere.
      doc.countPhrase(terms, scratch);
      expect(scratch, at).toEqual(expected);
      doc.countPhrase([...terms, "absent"], scratch);
      expect(scratch, at).toEqual([0, 0, 0]);
      const w = idf(stats.documents, phrase.df);
      for (const p of params) {
        const score = phraseScore(doc, phrase, w, stats, p, scratch);
        expect(scratch, at).toEqual(expected);
        expect(score > 0, at).toBe(expected.some((n) => n > 0) || scan(headings, terms) > 0);
        if (!p.perField) {
          // One row length for every column: IDF × the saturated weighted count.
          const f = expected.reduce((sum, n, c) => sum + n * (p.weights[c] ?? 0), 0);
          expect(score, at).toBeCloseTo(w * saturated(f, doc.length, stats, p), 12);
        }
      }
    }
  });

  it("scores proximity on a query's distinct terms, the first of each stem kept", () => {
    const random = new CorpusRandom(SEED + 2);
    const vocabulary = ["flow", "layer", "shock", "wave", "heat", "plate", "wing"];
    for (let round = 0; round < 200; round += 1) {
      const body = Array.from({ length: random.between(0, 60) }, () => random.pick(vocabulary));
      const doc = tokenizedDoc([], [random.pick(vocabulary)], body);
      // Repeated stems (a word and its plural) count once, at their first weight.
      const terms = Array.from({ length: random.between(0, 9) }, () => ({
        stem: random.pick(vocabulary),
        weight: random.between(1, 9) / 3,
      }));
      const firsts = terms.filter((t, i) => terms.findIndex((u) => u.stem === t.stem) === i);
      const distinct = distinctTerms(terms);
      expect(distinct, at).toEqual(firsts);
      const score = proximityScore(doc, distinct, 1.2);
      // Doubled weights double the score: each list is read as given.
      const other = distinctTerms(terms.map((t) => ({ ...t, weight: t.weight * 2 })));
      if (score > 0) expect(proximityScore(doc, other, 1.2), at).toBeCloseTo(score * 2, 9);
    }
  });
});
