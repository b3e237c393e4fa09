/**
 * `pnpm benchmark:feedback`: the evaluation gate deciding whether feedback
 * in ranking is on by default. Simulated users (scripts/bench/feedback-*.ts)
 * use the fixture vault and a generated 1,000-page vault for weeks of
 * simulated time, through the real recall, FeedbackSession, event log and
 * projection (lexical mode, no model); then feedback on and off are
 * measured on the training needs asked word for word (repeated use), on
 * held-out wordings, and on prompts that must inject nothing — mean and
 * 95 % t-interval over seeds. Writes benchmarks/feedback-baseline.json with
 * the decision (`--no-write`: print only; `--seeds N`, `--rounds N`).
 */
import { cpSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { BENCHMARK_NOW, loadBenchmarkFixture } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { FEEDBACK_MAX, HALF_LIFE_DAYS } from "../extensions/llm-wiki/lib/feedback/projection.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { loadOrdinaryPrompts } from "./bench/auto-precision.ts";
import { DEFAULT_CLICK_MODEL } from "./bench/feedback-click-model.ts";
import { type ReplayOutcome, type ReplayVault, runReplay } from "./bench/feedback-replay.ts";
import { type Comparison, compare, formatComparison } from "./bench/feedback-stats.ts";
import { topicVaultQuestions, topicVaultRewordings, writeTopicVault } from "./bench/topic-vault.ts";

const root = join(import.meta.dirname, "..");
const reportPath = join(root, "benchmarks", "feedback-baseline.json");
const write = !process.argv.includes("--no-write");
const argNumber = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const SEEDS = Array.from({ length: argNumber("--seeds", 10) }, (_, i) => i + 1);
const REPLAY = {
  rounds: argNumber("--rounds", 3),
  turnsPerSession: 5,
  // Four asks in ten carry an edit; the rest repeat the need word for word.
  noiseRate: 0.4,
  now: BENCHMARK_NOW,
};
/** The gate (the report states it): the rule, and the held-out loss tolerated. */
const HELDOUT_MAX_LOSS = 0.01;
const RULE =
  "on by default only if, on every vault, repeated-use nDCG@10 gains (mean Δ > 0 and the 95 % CI's lower bound ≥ 0), held-out nDCG@10 loses at most 0.01 (mean Δ ≥ −0.01), and the automatic false-positive rate is not higher (mean Δ ≤ 0)";

const fixtures = join(root, "test", "fixtures", "retrieval");
const fixture = loadBenchmarkFixture(join(fixtures, "queries.json"));
const prompts = loadOrdinaryPrompts(join(fixtures, "ordinary-prompts.json")).map((p) => p.text);
const TOPIC_PAGES = 1_000;
const topicQuestions = topicVaultQuestions(TOPIC_PAGES);

const vaults: ReplayVault[] = [
  {
    name: "fixture",
    write: (dir) =>
      cpSync(fixture.vaultRoot, dir, {
        recursive: true,
        filter: (src) => !src.includes(join(".llm-wiki", "meta")),
      }),
    train: fixture.queries.filter((q) => q.split === "train"),
    heldout: fixture.queries.filter((q) => q.split === "heldout"),
    negatives: [
      ...fixture.queries.filter((q) => q.autoExpectation === "none").map((q) => q.text),
      ...prompts,
    ],
  },
  {
    name: "topic-1k",
    write: (dir) => writeTopicVault(dir, TOPIC_PAGES),
    train: topicQuestions.filter((q) => q.split === "train"),
    // Other wordings of the training needs, and the held-out questions (other pages).
    heldout: [
      ...topicVaultRewordings(TOPIC_PAGES),
      ...topicQuestions.filter((q) => q.split === "heldout"),
    ],
    negatives: prompts,
  },
];

const started = performance.now();
const outcomes = new Map<string, ReplayOutcome[]>();
for (const vault of vaults) {
  const runs: ReplayOutcome[] = [];
  for (const seed of SEEDS) {
    const t = performance.now();
    runs.push(await runReplay(vault, { ...REPLAY, seed }));
    process.stderr.write(
      `${vault.name} seed ${seed}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
    );
  }
  outcomes.set(vault.name, runs);
}

interface VaultFigures {
  repeated: { ndcg10: Comparison; mrr: Comparison };
  heldout: { ndcg10: Comparison; mrr: Comparison };
  autoFalsePositiveRate: Comparison;
}
const figures = new Map<string, VaultFigures>();
for (const [name, runs] of outcomes) {
  const series = (pick: (r: ReplayOutcome) => { off: number; on: number }): Comparison =>
    compare(
      runs.map((r) => pick(r).off),
      runs.map((r) => pick(r).on),
    );
  const slice = (key: "repeated" | "heldout") => ({
    ndcg10: series((r) => ({ off: r[key].off.ndcg10 ?? 0, on: r[key].on.ndcg10 ?? 0 })),
    mrr: series((r) => ({ off: r[key].off.mrr ?? 0, on: r[key].on.mrr ?? 0 })),
  });
  figures.set(name, {
    repeated: slice("repeated"),
    heldout: slice("heldout"),
    autoFalsePositiveRate: series((r) => ({
      off: r.autoFalsePositive.off / Math.max(1, r.autoFalsePositive.negatives),
      on: r.autoFalsePositive.on / Math.max(1, r.autoFalsePositive.negatives),
    })),
  });
}

// The decision: every vault must pass every part of the rule.
const failures: string[] = [];
for (const [name, f] of figures) {
  const gain = f.repeated.ndcg10.delta;
  if (!(gain.mean > 0)) failures.push(`${name}: repeated-use nDCG@10 Δ ${gain.mean} ≤ 0`);
  else if (gain.ci95 && gain.ci95[0] < 0)
    failures.push(`${name}: repeated-use nDCG@10 Δ's CI lower bound ${gain.ci95[0]} < 0`);
  const loss = f.heldout.ndcg10.delta.mean;
  if (loss < -HELDOUT_MAX_LOSS)
    failures.push(`${name}: held-out nDCG@10 Δ ${loss} < −${HELDOUT_MAX_LOSS}`);
  const fp = f.autoFalsePositiveRate.delta.mean;
  if (fp > 0) failures.push(`${name}: automatic false-positive rate Δ ${fp} > 0`);
}
const propertyFailures = [...outcomes.values()]
  .flat()
  .flatMap((r) => [
    ...(r.checks.setChanged > 0
      ? [`${r.vault} seed ${r.seed}: ${r.checks.setChanged} result sets changed`]
      : []),
    ...(r.checks.maxAbsAdjustment > FEEDBACK_MAX + 1e-9
      ? [`${r.vault} seed ${r.seed}: adjustment ${r.checks.maxAbsAdjustment} > ${FEEDBACK_MAX}`]
      : []),
    ...(r.checks.judgedRelevantMovedDown > 0
      ? [
          `${r.vault} seed ${r.seed}: ${r.checks.judgedRelevantMovedDown} judged-relevant pages moved down`,
        ]
      : []),
  ]);
failures.push(...propertyFailures);
const enabled = failures.length === 0;
const summary = [...figures]
  .map(
    ([name, f]) =>
      `${name}: repeated nDCG@10 Δ ${f.repeated.ndcg10.delta.mean.toFixed(4)}, held-out Δ ${f.heldout.ndcg10.delta.mean.toFixed(4)}, auto FP Δ ${f.autoFalsePositiveRate.delta.mean.toFixed(4)}`,
  )
  .join("; ");
const decision = {
  enabled,
  reason: enabled
    ? `every part of the rule held (${summary})`
    : `not enabled: ${failures.join("; ")} (${summary})`,
};

const rows = ["vault      slice      metric   off → on (Δ [95% CI])"];
for (const [name, f] of figures) {
  for (const slice of ["repeated", "heldout"] as const) {
    for (const metric of ["ndcg10", "mrr"] as const) {
      rows.push(
        `${name.padEnd(10)} ${slice.padEnd(10)} ${metric.padEnd(8)} ${formatComparison(f[slice][metric])}`,
      );
    }
  }
  rows.push(
    `${name.padEnd(10)} ${"automatic".padEnd(10)} ${"FP rate".padEnd(8)} ${formatComparison(f.autoFalsePositiveRate)}`,
  );
}
const elapsed = (performance.now() - started) / 1000;
process.stdout.write(`${rows.join("\n")}\n`);
for (const [name, runs] of outcomes) {
  const r = runs[0];
  if (!r) continue;
  const checked = runs.reduce((n, x) => n + x.checks.judgedRelevantChecked, 0);
  const moves = (key: "repeated" | "heldout") =>
    `${key} reordered ${runs.reduce((n, x) => n + x[key].reordered, 0)}/${runs.reduce((n, x) => n + x[key].queries, 0)} (nDCG@10 up ${runs.reduce((n, x) => n + x[key].improved, 0)}, down ${runs.reduce((n, x) => n + x[key].worsened, 0)})`;
  process.stdout.write(
    `${name}: ${r.pages} pages, ${r.turns} asks in ${r.sessions} sessions over ${r.days} days per seed; over all seeds ${moves("repeated")}, ${moves("heldout")}; events (seed ${r.seed}) ${JSON.stringify(r.events)}; judged-relevant pages checked ${checked}, moved down ${runs.reduce((n, x) => n + x.checks.judgedRelevantMovedDown, 0)}; result sets changed ${runs.reduce((n, x) => n + x.checks.setChanged, 0)}; max |adjustment| ${Math.max(...runs.map((x) => x.checks.maxAbsAdjustment))}\n`,
  );
}
process.stdout.write(
  `rule: ${RULE}\ndecision: ${enabled ? "ENABLED" : "not enabled"} — ${decision.reason}\n(${SEEDS.length} seeds, ${elapsed.toFixed(0)} s)\n`,
);
if (enabled !== DEFAULT_SETTINGS.feedbackRanking) {
  process.stderr.write(
    `DEFAULT_SETTINGS.feedbackRanking is ${DEFAULT_SETTINGS.feedbackRanking} but the decision is ${enabled}: change extensions/llm-wiki/lib/settings.ts\n`,
  );
}

const report = {
  benchmark: "feedback",
  schema: 1,
  machine: { node: process.version, cpus: cpus().length, model: cpus()[0]?.model ?? "unknown" },
  seeds: SEEDS,
  replay: {
    ...REPLAY,
    now: REPLAY.now.toISOString(),
    mode: "lexical",
    clickModel: DEFAULT_CLICK_MODEL,
    feedbackMax: FEEDBACK_MAX,
    halfLifeDays: HALF_LIFE_DAYS,
  },
  rule: RULE,
  vaults: Object.fromEntries(
    vaults.map((v) => {
      const runs = outcomes.get(v.name) ?? [];
      const first = runs[0];
      return [
        v.name,
        {
          pages: first?.pages ?? 0,
          queries: {
            train: v.train.length,
            heldout: v.heldout.length,
            negatives: v.negatives.length,
          },
          perSeed: {
            asks: first?.turns ?? 0,
            sessions: first?.sessions ?? 0,
            days: first?.days ?? 0,
          },
          eventsFirstSeed: first?.events ?? {},
          metrics: figures.get(v.name),
          // Over all seeds: how many measured queries feedback reordered, and whose nDCG@10 moved.
          moves: Object.fromEntries(
            (["repeated", "heldout"] as const).map((key) => [
              key,
              {
                queries: runs.reduce((n, r) => n + r[key].queries, 0),
                reordered: runs.reduce((n, r) => n + r[key].reordered, 0),
                improved: runs.reduce((n, r) => n + r[key].improved, 0),
                worsened: runs.reduce((n, r) => n + r[key].worsened, 0),
              },
            ]),
          ),
          checks: {
            setChanged: runs.reduce((n, r) => n + r.checks.setChanged, 0),
            maxAbsAdjustment: Math.max(0, ...runs.map((r) => r.checks.maxAbsAdjustment)),
            judgedRelevantChecked: runs.reduce((n, r) => n + r.checks.judgedRelevantChecked, 0),
            judgedRelevantMovedDown: runs.reduce((n, r) => n + r.checks.judgedRelevantMovedDown, 0),
          },
        },
      ];
    }),
  ),
  decision,
};
if (write) {
  writeFileSync(reportPath, `${formattedJson(report)}\n`);
  process.stdout.write(`wrote ${reportPath}\n`);
}

/**
 * JSON as the repository's formatter (biome) prints it — arrays of plain
 * values on one line when they fit in 100 columns — so `pnpm lint` passes on
 * the written report.
 */
function formattedJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /^( *)(.*)\[\n([^[\]{}]*?)\n *\]/gm,
    (block: string, indent: string, head: string, body: string) => {
      const items = body.split("\n").map((line) => line.trim());
      const inline = `${indent}${head}[${items.join(" ")}]`;
      return inline.length <= 100 ? inline : block;
    },
  );
}
