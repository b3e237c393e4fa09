/**
 * The reference every BEIR run is reported beside: plain SQLite FTS5 BM25.
 * One FTS5 table (`title`, `text`; the engine's own tokenizer, porter
 * unicode61, so the comparison is of ranking, not of stemming), FTS5's
 * `bm25()` with its defaults (k1 = 1.2, b = 0.75, both columns weight 1),
 * and each query as the OR of its distinct words minus English function
 * words (BASELINE_STOP_WORDS). The SQLite is
 * the one QMD loads, so both sides run the same FTS5.
 */

import { join } from "node:path";
import { qmdRequire } from "../index/qmd-store.ts";
import { beirFiles, readCorpus } from "./beir-reader.ts";
import { BEIR_DEPTH, type BeirMetrics, readJudged, scoreQuery } from "./beir-run.ts";
import { roundMetric } from "./metrics.ts";

/**
 * English function words dropped from the baseline's queries: NLTK's list,
 * which our own lexical query drops too (lib/index/lex-query.ts), frozen
 * here so the baseline does not move when our code does. Of the standard
 * choices it is the strongest baseline measured here (nDCG@10 on Cranfield
 * 0.348 against 0.343 with Lucene's 33 words or none; LoCoMo 0.462 against
 * 0.415 and 0.423).
 */
export const BASELINE_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before " +
    "being below between both but by can could did do does doing down during each few for " +
    "from further had has have having he her here hers herself him himself his how i if in " +
    "into is it its itself just me more most my myself no nor not of off on once only or " +
    "other our ours ourselves out over own same she should so some such than that the their " +
    "theirs them themselves then there these they this those through to too under until up " +
    "very was we were what when where which while who whom why will with would you your " +
    "yours yourself yourselves"
  ).split(" "),
);

/** The FTS5 query of `text`: its distinct words, stop words dropped, each quoted, joined by OR. */
export function fts5OrQuery(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const kept = [...new Set(words)].filter((w) => !BASELINE_STOP_WORDS.has(w));
  return kept.map((w) => `"${w}"`).join(" OR ");
}

interface Statement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): Array<{ id: string }>;
}
interface Connection {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  transaction<T>(fn: (rows: T[]) => void): (rows: T[]) => void;
  close(): void;
}
type ConnectionConstructor = new (path: string) => Connection;

/** better-sqlite3 as QMD loads it (QMD's dependency, not this package's). */
function sqlite(): ConnectionConstructor {
  return qmdRequire()("better-sqlite3") as ConnectionConstructor;
}

/** What the baseline reports. */
export interface Fts5Report {
  name: "sqlite-fts5-bm25";
  description: string;
  documents: number;
  queries: number;
  metrics: BeirMetrics;
  latencyMs: { p50: number; p95: number };
}

/** The baseline's one-line description, as reports state it. */
export const FTS5_DESCRIPTION =
  "plain SQLite FTS5 BM25 (k1 1.2, b 0.75; title and text weight 1; porter unicode61), query = OR of the query's words minus English function words";

const BATCH = 2_000;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 100) / 100;
}

/**
 * Runs the baseline on the BEIR collection in `collection`, its index in a
 * SQLite file inside `workDir` (which the caller removes). `onQueryScored`
 * gets each query's scores, for paired comparisons.
 */
export async function runFts5Baseline(options: {
  collection: string;
  workDir: string;
  limitQueries?: number;
  onQueryScored?: (queryId: string, scores: BeirMetrics) => void;
}): Promise<Fts5Report> {
  const files = beirFiles(options.collection);
  const { qrels, queries } = await readJudged(files, options.limitQueries);
  const Database = sqlite();
  const db = new Database(join(options.workDir, "fts5-baseline.sqlite"));
  try {
    db.exec(
      "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize = 'porter unicode61')",
    );
    const insert = db.prepare("INSERT INTO docs (id, title, text) VALUES (?, ?, ?)");
    const insertAll = db.transaction((rows: Array<[string, string, string]>) => {
      for (const row of rows) insert.run(...row);
    });
    let batch: Array<[string, string, string]> = [];
    let documents = 0;
    for await (const doc of readCorpus(files.corpus)) {
      batch.push([doc.id, doc.title, doc.text]);
      documents += 1;
      if (batch.length >= BATCH) {
        insertAll(batch);
        batch = [];
      }
    }
    insertAll(batch);
    const search = db.prepare(
      `SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ${BEIR_DEPTH}`,
    );
    const sums: BeirMetrics = { ndcg10: 0, ndcg10Linear: 0, recall100: 0, mrr10: 0 };
    const latencies: number[] = [];
    for (const query of queries) {
      const match = fts5OrQuery(query.text);
      const start = performance.now();
      const ranked = match === "" ? [] : search.all(match).map((row) => row.id);
      latencies.push(performance.now() - start);
      const scores = scoreQuery(ranked, qrels.get(query.id) ?? new Map());
      options.onQueryScored?.(query.id, scores);
      for (const key of Object.keys(sums) as Array<keyof BeirMetrics>) sums[key] += scores[key];
    }
    latencies.sort((a, b) => a - b);
    const mean = (sum: number) => roundMetric(queries.length === 0 ? 0 : sum / queries.length);
    return {
      name: "sqlite-fts5-bm25",
      description: FTS5_DESCRIPTION,
      documents,
      queries: queries.length,
      metrics: {
        ndcg10: mean(sums.ndcg10),
        ndcg10Linear: mean(sums.ndcg10Linear),
        recall100: mean(sums.recall100),
        mrr10: mean(sums.mrr10),
      },
      latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
    };
  } finally {
    db.close();
  }
}
