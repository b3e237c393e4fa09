/**
 * `llm-wiki bench beir DIR [--mode M] [--limit-queries N] [--json]`: runs a
 * BEIR collection through the real indexing and retrieval path in a
 * temporary vault and prints nDCG@10, Recall@100, MRR@10 and query latency,
 * with plain SQLite FTS5 BM25 on the same queries beside (lib/bench/fts5-baseline.ts).
 * The temporary vault is removed on success, on failure and on Ctrl-C.
 * `llm-wiki bench vault` runs the vault's own corrections (bench-vault-command.ts).
 */
import { mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BeirComparison,
  compareWithFts5,
} from "../extensions/llm-wiki/lib/bench/beir-compare.ts";
import type { BeirReport } from "../extensions/llm-wiki/lib/bench/beir-run.ts";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { RETRIEVAL_MODES, type RetrievalMode } from "../extensions/llm-wiki/lib/settings.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { intOption, modeOption, type OptionSpec, type Parsed, UsageError } from "./args.ts";
import { benchVaultCommand } from "./bench-vault-command.ts";
import { createProgress } from "./progress.ts";

/** Options of the `bench` command (besides the common ones). */
export const BENCH_OPTIONS: Record<string, OptionSpec> = {
  mode: { type: "string" },
  "limit-queries": { type: "string" },
};

/** Lines for the CLI's usage text. */
export const BENCH_USAGE = `  bench beir DIR [--mode M]                run a BEIR collection (corpus.jsonl, queries.jsonl,
        [--limit-queries N]                qrels/test.tsv) through indexing and retrieval
                                           in a temporary vault; mode lexical by default
  bench vault [--mode M]                   the vault's own evaluation set: each recall correction
                                           is a case, passing when recall with its words ranks
                                           the correction page in the top 5, above the page
                                           it corrects
`;

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function modeOf(value: string | boolean | undefined): RetrievalMode {
  // Lexical by default: a benchmark must not start embedding a large corpus unasked.
  if (value === undefined) return "lexical";
  const found = RETRIEVAL_MODES.find((m) => m === value);
  if (!found) throw new UsageError(`--mode takes one of ${RETRIEVAL_MODES.join(", ")}`);
  return found;
}

/** The report as a text table, FTS5 BM25's figures and the paired difference after ours. */
function renderBeirReport(report: BeirReport, baseline: Omit<BeirComparison, "ours">): string {
  const used = Object.entries(report.modesUsed)
    .map(([mode, n]) => `${mode} ${n}`)
    .join(", ");
  const f = (n: number) => n.toFixed(4);
  const rows: Array<[string, string]> = [
    ["nDCG@10", f(report.metrics.ndcg10)],
    ["nDCG@10 (linear gain)", f(report.metrics.ndcg10Linear)],
    [`Recall@${report.depth}`, f(report.metrics.recall100)],
    ["MRR@10", f(report.metrics.mrr10)],
    [
      "latency p50",
      `${report.latencyMs.p50} ms (${report.ratioToRawFts5.p50}× raw FTS5's ${report.rawFts5Ms.p50} ms)`,
    ],
    [
      "latency p95",
      `${report.latencyMs.p95} ms (${report.ratioToRawFts5.p95}× raw FTS5's ${report.rawFts5Ms.p95} ms)`,
    ],
    [
      "warm p50 / p95",
      `${report.warm.latencyMs.p50} / ${report.warm.latencyMs.p95} ms (${report.warm.ratioToRawFts5.p50}× / ${report.warm.ratioToRawFts5.p95}× raw FTS5's ${report.warm.rawFts5Ms.p50} / ${report.warm.rawFts5Ms.p95} ms; every query asked again, ${report.warm.changedAnswers} answers changed)`,
    ],
    [
      "CPU time p50 / p95",
      `${report.cpuMs.retrieve.p50} / ${report.cpuMs.retrieve.p95} ms (${report.cpuMs.ratio.p50}× / ${report.cpuMs.ratio.p95}× raw FTS5's ${report.cpuMs.rawFts5.p50} / ${report.cpuMs.rawFts5.p95} ms)`,
    ],
    ...Object.entries(report.partsMs).map(([part, t]): [string, string] => [
      `  ${part} p50 / p95`,
      `${t.p50} / ${t.p95} ms`,
    ]),
    ["peak RSS", `${report.peakRssMb} MB`],
    ["FTS5 BM25 nDCG@10", f(baseline.fts5.metrics.ndcg10)],
    [`FTS5 BM25 Recall@${report.depth}`, f(baseline.fts5.metrics.recall100)],
    ["FTS5 BM25 MRR@10", f(baseline.fts5.metrics.mrr10)],
    ["Δ nDCG@10 vs FTS5", pairedText(baseline.delta.ndcg10)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    `BEIR ${report.collection}: ${report.documents.indexed} of ${report.documents.read} documents indexed, ${report.queries.run} of ${report.queries.judged} judged queries run`,
    `mode ${report.mode} (used: ${used || "none"}); index ${report.durationMs.index} ms, queries ${report.durationMs.queries} ms`,
    `machine: ${report.machine.cpus} cores, load average ${report.machine.loadAverage.join(" ")}`,
    "",
    ...rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`),
  ].join("\n");
}

function pairedText(d: BeirComparison["delta"]["ndcg10"]): string {
  const s = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(4)}`;
  const ci = d.ci95 ? ` [${s(d.ci95[0])}, ${s(d.ci95[1])}]` : "";
  return `${s(d.mean)}${ci} (${d.wins} up, ${d.ties} tied, ${d.losses} down)`;
}

/** Handles `bench`; for `beir` the service is the host's, used only for its settings. */
export async function benchCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{ ok: boolean; result: object; text: string; diagnostics: Diagnostic[] }> {
  const [suite, dir, ...extra] = positionals;
  if (suite === "vault") {
    if (dir !== undefined) throw new UsageError("bench vault takes no folder; use --vault DIR");
    if (values["limit-queries"] !== undefined)
      throw new UsageError("--limit-queries is an option of bench beir");
    const vault = typeof values.vault === "string" ? values.vault : undefined;
    return benchVaultCommand(service, modeOption(values.mode), vault);
  }
  if (suite !== "beir")
    throw new UsageError("bench takes a suite: llm-wiki bench beir DIR, or llm-wiki bench vault");
  if (dir === undefined || extra.length > 0)
    throw new UsageError("bench beir takes one folder: llm-wiki bench beir DIR");
  if (!isFolder(dir)) {
    throw new UsageError(
      `bench beir: ${dir} is not a folder; download a BEIR collection first (see docs/retrieval-benchmark.md)`,
    );
  }
  const mode = modeOf(values.mode);
  const limit = values["limit-queries"];
  const limitQueries = limit === undefined ? undefined : intOption(limit, "limit-queries", 1);

  // Signal handlers first, so no moment exists where Ctrl-C leaves the folder behind.
  let workDir: string | undefined;
  const cleanup = () => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const progress = createProgress(process.stderr);
  try {
    workDir = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-beir-")));
    const { ours: report, ...baseline } = await compareWithFts5({
      collection: dir,
      workDir,
      mode,
      settings: service.settings,
      ...(limitQueries !== undefined ? { limitQueries } : {}),
      ...(values.json ? {} : { onProgress: (e) => progress.update({ vault: dir, ...e }) }),
    });
    return {
      ok: true,
      result: { ...report, baseline },
      text: renderBeirReport(report, baseline),
      diagnostics: report.diagnostics,
    };
  } finally {
    progress.done();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    cleanup();
  }
}
