/**
 * The questions people type to an agent about their own project, over
 * realistic vaults (test/fixtures/natural): explicit recall's top-1, top-3
 * and empty answers, automatic recall's block holding the answering page,
 * and automatic recall's silence on ordinary coding prompts. Runs the real
 * service on a temporary copy of each vault (no `meta/`), lexical, no model.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BENCHMARK_NOW,
  type BenchmarkQuery,
  type BenchmarkSplit,
  loadBenchmarkFixture,
} from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import { onlyWeak } from "../../extensions/llm-wiki/lib/render-text.ts";
import { indexedBenchVault, loadOrdinaryPrompts, type OrdinaryPrompt } from "./auto-precision.ts";

/** One slice's figures (rates over its questions or prompts). */
export interface NaturalFigures {
  questions: number;
  /** Explicit recall: an answering page (grade 3) first. */
  top1: number;
  /** Explicit recall: an answering page among the first three. */
  top3: number;
  /** Explicit recall answered nothing. */
  empty: number;
  /** Automatic recall's block holds an answering page. */
  autoHolds: number;
  /** Time questions (category `temporal`): an answering page among the first three. */
  timeQuestions: number;
  timeAnswered: number;
  prompts: number;
  /** Ordinary coding prompts automatic recall stayed silent on. */
  silent: number;
}

/** One question's outcome, for reading misses on the train split. */
export interface NaturalOutcome {
  id: string;
  vault: string;
  split: BenchmarkSplit;
  text: string;
  expected: string[];
  explicit: string[];
  /** Explicit recall's cards above the floor. */
  strong: number;
  injected: string[];
}

/** Automatic recall's silence on one set of ordinary prompts, per split. */
export interface PromptSetFigures {
  prompts: number;
  train: number;
  heldout: number;
}

export interface NaturalReport {
  vaults: Array<{ name: string; pages: number; questions: number }>;
  /** Silence per prompt set (each run on every vault). */
  promptSets: Record<string, PromptSetFigures>;
  all: NaturalFigures;
  train: NaturalFigures;
  heldout: NaturalFigures;
  outcomes: NaturalOutcome[];
  /** Ordinary prompts that injected something. */
  noisy: Array<{ id: string; split: BenchmarkSplit; pages: string[] }>;
}

/** Issue 38's targets for held-out natural questions (reported; the floors below are gated). */
export const NATURAL_TARGETS = {
  minTop1: 0.9,
  minTop3: 0.97,
  maxEmpty: 0,
  minAutoHolds: 0.8,
  minSilent: 0.98,
} as const;

/** A figure may fall this much below the committed one before the run fails. */
export const NATURAL_TOLERANCE = 0.01;

interface Tally {
  q: number;
  top1: number;
  top3: number;
  empty: number;
  auto: number;
  tq: number;
  ta: number;
  p: number;
  silent: number;
}

const blank = (): Tally => ({
  q: 0,
  top1: 0,
  top3: 0,
  empty: 0,
  auto: 0,
  tq: 0,
  ta: 0,
  p: 0,
  silent: 0,
});

const rate = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 1e4) / 1e4);

function figures(parts: Tally[]): NaturalFigures {
  const sum = (k: keyof Tally) => parts.reduce((n, p) => n + p[k], 0);
  return {
    questions: sum("q"),
    top1: rate(sum("top1"), sum("q")),
    top3: rate(sum("top3"), sum("q")),
    empty: rate(sum("empty"), sum("q")),
    autoHolds: rate(sum("auto"), sum("q")),
    timeQuestions: sum("tq"),
    timeAnswered: rate(sum("ta"), sum("tq")),
    prompts: sum("p"),
    silent: rate(sum("silent"), sum("p")),
  };
}

/** A named set of ordinary coding prompts. */
export interface PromptSet {
  name: string;
  prompts: readonly OrdinaryPrompt[];
}

/**
 * The natural-question sets (every `*-questions.json` under `dir`) and the
 * ordinary prompts: the generic ones of test/fixtures/retrieval, and
 * `dir`'s, which use the vaults' own technology words in a generic way.
 */
export function naturalSets(dir: string): {
  sets: Array<{ name: string; vaultRoot: string; queries: BenchmarkQuery[] }>;
  prompts: PromptSet[];
} {
  const sets = readdirSync(dir)
    .filter((f) => f.endsWith("-questions.json"))
    .sort()
    .map((f) => {
      const fixture = loadBenchmarkFixture(join(dir, f));
      return {
        name: f.replace(/-questions\.json$/, ""),
        vaultRoot: fixture.vaultRoot,
        queries: fixture.queries,
      };
    });
  const generic = join(dir, "..", "retrieval", "ordinary-prompts.json");
  return {
    sets,
    prompts: [
      ...(existsSync(generic) ? [{ name: "generic", prompts: loadOrdinaryPrompts(generic) }] : []),
      { name: "vault-words", prompts: loadOrdinaryPrompts(join(dir, "ordinary-prompts.json")) },
    ],
  };
}

/** Runs every set's questions and the ordinary prompts (on every set's vault). */
export async function runNaturalQuestions(
  sets: ReadonlyArray<{ name: string; vaultRoot: string; queries: readonly BenchmarkQuery[] }>,
  promptSets: readonly PromptSet[],
): Promise<NaturalReport> {
  const tallies = { train: blank(), heldout: blank() };
  const perSet = new Map(
    promptSets.map((p) => [
      p.name,
      { train: [0, 0], heldout: [0, 0] } as Record<BenchmarkSplit, [number, number]>,
    ]),
  );
  const outcomes: NaturalOutcome[] = [];
  const noisy: NaturalReport["noisy"] = [];
  const vaults: NaturalReport["vaults"] = [];
  for (const set of sets) {
    const dir = mkdtempSync(join(tmpdir(), "llm-wiki-natural-"));
    try {
      const service = await indexedBenchVault(set.name, { source: set.vaultRoot }, dir);
      for (const q of set.queries) {
        // The pages that answer: grade 3; for a question every answer of
        // which is partial ("what did we decide since the v2 release": each
        // decision is one of several), its grade-2 pages. A question with
        // neither is one the vault cannot answer.
        const best = q.judgments.some((j) => j.grade === 3) ? 3 : 2;
        const answers = q.judgments.filter((j) => j.grade === best).map((j) => j.pageId);
        const t = tallies[q.split];
        t.q += 1;
        const explicit = await service.recall({
          query: q.text,
          policy: "explicit",
          refreshIndex: false,
          now: BENCHMARK_NOW,
        });
        // The answer's cards and the pages the query found, in answer order: a
        // page only a relation brought in under a card (its evidence, its
        // `sources:`) is that card's context, not a candidate pushing the next card down.
        const ids = explicit.results
          .filter(
            (r) =>
              r.vault === "project" &&
              (r.matchReason !== "relation" || r.part === "card" || r.part === "unpromoted"),
          )
          .map((r) => r.id);
        const first = ids.slice(0, 3);
        // A question the vault cannot answer is answered right by nothing, or by weak candidates only.
        const unanswerable = answers.length === 0;
        const nothingStrong = explicit.results.length === 0 || onlyWeak(explicit.results);
        if (unanswerable ? nothingStrong : answers.includes(ids[0] ?? "")) t.top1 += 1;
        if (unanswerable ? nothingStrong : first.some((id) => answers.includes(id))) t.top3 += 1;
        if (ids.length === 0 && !unanswerable) t.empty += 1;
        if (q.category === "temporal") {
          t.tq += 1;
          if (first.some((id) => answers.includes(id))) t.ta += 1;
        }
        const auto = await service.recall({
          query: q.text,
          policy: "automatic",
          refreshIndex: false,
          now: BENCHMARK_NOW,
        });
        const injected = auto.renderedPages.map((p) => p.replace(/^[a-z]+:/, ""));
        if (unanswerable ? injected.length === 0 : injected.some((id) => answers.includes(id)))
          t.auto += 1;
        outcomes.push({
          id: q.id,
          vault: set.name,
          split: q.split,
          text: q.text,
          expected: answers,
          explicit: ids.slice(0, 5),
          strong: explicit.results.filter((r) => r.part === "card" && r.weak !== true).length,
          injected,
        });
      }
      for (const promptSet of promptSets) {
        const own = perSet.get(promptSet.name);
        for (const prompt of promptSet.prompts) {
          const auto = await service.recall({
            query: prompt.text,
            policy: "automatic",
            refreshIndex: false,
            now: BENCHMARK_NOW,
          });
          const t = tallies[prompt.split];
          const counts = own?.[prompt.split];
          t.p += 1;
          if (counts) counts[1] += 1;
          if (auto.renderedPages.length === 0) {
            t.silent += 1;
            if (counts) counts[0] += 1;
          } else
            noisy.push({
              id: `${set.name}:${promptSet.name}:${prompt.id}`,
              split: prompt.split,
              pages: [...auto.renderedPages],
            });
        }
      }
      vaults.push({
        name: set.name,
        pages: service.status().vault?.pages ?? 0,
        questions: set.queries.length,
      });
      await service.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    vaults,
    promptSets: Object.fromEntries(
      [...perSet].map(([name, c]) => [
        name,
        {
          prompts: c.train[1] + c.heldout[1],
          train: rate(c.train[0], c.train[1]),
          heldout: rate(c.heldout[0], c.heldout[1]),
        },
      ]),
    ),
    all: figures([tallies.train, tallies.heldout]),
    train: figures([tallies.train]),
    heldout: figures([tallies.heldout]),
    outcomes,
    noisy,
  };
}

/** The issue's targets a report misses, one line each (empty: all met). */
export function naturalTargetMisses(report: NaturalReport): string[] {
  const out: string[] = [];
  for (const slice of ["train", "heldout"] as const) {
    const f = report[slice];
    const t = NATURAL_TARGETS;
    if (f.top1 < t.minTop1) out.push(`${slice} top-1 ${f.top1} < ${t.minTop1}`);
    if (f.top3 < t.minTop3) out.push(`${slice} top-3 ${f.top3} < ${t.minTop3}`);
    if (f.empty > t.maxEmpty) out.push(`${slice} empty answers ${f.empty} > ${t.maxEmpty}`);
    if (f.autoHolds < t.minAutoHolds)
      out.push(`${slice} automatic holds the answer ${f.autoHolds} < ${t.minAutoHolds}`);
    for (const [name, p] of Object.entries(report.promptSets))
      if (p[slice] < t.minSilent)
        out.push(`${slice} silent on ${name} ordinary prompts ${p[slice]} < ${t.minSilent}`);
    if (f.timeQuestions > 0 && f.timeAnswered < 1)
      out.push(`${slice} time questions answered ${f.timeAnswered} < 1`);
  }
  return out;
}

/** The figures a run is held to: the committed report's, per split. */
export type NaturalFloors = Pick<NaturalReport, "train" | "heldout" | "promptSets">;

/**
 * What fails a run: a figure below the committed one by more than the
 * tolerance, or any empty answer to a question the vault answers.
 */
export function naturalGateFailures(report: NaturalReport, floors?: NaturalFloors): string[] {
  const out: string[] = [];
  const higher = ["top1", "top3", "autoHolds", "timeAnswered"] as const;
  for (const slice of ["train", "heldout"] as const) {
    const f = report[slice];
    if (f.empty > 0)
      out.push(`${slice}: explicit recall answered nothing for ${f.empty} of the questions`);
    if (!floors) continue;
    for (const k of higher)
      if (f[k] < floors[slice][k] - NATURAL_TOLERANCE)
        out.push(`${slice} ${k}: ${f[k]} < committed ${floors[slice][k]}`);
    for (const [name, p] of Object.entries(report.promptSets)) {
      const was = floors.promptSets[name]?.[slice];
      if (was !== undefined && p[slice] < was - NATURAL_TOLERANCE)
        out.push(`${slice} silent on ${name} prompts: ${p[slice]} < committed ${was}`);
    }
  }
  return out;
}

/** The report's figures as table lines (the same in both benchmarks). */
export function renderNaturalReport(report: NaturalReport): string[] {
  const pct = (n: number) => `${(n * 100).toFixed(1)}%`.padStart(6);
  const row = (name: string, f: NaturalFigures) =>
    `${name.padEnd(8)} ${String(f.questions).padStart(4)}  ${pct(f.top1)} ${pct(f.top3)} ${pct(f.empty)}  ${pct(f.autoHolds)}     ${f.timeQuestions > 0 ? pct(f.timeAnswered) : "     -"}`;
  return [
    `natural questions: ${report.vaults.map((v) => `${v.name} (${v.pages} pages, ${v.questions} questions)`).join(", ")}`,
    "slice       n    top-1  top-3  empty   auto-holds  time",
    row("all", report.all),
    row("train", report.train),
    row("heldout", report.heldout),
    ...Object.entries(report.promptSets).map(
      ([name, p]) =>
        `automatic silent on ${name} ordinary prompts (${p.prompts} runs over the vaults): train ${pct(p.train)}, held-out ${pct(p.heldout)}`,
    ),
  ];
}
