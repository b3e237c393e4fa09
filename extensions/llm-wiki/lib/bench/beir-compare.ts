/**
 * A BEIR collection run two ways in one go: through our indexing and
 * retrieval (`runBeir`) and through plain SQLite FTS5 BM25
 * (`runFts5Baseline`), on the same judged queries, with the difference
 * paired per query (mean, 95 % t-interval, queries won, tied and lost).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BeirMetrics, type BeirReport, type BeirRunOptions, runBeir } from "./beir-run.ts";
import { type Fts5Report, runFts5Baseline } from "./fts5-baseline.ts";
import { type PairedDelta, pairedDelta } from "./paired-stats.ts";

/** The margin over FTS5 BM25 the project aims for (nDCG@10 points / 100). */
export const TARGET_MARGIN = 0.03;

/** Ours beside FTS5 BM25 on one collection. */
export interface BeirComparison {
  collection: string;
  ours: BeirReport;
  fts5: Fts5Report;
  /** Ours − FTS5, paired over the queries run. */
  delta: Record<"ndcg10" | "recall100" | "mrr10", PairedDelta>;
}

/** Runs both on `options.collection` (our run in `options.workDir`; FTS5's in a folder of its own). */
export async function compareWithFts5(options: BeirRunOptions): Promise<BeirComparison> {
  const ourScores = new Map<string, BeirMetrics>();
  const ours = await runBeir({
    ...options,
    onQueryScored: (id, scores) => {
      ourScores.set(id, scores);
      options.onQueryScored?.(id, scores);
    },
  });
  const baseScores = new Map<string, BeirMetrics>();
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-fts5-"));
  let fts5: Fts5Report;
  try {
    fts5 = await runFts5Baseline({
      collection: options.collection,
      workDir: dir,
      ...(options.limitQueries !== undefined ? { limitQueries: options.limitQueries } : {}),
      onQueryScored: (id, scores) => baseScores.set(id, scores),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ids = [...ourScores.keys()].filter((id) => baseScores.has(id));
  const paired = (key: keyof BeirMetrics) =>
    pairedDelta(
      ids.map((id) => baseScores.get(id)?.[key] ?? 0),
      ids.map((id) => ourScores.get(id)?.[key] ?? 0),
    );
  return {
    collection: ours.collection,
    ours,
    fts5,
    delta: { ndcg10: paired("ndcg10"), recall100: paired("recall100"), mrr10: paired("mrr10") },
  };
}

const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(4)}`;

/** The table rows of comparisons: one line per collection and system, then the paired Δ. */
export function renderComparisons(comparisons: readonly BeirComparison[]): string[] {
  const f = (n: number) => n.toFixed(4);
  const lines = [
    "collection   system            docs  queries  nDCG@10  R@100   MRR@10  p50ms   p95ms",
  ];
  for (const c of comparisons) {
    const row = (system: string, docs: number, m: BeirMetrics, l: { p50: number; p95: number }) =>
      `${c.collection.padEnd(12)} ${system.padEnd(16)} ${String(docs).padStart(5)}  ${String(c.ours.queries.run).padStart(7)}  ${f(m.ndcg10)}   ${f(m.recall100)}  ${f(m.mrr10)}  ${String(l.p50).padStart(6)}  ${String(l.p95).padStart(6)}`;
    lines.push(
      row(`ours (${c.ours.mode})`, c.ours.documents.indexed, c.ours.metrics, c.ours.latencyMs),
    );
    lines.push(row("FTS5 BM25", c.fts5.documents, c.fts5.metrics, c.fts5.latencyMs));
    const d = c.delta.ndcg10;
    const ci = d.ci95 ? ` [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]` : "";
    lines.push(
      `${"".padEnd(12)} Δ nDCG@10 ${signed(d.mean)}${ci} (paired over ${d.n} queries: ${d.wins} up, ${d.ties} tied, ${d.losses} down); margin ≥ ${TARGET_MARGIN}: ${d.mean >= TARGET_MARGIN ? "met" : "not met"}`,
    );
  }
  return lines;
}
