/**
 * The lexical candidate pool merged from phrase impacts against FTS5's
 * exhaustive ranking, query by query on public collections: every query's
 * list (pages, order, scores, confidences, term matches, excerpts) must be
 * identical; exits 1 on the first that is not. Also times both paths in the
 * same process, alternating, after one warm pass each. Usage:
 * lexical-pool-check.ts <BEIR folder>...
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { runBeir } from "../../extensions/llm-wiki/lib/bench/beir-run.ts";
import { createLexicalSearch } from "../../extensions/llm-wiki/lib/index/qmd-lexical.ts";
import { DEFAULT_SETTINGS } from "../../extensions/llm-wiki/lib/settings.ts";
import { openBenchIndex } from "./bench-index-db.ts";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[at] ?? 0) * 100) / 100;
}

let failed = false;
for (const dir of process.argv.slice(2).map((d) => resolve(d))) {
  const workDir = mkdtempSync(join(tmpdir(), "llm-wiki-pool-check-"));
  try {
    await runBeir({ collection: dir, workDir, mode: "lexical", settings: DEFAULT_SETTINGS });
    const db = openBenchIndex(workDir);
    const collections = db
      .prepare("SELECT DISTINCT collection FROM documents")
      .all<{ collection: string }>()
      .map((r) => r.collection);
    const bounded = createLexicalSearch(db, collections, undefined, { pool: "impacts" });
    const exhaustive = createLexicalSearch(db, collections, undefined, { pool: "exhaustive" });
    const queries = readFileSync(join(dir, "queries.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => String((JSON.parse(l) as { text: unknown }).text));
    let same = 0;
    let hits = 0;
    for (const text of queries) {
      const want = exhaustive.candidates(text, 100, true);
      const got = bounded.candidates(text, 100, true);
      if (!isDeepStrictEqual(got, want)) {
        process.stdout.write(`${basename(dir)}: differs on ${JSON.stringify(text)}\n`);
        failed = true;
        break;
      }
      same += 1;
      hits += want.list.length;
    }
    const times = { exhaustive: [] as number[], bounded: [] as number[] };
    for (const [i, text] of queries.entries())
      for (const name of i % 2 === 0
        ? (["exhaustive", "bounded"] as const)
        : (["bounded", "exhaustive"] as const)) {
        const search = name === "bounded" ? bounded : exhaustive;
        const t = performance.now();
        search.candidates(text, 10, true);
        times[name].push(performance.now() - t);
      }
    process.stdout.write(
      `${basename(dir)}: ${same}/${queries.length} queries identical (${hits} hits at depth 100); ` +
        `pool p50/p95 exhaustive ${percentile(times.exhaustive, 50)}/${percentile(times.exhaustive, 95)} ms, ` +
        `impacts ${percentile(times.bounded, 50)}/${percentile(times.bounded, 95)} ms ` +
        `(load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")})\n`,
    );
    db.close();
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
