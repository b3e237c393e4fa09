/**
 * Runs the seed fixture through the real indexing and retrieval path in one
 * mode and returns the metric reports: the retrieval service's candidates,
 * and recall's answer with typed-link assembly and without it (the
 * ablation). The fixture vault is copied to a temporary folder so no index
 * files land in the repository. The candidate list is asked for with the time
 * window recall would build from the query at `BENCHMARK_NOW`, so its metrics
 * see the window's preference too.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assemble } from "../../extensions/llm-wiki/lib/assembly/bundles.ts";
import {
  type AnswerMetricReport,
  type AnswerRun,
  evaluateAnswers,
} from "../../extensions/llm-wiki/lib/bench/answer-metrics.ts";
import {
  BENCHMARK_NOW,
  type BenchmarkFixture,
} from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import {
  type BenchmarkRun,
  evaluateBenchmark,
  evaluateTemporal,
  type RetrievalMetricReport,
  type TemporalMetricReport,
  type TemporalRun,
} from "../../extensions/llm-wiki/lib/bench/metrics.ts";
import {
  capabilities,
  retrievalVault,
} from "../../extensions/llm-wiki/lib/recall/recall-vaults.ts";
import { type RetrievalVault, retrieve } from "../../extensions/llm-wiki/lib/retrieval.ts";
import { EXPLICIT_MAX_RESULTS } from "../../extensions/llm-wiki/lib/retrieval-policy.ts";
import {
  DEFAULT_SETTINGS,
  type RetrievalMode,
  type WikiSettings,
} from "../../extensions/llm-wiki/lib/settings.ts";
import { recallWindow } from "../../extensions/llm-wiki/lib/temporal/recall-window.ts";
import { inWindow, type TimeWindow } from "../../extensions/llm-wiki/lib/temporal/time-window.ts";
import type { VaultPaths } from "../../extensions/llm-wiki/lib/vault/paths.ts";
import { createWikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";

/**
 * Candidate lists are scored to depth 20 with no floor (the metrics are
 * candidate recall and ranking); the floors are measured by the automatic
 * false-positive rate, which runs the real automatic policy.
 */
const RANKING_POLICY = {
  name: "explicit",
  includePersonal: false,
  minScore: 0,
  maxPerVault: 20,
  maxResults: 20,
} as const;

/**
 * One candidate request as recall would make it at `BENCHMARK_NOW`: the
 * query's time window (recall's own helper), the words searched without the
 * time words, the vault with its page dates; and the pages dated inside the
 * window, for the first-in-window figure.
 */
function timedCandidates(
  query: string,
  vault: RetrievalVault,
  paths: VaultPaths,
): {
  vault: RetrievalVault;
  request: { window?: TimeWindow; searchQuery?: string };
  inWindowPageIds?: string[];
} {
  const timed = recallWindow({ query, now: BENCHMARK_NOW }, [{ vault, paths }]);
  if (!timed.ok) throw new Error(`time window of "${query}": ${JSON.stringify(timed.diagnostics)}`);
  const window = timed.window;
  const dated = timed.vaults[0] ?? vault;
  if (!window) return { vault: dated, request: {} };
  return {
    vault: dated,
    request: { window, searchQuery: timed.searchQuery },
    inWindowPageIds: [...vault.pages.keys()]
      .filter((id) => {
        const d = dated.dates?.get(id);
        return d !== undefined && inWindow(d.date, window);
      })
      .sort(),
  };
}

export interface ModeRun {
  mode: RetrievalMode;
  models: "none" | "tiny" | "default";
  report: RetrievalMetricReport;
  /**
   * Recall's answer (explicit recall at its largest size, the rendered block,
   * automatic recall): `assembled` with typed-link assembly, `flat` without
   * it (`assembly: false`, the ablation).
   */
  answers: { assembled: AnswerMetricReport; flat: AnswerMetricReport };
  /**
   * The candidate list (depth 20, no floor) through assembly, and as
   * retrieved: the memory gates' measure, comparable with the candidate
   * metrics the issue's starting figures were taken on.
   */
  candidateBundles: { assembled: AnswerMetricReport; flat: AnswerMetricReport };
  /**
   * Candidate metrics of the held-out queries the pre-issue-13 floor was
   * measured on, on the vault it was measured on (test/fixtures/retrieval/pre13).
   */
  floorQueries?: RetrievalMetricReport["all"];
  /**
   * The `temporal` category: Recall@20, MRR and first-in-window of the
   * candidate list (with the query's window) and of recall's answer
   * (explicit recall with assembly).
   */
  temporal: { candidates: TemporalMetricReport; answer: TemporalMetricReport };
  /** Modes actually used, counted over the queries (fallbacks show here). */
  modesUsed: Record<string, number>;
  latencyMsP50: number;
  /** Share of queries expecting automatic recall where it injected a judged page. */
  autoRecallRate: number;
}

/**
 * The fixture's vault copied to `dir` (without its `meta/`: no index files
 * land in the repository) and indexed for `mode`, with only it answering.
 */
async function indexedFixture(
  fixture: BenchmarkFixture,
  dir: string,
  mode: RetrievalMode,
  models: ModeRun["models"],
  modelSettings: WikiSettings["models"],
) {
  cpSync(fixture.vaultRoot, dir, {
    recursive: true,
    filter: (src) => !src.includes(`${join(".llm-wiki", "meta")}`),
  });
  const settings: WikiSettings = {
    ...DEFAULT_SETTINGS,
    // Only the fixture vault answers, whatever personal vault the machine has.
    includePersonal: false,
    retrievalMode: mode,
    models: modelSettings,
  };
  const service = createWikiService({ cwd: dir, vault: dir, settings });
  const components = models === "none" ? (["lexical"] as const) : (["lexical", "vectors"] as const);
  const indexed = await service.reindex({ scope: "all", components: [...components] });
  if (!indexed.ok) throw new Error(`indexing failed: ${JSON.stringify(indexed.diagnostics)}`);
  const [paths] = service.resolveVaults();
  if (!paths) throw new Error(`fixture vault not found in ${fixture.vaultRoot}`);
  return { service, paths, handle: service.handles.get(paths) };
}

export async function runFixture(
  fixture: BenchmarkFixture,
  mode: RetrievalMode,
  models: ModeRun["models"],
  modelSettings: WikiSettings["models"] = {},
): Promise<ModeRun> {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-bench-"));
  try {
    const { service, paths, handle } = await indexedFixture(
      fixture,
      dir,
      mode,
      models,
      modelSettings,
    );
    const runs: BenchmarkRun[] = [];
    const modesUsed: Record<string, number> = {};
    const latencies: number[] = [];
    let autoExpected = 0;
    let autoFound = 0;
    const answers: Record<"assembled" | "flat", AnswerRun[]> = { assembled: [], flat: [] };
    const bundled: Record<"assembled" | "flat", AnswerRun[]> = { assembled: [], flat: [] };
    const temporal: Record<"candidates" | "answer", TemporalRun[]> = {
      candidates: [],
      answer: [],
    };
    const now = BENCHMARK_NOW;
    for (const query of fixture.queries) {
      const t = performance.now();
      const timed = timedCandidates(query.text, retrievalVault(handle), paths);
      const vault = timed.vault;
      const ranked = await retrieve([vault], {
        query: query.text,
        policy: RANKING_POLICY,
        mode,
        capabilities: capabilities(service.handles),
        ...timed.request,
      });
      latencies.push(performance.now() - t);
      modesUsed[ranked.modeUsed] = (modesUsed[ranked.modeUsed] ?? 0) + 1;
      const auto = await service.recall({
        query: query.text,
        policy: "automatic",
        mode,
        now: BENCHMARK_NOW,
      });
      for (const expand of [true, false]) {
        const assembly = assemble(ranked.hits, new Map([[vault.kind, vault]]), {
          maxBundles: RANKING_POLICY.maxResults,
          automatic: false,
          expand,
          now,
        });
        bundled[expand ? "assembled" : "flat"].push({
          queryId: query.id,
          items: assembly.items.map((i) => ({ pageId: i.id, part: i.part, bundle: i.bundle })),
          rendered: "",
          autoPageIds: auto.results.map((h) => h.id),
        });
      }
      if (query.autoExpectation === "hit") {
        autoExpected += 1;
        const judged = new Set(query.judgments.map((j) => j.pageId));
        if (auto.results.some((h) => judged.has(h.id))) autoFound += 1;
      }
      runs.push({
        queryId: query.id,
        rankedPageIds: ranked.hits.map((h) => h.id),
        autoPageIds: auto.results.map((h) => h.id),
      });
      const inWindowPageIds = timed.inWindowPageIds
        ? { inWindowPageIds: timed.inWindowPageIds }
        : {};
      temporal.candidates.push({
        queryId: query.id,
        rankedPageIds: ranked.hits.map((h) => h.id),
        ...inWindowPageIds,
      });
      for (const assembly of [true, false]) {
        const explicit = await service.recall({
          now: BENCHMARK_NOW,
          query: query.text,
          policy: "explicit",
          mode,
          maxResults: EXPLICIT_MAX_RESULTS,
          refreshIndex: false,
          assembly,
        });
        const automatic = assembly
          ? auto
          : await service.recall({
              query: query.text,
              policy: "automatic",
              mode,
              assembly,
              now: BENCHMARK_NOW,
            });
        answers[assembly ? "assembled" : "flat"].push({
          queryId: query.id,
          items: explicit.results.map((r) => ({ pageId: r.id, part: r.part, bundle: r.bundle })),
          rendered: explicit.rendered,
          autoPageIds: automatic.results.map((h) => h.id),
        });
        if (assembly)
          temporal.answer.push({
            queryId: query.id,
            rankedPageIds: [...new Set(explicit.results.map((r) => r.id))],
            ...inWindowPageIds,
          });
      }
    }
    await service.close();
    latencies.sort((a, b) => a - b);
    return {
      mode,
      models,
      report: evaluateBenchmark(fixture.queries, runs),
      answers: {
        assembled: evaluateAnswers(fixture.queries, answers.assembled),
        flat: evaluateAnswers(fixture.queries, answers.flat),
      },
      candidateBundles: {
        assembled: evaluateAnswers(fixture.queries, bundled.assembled),
        flat: evaluateAnswers(fixture.queries, bundled.flat),
      },
      temporal: {
        candidates: evaluateTemporal(fixture.queries, temporal.candidates),
        answer: evaluateTemporal(fixture.queries, temporal.answer),
      },
      modesUsed,
      latencyMsP50: Math.round((latencies[Math.floor(latencies.length / 2)] ?? 0) * 10) / 10,
      autoRecallRate: autoExpected === 0 ? 0 : Math.round((autoFound / autoExpected) * 1e6) / 1e6,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Candidate metrics only (depth 20, no floor) of `fixture` in one mode: for
 * the held-out floor's own fixture, where nothing else is measured.
 */
export async function runCandidates(
  fixture: BenchmarkFixture,
  mode: RetrievalMode,
  models: ModeRun["models"],
  modelSettings: WikiSettings["models"] = {},
): Promise<RetrievalMetricReport> {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-bench-"));
  try {
    const { service, paths, handle } = await indexedFixture(
      fixture,
      dir,
      mode,
      models,
      modelSettings,
    );
    const runs: BenchmarkRun[] = [];
    for (const query of fixture.queries) {
      const timed = timedCandidates(query.text, retrievalVault(handle), paths);
      const ranked = await retrieve([timed.vault], {
        query: query.text,
        policy: RANKING_POLICY,
        mode,
        capabilities: capabilities(service.handles),
        ...timed.request,
      });
      runs.push({
        queryId: query.id,
        rankedPageIds: ranked.hits.map((h) => h.id),
        autoPageIds: [],
      });
    }
    await service.close();
    return evaluateBenchmark(fixture.queries, runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
