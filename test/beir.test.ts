import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { docIdOf, pageNameOf } from "../extensions/llm-wiki/lib/bench/beir-run.ts";
import { CLI, type CliRun, runCli } from "./helpers/cli.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

interface Collection {
  corpus: Array<Record<string, unknown>> | string;
  queries: Array<Record<string, unknown>>;
  /** Rows of qrels/test.tsv after the header; null for no qrels file. */
  qrels: Array<[string, string, number]> | null;
}

/** Writes a collection in the BEIR layout and returns its folder. */
function writeCollection(c: Collection): string {
  const dir = makeTempDir("llm-wiki-beir-in-");
  const jsonl = (rows: Array<Record<string, unknown>>) =>
    `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
  writeFileSync(
    join(dir, "corpus.jsonl"),
    typeof c.corpus === "string" ? c.corpus : jsonl(c.corpus),
  );
  writeFileSync(join(dir, "queries.jsonl"), jsonl(c.queries));
  if (c.qrels) {
    mkdirSync(join(dir, "qrels"));
    const rows = c.qrels.map((r) => r.join("\t"));
    writeFileSync(
      join(dir, "qrels", "test.tsv"),
      `query-id\tcorpus-id\tscore\n${rows.join("\n")}\n`,
    );
  }
  return dir;
}

/** Same-length filler so that BM25's length normalisation treats these documents alike. */
const FILLER = "the survey recorded weather patterns over several quiet seasons";

/**
 * Twelve documents. Query 1 ("zephyr") matches the odd id `a/b c` (in its
 * title and body) above `d1` (once, in a long body); query 2 ("marzipan")
 * matches only `Doc.2%`; query 3 ("tamarind lantern") ranks `p` (both words)
 * first, then `q` (the rarer word), then `r` (the commoner word), then `s`
 * (the commoner word in a longer body); query 4 matches nothing.
 */
const SMALL: Collection = {
  corpus: [
    { _id: "a/b c", title: "Zephyr gardens", text: "A zephyr moves across the gardens." },
    {
      _id: "d1",
      title: "Harbor notes",
      text: "Boats rest at the harbor while a zephyr passes over the long pier, the warm stone walls and the old fish market near the sea.",
    },
    { _id: "d2", title: "Coastal winds", text: "Sea breezes cool the coast every afternoon." },
    { _id: "Doc.2%", title: "Almond sweets", text: "Marzipan is made from almonds and sugar." },
    { _id: "p", title: "Spice market", text: `tamarind lantern ${FILLER}` },
    { _id: "q", title: "Sour fruit", text: `tamarind ${FILLER} again` },
    { _id: "r", title: "Paper light", text: `lantern ${FILLER} again` },
    {
      _id: "s",
      title: "Night festival",
      text: `lantern ${FILLER} with music dancing drums crowds and food stalls until late`,
    },
    { _id: "f1", title: "Granite quarry", text: "Workers cut granite blocks in the quarry." },
    { _id: "f2", title: "River delta", text: "Silt settles where the river meets the ocean." },
    { _id: "f3", title: "Orchard", text: "Apples ripen in the orchard by October." },
    { _id: "f4", title: "Glacier", text: "The glacier retreats a little each summer." },
  ],
  queries: [
    { _id: "1", text: "zephyr" },
    { _id: "2", text: "marzipan" },
    { _id: "3", text: "tamarind lantern" },
    { _id: "4", text: "xylophone" },
    { _id: "5", text: "granite (not judged)" },
    { _id: "6", text: "orchard (only a zero grade)" },
  ],
  qrels: [
    ["1", "a/b c", 2],
    ["1", "d1", 1],
    ["1", "d2", 3],
    ["2", "Doc.2%", 1],
    ["3", "r", 1],
    ["4", "f1", 2],
    ["6", "f3", 0],
  ],
};

const log2 = Math.log2;
/** nDCG@10 of query 1 by hand: ranked [a/b c (2), d1 (1)], ideal [d2 (3), a/b c (2), d1 (1)]. */
const Q1_EXP = (3 + 1 / log2(3)) / (7 + 3 / log2(3) + 1 / log2(4));
const Q1_LINEAR = (2 + 1 / log2(3)) / (3 + 2 / log2(3) + 1 / log2(4));
/** Query 3: the one relevant page at rank 3. */
const Q3_NDCG = 1 / log2(4);

/** `llm-wiki bench <args>` with a private HOME and TMPDIR (so the temporary vault can be watched). */
function bench(args: string[], tmp: string, env: NodeJS.ProcessEnv = {}): CliRun {
  return runCli(["bench", ...args], {
    env: { HOME: makeTempDir("llm-wiki-home-"), TMPDIR: tmp, ...env },
    timeout: 120_000,
  });
}

/** The single stderr line of a failure; never a stack trace. */
function oneLine(out: CliRun): string {
  const lines = out.stderr.split("\n").filter((l) => l.trim() !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toMatch(/^\s+at |Error:|\.ts:\d+/);
  return lines[0] ?? "";
}

describe("BEIR page names", () => {
  it("map every id to a safe file name and back exactly", () => {
    const ids = ["a/b c", "Doc.2%", ".hidden", "..", "A", "a", "x:y*z?", "über", "😀 emoji", "%41"];
    const names = ids.map(pageNameOf);
    for (const [i, name] of names.entries()) {
      expect(name).toMatch(/^[a-z0-9_%A-F-]+$/);
      expect(docIdOf(name)).toBe(ids[i]);
    }
    // Distinct even where the file system ignores case.
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(ids.length);
  });
});

describe("llm-wiki bench beir", () => {
  it("reports nDCG@10, Recall@100, MRR@10 and latency for a collection, and leaves no vault behind", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const out = bench(["beir", writeCollection(SMALL), "--json"], tmp);
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({
      ok: true,
      mode: "lexical",
      modesUsed: { lexical: 4 },
      depth: 100,
      documents: { read: 12, indexed: 12 },
      // Query 5 has no judgment and query 6 only a zero grade: neither is scored.
      queries: { judged: 4, run: 4 },
      diagnostics: [],
    });
    expect(report.metrics.ndcg10).toBeCloseTo((Q1_EXP + 1 + Q3_NDCG + 0) / 4, 5);
    expect(report.metrics.ndcg10Linear).toBeCloseTo((Q1_LINEAR + 1 + Q3_NDCG + 0) / 4, 5);
    expect(report.metrics.recall100).toBeCloseTo((2 / 3 + 1 + 1 + 0) / 4, 5);
    expect(report.metrics.mrr10).toBeCloseTo((1 + 1 + 1 / 3 + 0) / 4, 5);
    expect(report.latencyMs.p50).toBeGreaterThan(0);
    expect(report.latencyMs.p95).toBeGreaterThanOrEqual(report.latencyMs.p50);
    // The engine's own query beside it, and the ratio between the two, percentile by percentile.
    expect(report.rawFts5Ms.p50).toBeGreaterThan(0);
    expect(report.rawFts5Ms.p95).toBeGreaterThanOrEqual(report.rawFts5Ms.p50);
    expect(report.ratioToRawFts5.p50).toBeCloseTo(report.latencyMs.p50 / report.rawFts5Ms.p50, 1);
    expect(report.ratioToRawFts5.p95).toBeCloseTo(report.latencyMs.p95 / report.rawFts5Ms.p95, 1);
    // Every query again, warm: the same answers, and the same figures beside raw FTS5.
    expect(report.warm.changedAnswers).toBe(0);
    expect(report.warm.latencyMs.p95).toBeGreaterThanOrEqual(report.warm.latencyMs.p50);
    expect(report.warm.rawFts5Ms.p50).toBeGreaterThan(0);
    expect(report.warm.ratioToRawFts5.p50).toBeCloseTo(
      report.warm.latencyMs.p50 / report.warm.rawFts5Ms.p50,
      1,
    );
    expect(report.cpuMs.retrieve.p95).toBeGreaterThanOrEqual(report.cpuMs.retrieve.p50);
    expect(report.cpuMs.rawFts5.p95).toBeGreaterThanOrEqual(report.cpuMs.rawFts5.p50);
    // Where retrieve's time went, part by part.
    expect(Object.keys(report.partsMs)).toEqual(["store", "search", "score", "fuse"]);
    for (const t of Object.values(report.partsMs) as Array<{ p50: number; p95: number }>) {
      expect(t.p50).toBeGreaterThanOrEqual(0);
      expect(t.p95).toBeGreaterThanOrEqual(t.p50);
    }
    expect(report.machine.cpus).toBeGreaterThan(0);
    expect(report.machine.loadAverage).toHaveLength(3);
    expect(report.peakRssMb).toBeGreaterThan(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("puts plain SQLite FTS5 BM25 beside ours, on the same queries, the difference paired per query", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const json = bench(["beir", writeCollection(SMALL), "--json", "--limit-queries", "3"], tmp);
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.baseline.fts5).toMatchObject({
      name: "sqlite-fts5-bm25",
      documents: 12,
      queries: 3,
    });
    const d = report.baseline.delta.ndcg10;
    expect(d.n).toBe(3);
    expect(d.wins + d.ties + d.losses).toBe(3);
    expect(d.mean).toBeCloseTo(report.metrics.ndcg10 - report.baseline.fts5.metrics.ndcg10, 5);
    // "marzipan" is in one document only: plain BM25 ranks it first too.
    expect(report.baseline.fts5.metrics.mrr10).toBeGreaterThan(0);
    expect(readdirSync(tmp)).toEqual([]);
    const text = bench(["beir", writeCollection(SMALL)], tmp);
    expect(text.stdout).toMatch(/^FTS5 BM25 nDCG@10 +0\.\d{4}$/m);
    expect(text.stdout).toMatch(
      /^Δ nDCG@10 vs FTS5 +[+-]\d\.\d{4}.* \(\d up, \d tied, \d down\)$/m,
    );
  });

  it("runs only the first N judged queries with --limit-queries", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const out = bench(["beir", writeCollection(SMALL), "--json", "--limit-queries", "2"], tmp);
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.queries).toEqual({ judged: 4, run: 2 });
    expect(report.metrics.mrr10).toBe(1);
    expect(report.metrics.recall100).toBeCloseTo((2 / 3 + 1) / 2, 5);
  });

  it("prints a table without --json", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const out = bench(["beir", writeCollection(SMALL)], tmp);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^nDCG@10 +0\.\d{4}$/m);
    expect(out.stdout).toMatch(/^Recall@100 +0\.6667$/m);
    expect(out.stdout).toMatch(/^MRR@10 +0\.5833$/m);
    // Each latency with its ratio to the raw FTS5 query measured beside it.
    expect(out.stdout).toMatch(/^latency p50 +[\d.]+ ms \([\d.]+× raw FTS5's [\d.]+ ms\)$/m);
    expect(out.stdout).toMatch(/^latency p95 +[\d.]+ ms \([\d.]+× raw FTS5's [\d.]+ ms\)$/m);
    for (const part of ["store", "search", "score", "fuse"])
      expect(out.stdout).toMatch(new RegExp(`^  ${part} p50 / p95 +[\\d.]+ / [\\d.]+ ms$`, "m"));
  });

  it("builds vectors and runs hybrid retrieval when --mode hybrid has an embed model", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const result = bench(["beir", writeCollection(SMALL), "--json", "--mode", "hybrid"], tmp, {
      // The tiny test embedder (vitest.config.ts): a bag-of-words model.
      QMD_EMBED_MODEL: process.env.QMD_EMBED_MODEL ?? "",
    });
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.modesUsed).toEqual({ hybrid: 4 });
    // The vector list reaches every page, so the pages no query word matches come back too.
    expect(report.metrics.recall100).toBe(1);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it("fails in one line with exit 1 when qrels/test.tsv is missing", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const out = bench(["beir", writeCollection({ ...SMALL, qrels: null }), "--json"], tmp);
    expect(out.status).toBe(1);
    expect(out.stdout).toBe("");
    expect(oneLine(out)).toMatch(/missing qrels\/test\.tsv/);
  });

  it("names the file and line of a corpus line that is not JSON, and removes the vault", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const corpus = `${JSON.stringify({ _id: "1", title: "t", text: "one" })}\n${JSON.stringify({ _id: "2", text: "two" })}\n{"_id": "3", "text": \n`;
    const out = bench(["beir", writeCollection({ ...SMALL, corpus }), "--json"], tmp);
    expect(out.status).toBe(1);
    expect(oneLine(out)).toBe("llm-wiki: corpus.jsonl line 3: not valid JSON");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("refuses a corpus with a duplicate id instead of overwriting a page", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const corpus = [
      { _id: "same", title: "one", text: "first" },
      { _id: "same", title: "two", text: "second" },
    ];
    const out = bench(["beir", writeCollection({ ...SMALL, corpus })], tmp);
    expect(out.status).toBe(1);
    expect(oneLine(out)).toMatch(/duplicate _id "same"/);
  });

  it("fails when the judgments name a query the queries file lacks", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    const qrels: Collection["qrels"] = [["99", "d1", 1]];
    const out = bench(["beir", writeCollection({ ...SMALL, qrels })], tmp);
    expect(out.status).toBe(1);
    expect(oneLine(out)).toMatch(/judges query "99", which queries\.jsonl lacks/);
  });

  it("treats a missing folder, suite or bad option as usage errors", () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    expect(bench(["beir"], tmp).status).toBe(2);
    expect(bench(["msmarco", "x"], tmp).status).toBe(2);
    const mode = bench(["beir", writeCollection(SMALL), "--mode", "fast"], tmp);
    expect(mode.status).toBe(2);
    expect(mode.stderr).toMatch(/--mode takes one of lexical, hybrid, adaptive, quality/);
    const missing = bench(["beir", join(tmp, "nowhere")], tmp);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/nowhere is not a folder; download a BEIR collection first/);
  });

  it("removes the temporary vault when interrupted", async () => {
    const tmp = makeTempDir("llm-wiki-tmp-");
    // Large enough that the run is still writing or indexing when the signal arrives.
    const corpus = Array.from({ length: 4000 }, (_, i) => ({
      _id: `doc-${i}`,
      title: `page ${i}`,
      text: `${FILLER} number ${i}`,
    }));
    const dir = writeCollection({ ...SMALL, corpus });
    const child = spawn(process.execPath, [CLI, "bench", "beir", dir, "--json"], {
      env: { PATH: process.env.PATH ?? "", HOME: makeTempDir("llm-wiki-home-"), TMPDIR: tmp },
      stdio: "ignore",
    });
    let running = true;
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => {
        running = false;
        resolve(code);
      }),
    );
    while (running && readdirSync(tmp).length === 0) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
