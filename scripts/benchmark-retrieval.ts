/**
 * `pnpm benchmark:retrieval`: the seed fixture (46 pages, 150 graded queries)
 * through the real indexing and retrieval path in every mode — lexical with
 * no model, hybrid/adaptive/quality with the tiny test models, and with QMD's
 * real default models when QMD_MODEL_SMOKE=1 and they are present — scoring
 * the retrieval candidates and recall's answer with and without typed-link
 * assembly, and the `temporal` category's figures (Recall@20, MRR, first in
 * window). Fails when a figure falls below the committed baseline by more
 * than the tolerance, or the temporal gate or one of issue 13's memory gates
 * is missed (`scripts/bench/memory-gates.ts` says which run each gate
 * judges). `--update` rewrites the baseline
 * (byte-identical on two runs). Then the natural questions
 * (scripts/bench/natural-questions.ts), held to
 * benchmarks/natural-questions.json. Then every public collection found
 * (Cranfield, LoCoMo: scripts/bench/beir-collections.ts) beside plain FTS5
 * BM25; `--no-collections` leaves them out.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnswerMetrics } from "../extensions/llm-wiki/lib/bench/answer-metrics.ts";
import { loadBenchmarkFixture } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import type {
  RetrievalMetrics,
  TemporalMetrics,
} from "../extensions/llm-wiki/lib/bench/metrics.ts";
import { modelAvailability, resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { setLexicalScoring } from "../extensions/llm-wiki/lib/lexical/scoring.ts";
import type { RetrievalMode } from "../extensions/llm-wiki/lib/settings.ts";
import {
  loadOrdinaryPrompts,
  type PrecisionReport,
  runAutoPrecision,
} from "./bench/auto-precision.ts";
import { runCollections } from "./bench/beir-collections.ts";
import { LEXICAL_ABLATIONS } from "./bench/lexical-ablation.ts";
import {
  MEMORY_GATES,
  memoryGateFailures,
  rankingGated,
  TEMPORAL_GATE,
  TEMPORAL_GATED_RUNS,
  temporalGateFailures,
} from "./bench/memory-gates.ts";
import {
  type NaturalFloors,
  naturalGateFailures,
  naturalSets,
  naturalTargetMisses,
  renderNaturalReport,
  runNaturalQuestions,
} from "./bench/natural-questions.ts";
import { type ModeRun, runCandidates, runFixture } from "./bench/retrieval-run.ts";
import { topicVaultQuestions, writeTopicVault } from "./bench/topic-vault.ts";
import { ensureTestModels } from "./generate-test-models.ts";

const root = join(import.meta.dirname, "..");
const baselinePath = join(root, "benchmarks", "retrieval-baseline.json");
const update = process.argv.includes("--update");
/** A figure may fall this much below the baseline before the run fails. */
const TOLERANCE = 0.01;

/** The old heuristic scorer's figures (seed 001, Task 4), for reference only. */
const HEURISTIC_REFERENCE = {
  all: { candidateRecall20: 0.873, mrr: 0.785, ndcg10: 0.759, autoFalsePositiveRate: 0.2 },
  heldout: { candidateRecall20: 0.733, mrr: 0.672 },
};

// Two single-thread model contexts beat one two-thread context on small machines.
process.env.QMD_EMBED_PARALLELISM ??= "2";
const only = process.argv.includes("--lexical-only");

const fixture = loadBenchmarkFixture(join(root, "test", "fixtures", "retrieval", "queries.json"));
const tiny = await ensureTestModels();
const tinyModels = { embed: tiny.embed, rerank: tiny.rerank, generate: tiny.generate };

// The held-out floor's fixture: the vault and held-out queries of before issue 13.
const floorFixture = loadBenchmarkFixture(
  join(root, "test", "fixtures", "retrieval", "pre13", "queries.json"),
);
const runs: ModeRun[] = [];
const noModel = { embed: "/nonexistent/no-model.gguf" };
runs.push({
  ...(await runFixture(fixture, "lexical", "none", noModel)),
  floorQueries: (await runCandidates(floorFixture, "lexical", "none", noModel)).all,
});
for (const mode of only ? [] : (["hybrid", "adaptive", "quality"] as const)) {
  runs.push({
    ...(await runFixture(fixture, mode, "tiny", tinyModels)),
    floorQueries: (await runCandidates(floorFixture, mode, "tiny", tinyModels)).all,
  });
}
if (process.env.QMD_MODEL_SMOKE === "1") {
  const defaults = resolveModels(
    {},
    { ...process.env, QMD_EMBED_MODEL: "", QMD_RERANK_MODEL: "", QMD_GENERATE_MODEL: "" },
  );
  const available = Object.values(modelAvailability(defaults)).every((m) => m.available);
  if (available) {
    for (const mode of ["hybrid", "adaptive", "quality"] as RetrievalMode[]) {
      runs.push(
        await runFixture(fixture, mode, "default", {
          embed: defaults.embed.uri,
          rerank: defaults.rerank.uri,
          generate: defaults.generate.uri,
        }),
      );
    }
  } else {
    process.stderr.write(
      "QMD_MODEL_SMOKE=1 but QMD's default models are not in its cache; real-model runs skipped\n",
    );
  }
}

// The lexical scoring's ablation rows: the candidate list (lexical, no
// model) under each scoring of LEXICAL_ABLATIONS, the default last.
const lexicalAblation: Array<{ name: string; report: Awaited<ReturnType<typeof runCandidates>> }> =
  [];
for (const { name, scoring } of LEXICAL_ABLATIONS) {
  setLexicalScoring(scoring);
  try {
    lexicalAblation.push({
      name,
      report: await runCandidates(fixture, "lexical", "none", noModel),
    });
  } finally {
    setLexicalScoring(undefined);
  }
}

// Automatic-recall precision (lexical): ordinary coding prompts on three vaults,
// and questions about the example vault and a generated 1k-page vault.
const fixtures = join(root, "test", "fixtures", "retrieval");
const prompts = loadOrdinaryPrompts(join(fixtures, "ordinary-prompts.json"));
const acme = loadBenchmarkFixture(join(fixtures, "acme-questions.json"));
const precision: PrecisionReport[] = [
  await runAutoPrecision("fixture", { source: fixture.vaultRoot }, [], prompts),
  await runAutoPrecision("example", { source: acme.vaultRoot }, acme.queries, prompts),
  await runAutoPrecision(
    "topic-1k",
    { write: (dir) => writeTopicVault(dir, 1_000) },
    topicVaultQuestions(1_000),
    prompts,
  ),
];
/** The issue's gates: absolute, on every vault and both splits together. */
const GATES = { maxFalsePositiveRate: 0.02, minInjectedRate: 0.85, minFirstRate: 0.9 };

const key = (r: ModeRun) => `${r.mode}/${r.models}`;
const baselineRuns = Object.fromEntries(
  runs
    .filter((r) => r.models !== "default")
    .map((r) => [
      key(r),
      {
        report: r.report,
        answers: r.answers,
        candidateBundles: r.candidateBundles,
        temporal: r.temporal,
        floorQueries: r.floorQueries,
        modesUsed: r.modesUsed,
        autoRecallRate: r.autoRecallRate,
      },
    ]),
);
const baseline = {
  schema: 1,
  fixtureVersion: fixture.version ?? 1,
  queryCounts: {
    all: fixture.queries.length,
    train: fixture.queries.filter((q) => q.split === "train").length,
    heldout: fixture.queries.filter((q) => q.split === "heldout").length,
  },
  heuristicReference: HEURISTIC_REFERENCE,
  runs: baselineRuns,
  lexicalAblation: lexicalAblation.map(({ name, report }) => ({
    name,
    ndcg10: { all: report.all.ndcg10, train: report.train.ndcg10, heldout: report.heldout.ndcg10 },
    mrr: { all: report.all.mrr, train: report.train.mrr, heldout: report.heldout.mrr },
    candidateRecall20: {
      all: report.all.candidateRecall20,
      train: report.train.candidateRecall20,
      heldout: report.heldout.candidateRecall20,
    },
  })),
  precision: {
    gates: GATES,
    prompts: prompts.length,
    vaults: Object.fromEntries(
      precision.map((p) => [
        p.vault,
        { pages: p.pages, all: p.all, train: p.train, heldout: p.heldout },
      ]),
    ),
  },
};

const fmt = (n: number | null | undefined) =>
  n === null || n === undefined ? "  -  " : n.toFixed(3);
const lines = [
  "candidates         slice    R@20   MRR    nDCG5  nDCG10 can1   can@3  evR20  contra autoFP  p50ms",
];
for (const r of runs) {
  for (const slice of ["all", "train", "heldout"] as const) {
    const m: RetrievalMetrics = r.report[slice];
    lines.push(
      `${key(r).padEnd(18)} ${slice.padEnd(8)} ${fmt(m.candidateRecall20)}  ${fmt(m.mrr)}  ${fmt(m.ndcg5)}  ${fmt(m.ndcg10)}  ${fmt(m.canonicalFirst)}  ${fmt(m.canonicalAt3)}  ${fmt(m.evidenceRecall20)}  ${fmt(m.contradictionCoverage)}  ${fmt(m.autoFalsePositiveRate)}  ${slice === "all" ? r.latencyMsP50 : ""}`,
    );
  }
}
lines.push(
  `heuristic (old)    all      ${fmt(HEURISTIC_REFERENCE.all.candidateRecall20)}  ${fmt(HEURISTIC_REFERENCE.all.mrr)}          ${fmt(HEURISTIC_REFERENCE.all.ndcg10)}                               ${fmt(HEURISTIC_REFERENCE.all.autoFalsePositiveRate)}`,
);
// With typed-link assembly and without it (the ablation), side by side: the
// candidate list (the memory gates' measure), then recall's answer.
for (const [title, pick] of [
  [
    "candidates through assembly (depth 20, no floor; the memory gates)",
    (r: ModeRun) => r.candidateBundles,
  ],
  ["answer (explicit recall, ≤20 items; automatic for autoFP)", (r: ModeRun) => r.answers],
] as const) {
  lines.push(
    "",
    title,
    "mode/models        slice    assembly R@20   MRR    can1   can@3  evP20  evR20  contra dupW   ctxW   autoFP",
  );
  for (const r of runs) {
    answerRows(r, pick(r));
  }
}
function answerRows(r: ModeRun, answers: ModeRun["answers"]): void {
  for (const slice of ["all", "train", "heldout"] as const) {
    for (const [label, report] of [
      ["on", answers.assembled],
      ["off", answers.flat],
    ] as const) {
      const a: AnswerMetrics = report[slice];
      lines.push(
        `${key(r).padEnd(18)} ${slice.padEnd(8)} ${label.padEnd(8)} ${fmt(a.recall20)}  ${fmt(a.mrr)}  ${fmt(a.canonicalFirst)}  ${fmt(a.canonicalAt3)}  ${fmt(a.evidencePrecision20)}  ${fmt(a.evidenceRecall20)}  ${fmt(a.contradictionCoverage)}  ${fmt(a.duplicateWaste)}  ${fmt(a.contextWaste)}  ${fmt(a.autoFalsePositiveRate)}`,
      );
    }
  }
}
// The temporal category: the candidate list (with the query's time window) and
// recall's answer (explicit, with assembly); first-in-window over the queries
// whose words name a window.
lines.push(
  "",
  "temporal category (time-window queries)",
  "mode/models        slice    list       n   R@20   MRR    1stInWin",
);
for (const r of runs) {
  for (const slice of ["all", "train", "heldout"] as const) {
    for (const [label, report] of [
      ["candidates", r.temporal.candidates],
      ["answer", r.temporal.answer],
    ] as const) {
      const t = report[slice];
      lines.push(
        `${key(r).padEnd(18)} ${slice.padEnd(8)} ${label.padEnd(10)} ${String(t.queryCount).padStart(2)}  ${fmt(t.recall20)}  ${fmt(t.mrr)}  ${fmt(t.firstInWindow)}`,
      );
    }
  }
}
lines.push(
  "",
  "lexical scoring ablation (candidates, lexical, no model)",
  "scoring                     nDCG10 all/train/held   MRR all/train/held    R@20 all/train/held",
);
for (const { name, report: m } of lexicalAblation) {
  const three = (k: "ndcg10" | "mrr" | "candidateRecall20") =>
    `${fmt(m.all[k])} ${fmt(m.train[k])} ${fmt(m.heldout[k])}`;
  lines.push(
    `${name.padEnd(27)} ${three("ndcg10")}    ${three("mrr")}    ${three("candidateRecall20")}`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
process.stdout.write(
  `modes used: ${runs.map((r) => `${key(r)} ${JSON.stringify(r.modesUsed)}`).join("; ")}\n`,
);
process.stdout.write(
  `automatic recall found a judged page for: ${runs.map((r) => `${key(r)} ${r.autoRecallRate}`).join("; ")}\n`,
);

const pct = (n: number) => `${(n * 100).toFixed(1)}%`.padStart(6);
process.stdout.write(
  "automatic precision (lexical)   FP all  FP held  injected  first (explicit)\n",
);
for (const p of precision) {
  const pos = p.all.positives > 0;
  process.stdout.write(
    `${`${p.vault} (${p.pages} pages)`.padEnd(31)} ${pct(p.all.falsePositiveRate)}  ${pct(p.heldout.falsePositiveRate)}   ${pos ? pct(p.all.injectedRate) : "     -"}    ${pos ? pct(p.all.firstRate) : "     -"}\n`,
  );
}
const gateFailures = precision.flatMap((p) => [
  ...(p.all.falsePositiveRate > GATES.maxFalsePositiveRate
    ? [
        `${p.vault}: automatic false positives ${p.all.falsePositiveRate} > ${GATES.maxFalsePositiveRate}`,
      ]
    : []),
  ...(p.all.positives > 0 && p.all.injectedRate < GATES.minInjectedRate
    ? [`${p.vault}: asked page injected ${p.all.injectedRate} < ${GATES.minInjectedRate}`]
    : []),
  ...(p.all.positives > 0 && p.all.firstRate < GATES.minFirstRate
    ? [`${p.vault}: asked page first ${p.all.firstRate} < ${GATES.minFirstRate}`]
    : []),
]);

// The temporal gate: train candidates of the lexical mode (the tiny models'
// runs are held to their baseline); every mode's held-out figures printed.
const temporalFailures = runs.flatMap((r) => temporalGateFailures(r));
process.stdout.write(
  `temporal gate (train candidates, ${TEMPORAL_GATED_RUNS.join(", ")}): Recall@20 ≥ ${TEMPORAL_GATE.minRecall20}, MRR ≥ ${TEMPORAL_GATE.minMrr}, first in window ≥ ${TEMPORAL_GATE.minFirstInWindow}; held-out reported, not gated\n`,
);
for (const r of runs) {
  const missed = temporalFailures.filter((f) => f.startsWith(`${key(r)}: `));
  const gated = TEMPORAL_GATED_RUNS.includes(key(r));
  const h = r.temporal.candidates.heldout;
  process.stdout.write(
    `  ${key(r).padEnd(16)} ${gated ? (missed.length === 0 ? "met      " : `MISSED ${missed.length} `) : "not gated"}   held-out R@20 ${fmt(h.recall20)} MRR ${fmt(h.mrr)} first in window ${fmt(h.firstInWindow)}\n`,
  );
}

// The questions people ask about their own project (scripts/bench/natural-questions.ts):
// reported with issue 38's targets; gated at the committed report
// (benchmarks/natural-questions.json, which --update rewrites).
const naturalPath = join(root, "benchmarks", "natural-questions.json");
const naturalInput = naturalSets(join(root, "test", "fixtures", "natural"));
const natural = await runNaturalQuestions(naturalInput.sets, naturalInput.prompts);
const naturalMisses = naturalTargetMisses(natural);
process.stdout.write(
  `${[
    "",
    ...renderNaturalReport(natural),
    naturalMisses.length === 0
      ? "issue 38's targets met"
      : `issue 38's targets not met: ${naturalMisses.join("; ")}`,
  ].join("\n")}\n`,
);
if (update) {
  const { outcomes: _outcomes, noisy: _noisy, ...figures } = natural;
  writeFileSync(naturalPath, `${JSON.stringify(figures, null, 2)}\n`);
}
const naturalFailures = naturalGateFailures(
  natural,
  JSON.parse(readFileSync(naturalPath, "utf8")) as NaturalFloors,
);

// The public collections found under the eval roots, plain FTS5 BM25 beside
// (reported, not gated; --update rewrites benchmarks/beir-<name>.json).
if (!process.argv.includes("--no-collections")) {
  const collections = await runCollections({ write: update });
  process.stdout.write(`${collections.lines.join("\n")}\n`);
}

if (update) {
  writeFileSync(baselinePath, `${JSON.stringify(baseline, null, 2)}\n`);
  process.stdout.write(`wrote ${baselinePath}\n`);
  process.exit(0);
}

let committed: typeof baseline;
try {
  committed = JSON.parse(readFileSync(baselinePath, "utf8")) as typeof baseline;
} catch {
  process.stderr.write("no committed baseline; run pnpm benchmark:retrieval:update\n");
  process.exit(1);
}
// A baseline measured on other queries cannot be compared figure by figure.
const sameFixture =
  JSON.stringify(committed.queryCounts) === JSON.stringify(baseline.queryCounts) &&
  committed.fixtureVersion === baseline.fixtureVersion;

// Issue 13's memory gates, every mode (canonical@3 and evidence Recall@20
// only where the models make the ranking mean something): they fail the run.
const memoryFailures = runs.flatMap((r) =>
  memoryGateFailures(r, sameFixture ? committed.runs[key(r)]?.report.heldout : undefined),
);
process.stdout.write(
  `memory gates (assembled answer, all queries): contradiction coverage ≥ ${MEMORY_GATES.minContradictionCoverage}, canonical@3 ≥ ${MEMORY_GATES.minCanonicalAt3}, evidence Recall@20 ≥ ${MEMORY_GATES.minEvidenceRecall20}, automatic FP ≤ ${MEMORY_GATES.maxAutoFalsePositiveRate}; held-out candidate Recall@20 and MRR ≥ floor${sameFixture ? " and ≥ baseline" : ""}\n`,
);
for (const r of runs) {
  const missed = memoryFailures.filter((f) => f.startsWith(`${key(r)}: `));
  process.stdout.write(
    `  ${key(r).padEnd(16)} ${missed.length === 0 ? "met" : `MISSED ${missed.length}`}${rankingGated(key(r)) ? "" : " (canonical@3 and evidence Recall@20 reported, not gated: the tiny models rank at random)"}\n`,
  );
}
if (memoryFailures.length > 0) {
  process.stderr.write(`MEMORY GATES MISSED:\n${memoryFailures.map((f) => `  ${f}`).join("\n")}\n`);
}

const HIGHER_IS_BETTER = [
  "candidateRecall20",
  "mrr",
  "ndcg5",
  "ndcg10",
  "canonicalAt3",
  "canonicalFirst",
  "evidenceRecall20",
  "contradictionCoverage",
] as const;
const ANSWER_HIGHER_IS_BETTER = [
  "recall20",
  "mrr",
  "canonicalFirst",
  "canonicalAt3",
  "evidencePrecision20",
  "evidenceRecall20",
  "contradictionCoverage",
] as const;
const ANSWER_LOWER_IS_BETTER = ["duplicateWaste", "contextWaste", "autoFalsePositiveRate"] as const;
const TEMPORAL_HIGHER_IS_BETTER = ["recall20", "mrr", "firstInWindow"] as const;
const failures: string[] = [];
if (!sameFixture) {
  failures.push(
    `the committed baseline was measured on another fixture (${JSON.stringify(committed.queryCounts)}, now ${JSON.stringify(baseline.queryCounts)}); figures not compared — run pnpm benchmark:retrieval:update`,
  );
}
for (const [k, current] of sameFixture ? Object.entries(baselineRuns) : []) {
  const base = committed.runs[k];
  if (!base) continue;
  for (const slice of ["all", "train", "heldout"] as const) {
    for (const metric of HIGHER_IS_BETTER) {
      const was = base.report[slice][metric];
      const now = current.report[slice][metric];
      if (typeof was === "number" && now !== null && now < was - TOLERANCE)
        failures.push(`${k} ${slice} ${metric}: ${now} < baseline ${was}`);
    }
    const fpWas = base.report[slice].autoFalsePositiveRate;
    const fpNow = current.report[slice].autoFalsePositiveRate;
    if (fpWas !== null && fpNow !== null && fpNow > fpWas + TOLERANCE)
      failures.push(`${k} ${slice} autoFalsePositiveRate: ${fpNow} > baseline ${fpWas}`);
    for (const list of ["candidates", "answer"] as const) {
      const was: TemporalMetrics | undefined = base.temporal?.[list]?.[slice];
      const now: TemporalMetrics = current.temporal[list][slice];
      if (!was) continue;
      for (const metric of TEMPORAL_HIGHER_IS_BETTER) {
        const w = was[metric];
        const n = now[metric];
        if (w !== null && n !== null && n < w - TOLERANCE)
          failures.push(`${k} ${slice} temporal/${list} ${metric}: ${n} < baseline ${w}`);
      }
    }
    for (const variant of ["assembled", "flat"] as const) {
      const was: AnswerMetrics | undefined = base.answers?.[variant]?.[slice];
      const now: AnswerMetrics = current.answers[variant][slice];
      if (!was) continue;
      for (const metric of ANSWER_HIGHER_IS_BETTER) {
        const w = was[metric];
        const n = now[metric];
        if (w !== null && n !== null && n < w - TOLERANCE)
          failures.push(`${k} ${slice} answer/${variant} ${metric}: ${n} < baseline ${w}`);
      }
      for (const metric of ANSWER_LOWER_IS_BETTER) {
        const w = was[metric];
        const n = now[metric];
        if (w !== null && n !== null && n > w + TOLERANCE)
          failures.push(`${k} ${slice} answer/${variant} ${metric}: ${n} > baseline ${w}`);
      }
    }
  }
  if (
    base.autoRecallRate !== undefined &&
    current.autoRecallRate < base.autoRecallRate - TOLERANCE
  ) {
    failures.push(
      `${k} autoRecallRate: ${current.autoRecallRate} < baseline ${base.autoRecallRate}`,
    );
  }
}
failures.push(...gateFailures, ...temporalFailures, ...naturalFailures);
failures.push(...memoryFailures);
if (failures.length > 0) {
  process.stderr.write(
    `below the committed baseline (tolerance ${TOLERANCE}) or a gate missed:\n${failures.join("\n")}\n`,
  );
  process.exit(1);
}
process.stdout.write(`all figures within ${TOLERANCE} of the committed baseline\n`);
