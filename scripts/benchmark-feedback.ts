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
 *
 * `--check` (CI): run, write nothing, and exit 1 when the fresh decision
 * differs from the committed one (benchmarks/feedback-baseline.json) or
 * from the default of `feedbackRanking` — a change that breaks learning,
 * or one that makes it pass where it failed, must come with a new baseline.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import {
  aggregateChecks,
  decideFeedbackGate,
  FEEDBACK_GATE_RULE,
  type VaultFigures,
  vaultFigures,
} from "./bench/feedback-gate.ts";
import { type ReplayOutcome, runReplay } from "./bench/feedback-replay.ts";
import {
  DEFAULT_REPLAY,
  DEFAULT_SEED_COUNT,
  FEEDBACK_BASELINE,
  feedbackVaults,
  questionCounts,
  replayParameters,
  seedList,
} from "./bench/feedback-setup.ts";
import { estimate, formatComparison } from "./bench/feedback-stats.ts";
import { formattedJson } from "./bench/report-json.ts";

const reportPath = FEEDBACK_BASELINE;
const check = process.argv.includes("--check");
const write = !check && !process.argv.includes("--no-write");
const argNumber = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const SEEDS = seedList(argNumber("--seeds", DEFAULT_SEED_COUNT));
const REPLAY = { ...DEFAULT_REPLAY, rounds: argNumber("--rounds", DEFAULT_REPLAY.rounds) };
const vaults = feedbackVaults();

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

const figures = new Map<string, VaultFigures>(
  [...outcomes].map(([name, runs]) => [name, vaultFigures(runs)]),
);
// The decision: every vault must pass every part of the rule (the same function the tests apply to the baseline).
const gate = decideFeedbackGate(
  Object.fromEntries(
    [...figures].map(([name, metrics]) => [
      name,
      { metrics, checks: aggregateChecks(outcomes.get(name) ?? []) },
    ]),
  ),
);
const { enabled, failures } = gate;
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

const rows = ["vault      slice      metric   off → on  Δ mean [95% CI over seeds] min max"];
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
  const range = (pick: (x: ReplayOutcome) => number) => {
    const e = estimate(runs.map(pick));
    return e.oneRun ? `${e.min}` : `${e.min}–${e.max}`;
  };
  process.stdout.write(
    `${name}: ${r.pages} pages; per seed ${range((x) => x.turns)} asks in ${range((x) => x.sessions)} sessions over ${range((x) => x.days)} days, click model η ${range((x) => x.clickModel.eta)}, noise clicks ${range((x) => x.clickModel.open[0])}, judgments ${range((x) => x.clickModel.judgeRate)}; off nDCG@10 repeated ${range((x) => x.repeated.off.ndcg10 ?? 0)}, held-out ${range((x) => x.heldout.off.ndcg10 ?? 0)}; over all seeds ${moves("repeated")}, ${moves("heldout")}; events (seed ${r.seed}) ${JSON.stringify(r.events)}; judged-relevant pages checked ${checked}, moved down ${runs.reduce((n, x) => n + x.checks.judgedRelevantMovedDown, 0)}; result sets changed ${runs.reduce((n, x) => n + x.checks.setChanged, 0)}; max |adjustment| ${Math.max(...runs.map((x) => x.checks.maxAbsAdjustment))}\n`,
  );
}
process.stdout.write(
  `rule: ${FEEDBACK_GATE_RULE}\ndecision: ${enabled ? "ENABLED" : "not enabled"} — ${decision.reason}\n(${SEEDS.length} seeds, ${elapsed.toFixed(0)} s)\n`,
);
if (enabled !== DEFAULT_SETTINGS.feedbackRanking) {
  process.stderr.write(
    `DEFAULT_SETTINGS.feedbackRanking is ${DEFAULT_SETTINGS.feedbackRanking} but the decision is ${enabled}: change extensions/llm-wiki/lib/settings.ts\n`,
  );
}

const report = {
  benchmark: "feedback",
  schema: 2,
  machine: {
    node: process.version,
    cpus: cpus().length,
    model: cpus()[0]?.model ?? "unknown",
    loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
  },
  seeds: SEEDS,
  replay: replayParameters(REPLAY),
  rule: FEEDBACK_GATE_RULE,
  vaults: Object.fromEntries(
    vaults.map((v) => {
      const runs = outcomes.get(v.name) ?? [];
      const first = runs[0];
      return [
        v.name,
        {
          pages: first?.pages ?? 0,
          queries: questionCounts(v),
          // What each seed drew: its users' click model and the shape of its weeks.
          perSeed: runs.map((r) => ({
            seed: r.seed,
            asks: r.turns,
            sessions: r.sessions,
            days: r.days,
            asksPerNeed: [r.asksPerNeed.min, r.asksPerNeed.max],
            clickModel: r.clickModel,
          })),
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
          checks: aggregateChecks(runs),
        },
      ];
    }),
  ),
  decision,
};
if (check) {
  const committed = JSON.parse(readFileSync(reportPath, "utf8")) as {
    decision?: { enabled?: unknown };
  };
  const was = committed.decision?.enabled;
  if (enabled !== was) {
    process.stderr.write(
      `check failed: the fresh decision is ${enabled} but ${reportPath} records ${String(was)}; run \`pnpm benchmark:feedback\` and commit the baseline (and the default of feedbackRanking) with the change\n`,
    );
    process.exitCode = 1;
  } else if (enabled !== DEFAULT_SETTINGS.feedbackRanking) {
    process.exitCode = 1;
  } else {
    process.stdout.write(`check passed: the decision (${enabled}) is the committed one\n`);
  }
}
if (write) {
  writeFileSync(reportPath, formattedJson(report));
  process.stdout.write(`wrote ${reportPath}\n`);
}
