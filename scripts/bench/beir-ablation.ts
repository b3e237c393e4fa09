/**
 * `node scripts/bench/beir-ablation.ts DIR…`: the lexical ablation rows on
 * BEIR collections. Each collection is indexed once through the real path
 * (`runBeir`, whose own figures print first), then every scoring of
 * LEXICAL_ABLATIONS and plain FTS5 BM25 (the same OR query, SQLite's
 * `bm25()`) rank the judged queries over that index. nDCG@10 is given over
 * all queries and over the even- and odd-numbered ones (file order): the
 * default was chosen on the even ones, so the odd ones are held out.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { docIdOf, runBeir, scoreQuery } from "../../extensions/llm-wiki/lib/bench/beir-run.ts";
import { buildLexQuery } from "../../extensions/llm-wiki/lib/index/lex-query.ts";
import { createLexicalSearch } from "../../extensions/llm-wiki/lib/index/qmd-lexical.ts";
import { DEFAULT_SETTINGS } from "../../extensions/llm-wiki/lib/settings.ts";
import { openBenchIndex } from "./bench-index-db.ts";
import { LEXICAL_ABLATIONS } from "./lexical-ablation.ts";

function judged(dir: string) {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(join(dir, "qrels", "test.tsv"), "utf8")
    .split("\n")
    .slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d || !(Number(s) > 0)) continue;
    const grades = qrels.get(q) ?? new Map<string, number>();
    grades.set(d, Number(s));
    qrels.set(q, grades);
  }
  const queries = readFileSync(join(dir, "queries.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { _id: unknown; text: unknown })
    .map((q) => ({ id: String(q._id), text: String(q.text) }))
    .filter((q) => qrels.has(q.id));
  return { qrels, queries };
}

const idOf = (path: string) => docIdOf(path.replace(/^sources\//, "").replace(/\.md$/, ""));

for (const dir of process.argv.slice(2).map((d) => resolve(d))) {
  const workDir = mkdtempSync(join(tmpdir(), "llm-wiki-beir-ablation-"));
  try {
    const report = await runBeir({
      collection: dir,
      workDir,
      mode: "lexical",
      settings: DEFAULT_SETTINGS,
    });
    process.stdout.write(
      `${basename(dir)}: bench beir nDCG@10 ${report.metrics.ndcg10}, p95 ${report.latencyMs.p95} ms (load ${(loadavg()[0] ?? 0).toFixed(2)})\n`,
    );
    const db = openBenchIndex(workDir);
    const { qrels, queries } = judged(dir);
    const collections = db
      .prepare("SELECT DISTINCT collection FROM documents")
      .all<{ collection: string }>()
      .map((r) => r.collection);
    const row = (name: string, rank: (text: string) => string[]) => {
      const sums = [0, 0, 0];
      queries.forEach((q, i) => {
        const s = scoreQuery(rank(q.text), qrels.get(q.id) ?? new Map()).ndcg10;
        sums[0] = (sums[0] ?? 0) + s;
        sums[1 + (i % 2)] = (sums[1 + (i % 2)] ?? 0) + s;
      });
      const n = [queries.length, Math.ceil(queries.length / 2), Math.floor(queries.length / 2)];
      const f = (k: number) => ((sums[k] ?? 0) / Math.max(1, n[k] ?? 1)).toFixed(4);
      process.stdout.write(`  ${name.padEnd(26)} all ${f(0)}  even ${f(1)}  odd ${f(2)}\n`);
    };
    const fts = db.prepare(`
      SELECT d.path AS path FROM documents_fts f JOIN documents d ON d.id = f.rowid
      WHERE documents_fts MATCH ? AND d.active = 1 ORDER BY bm25(documents_fts) LIMIT 100`);
    row("plain FTS5 BM25", (text) => {
      const built = buildLexQuery(text, { joinWords: false });
      return built ? fts.all<{ path: string }>(built.match).map((r) => idOf(r.path)) : [];
    });
    for (const { name, scoring } of LEXICAL_ABLATIONS) {
      const lex = createLexicalSearch(db, collections, scoring);
      row(name, (text) => lex.candidates(text, 100, false).list.map((x) => idOf(x.candidate.path)));
    }
    db.close();
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
