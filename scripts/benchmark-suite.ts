/**
 * Where the test suite's time goes. Runs the suite as the test command does
 * (`node scripts/test.ts --tests-only`, which records timings with
 * test/helpers/suite-timing-reporter.ts), samples the load average while it
 * runs, and summarises: total wall time, global setup's share, the time
 * spent importing test files against running their tests, the 20 slowest
 * files and tests. Prints JSON; `--out FILE` writes it there (`pnpm
 * benchmark:suite` writes benchmarks/suite.json). `--from-last` summarises
 * the last run's timing file instead of running the suite. Arguments after
 * `--` go to Vitest (a subset of files, pool options to compare).
 * Usage: benchmark-suite.ts [--out FILE] [--from-last] [-- VITEST ARGS]
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import {
  type FileTiming,
  SUITE_TIMING,
  type SuiteTiming,
} from "../test/helpers/suite-timing-reporter.ts";

const root = join(import.meta.dirname, "..");
const argv = process.argv.slice(2);
const dashes = argv.indexOf("--");
const args = dashes === -1 ? argv : argv.slice(0, dashes);
const vitestArgs = dashes === -1 ? [] : argv.slice(dashes + 1);
const outAt = args.indexOf("--out");
const out = outAt === -1 ? undefined : args[outAt + 1];
const fromLast = args.includes("--from-last");

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const loads = (l: number[]) => l.map((x) => Math.round(x * 100) / 100);

/** Runs the suite, sampling the 1-minute load average every 10 s; resolves with the samples and exit status. */
async function runSuite(): Promise<{ samples: number[]; status: number | null; wallMs: number }> {
  const samples = [loadavg()[0] ?? 0];
  const timer = setInterval(() => samples.push(loadavg()[0] ?? 0), 10_000);
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [join(root, "scripts", "test.ts"), "--tests-only", ...vitestArgs],
    // The suite's own output goes to stderr: stdout is the report alone.
    { cwd: root, stdio: ["ignore", process.stderr, "inherit"] },
  );
  const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearInterval(timer);
  samples.push(loadavg()[0] ?? 0);
  return { samples, status, wallMs: Date.now() - started };
}

function fileRow(f: FileTiming) {
  return {
    file: f.file,
    wall_s: seconds(f.wallMs),
    import_s: seconds(f.collectMs + f.prepareMs),
    tests_s: seconds(f.testsMs),
    tests: f.tests,
    slowest: f.slowest.map((t) => ({ test: t.name, s: seconds(t.ms) })),
  };
}

const run = fromLast ? undefined : await runSuite();
const timing = JSON.parse(readFileSync(SUITE_TIMING, "utf8")) as SuiteTiming;
const runMs = timing.endedAt - timing.startedAt;
const sum = (f: (t: FileTiming) => number) => timing.files.reduce((a, t) => a + f(t), 0);
const setupMs = timing.globalSetup ? timing.globalSetup.endedAt - timing.globalSetup.startedAt : 0;
const tests = timing.files.flatMap((f) => f.slowest.map((t) => ({ file: f.file, ...t })));
tests.sort((a, b) => b.ms - a.ms);
const meanLoad = run ? run.samples.reduce((a, b) => a + b, 0) / run.samples.length : undefined;

const report = {
  measured_at: new Date(timing.startedAt).toISOString(),
  machine: { cpus: cpus().length, node: process.version },
  // What ran: the whole suite unless files or options were named (unknown for `--from-last`).
  ...(run ? { vitest_args: vitestArgs } : {}),
  // Reading the figures: on a shared machine wall time follows the neighbours; shares hold better.
  load_average: {
    start: loads(timing.loadStart),
    end: loads(timing.loadEnd),
    ...(meanLoad !== undefined ? { mean_1min: Math.round(meanLoad * 100) / 100 } : {}),
  },
  ...(run ? { process_wall_s: seconds(run.wallMs), exit_status: run.status } : {}),
  // False when the run was stopped before its end: the figures cover the files that finished.
  complete: timing.complete,
  vitest_wall_s: seconds(runMs),
  global_setup: timing.globalSetup
    ? {
        s: seconds(setupMs),
        share: Math.round((setupMs / runMs) * 1000) / 1000,
        models_s: seconds(timing.globalSetup.modelsMs),
        bundle_s: seconds(timing.globalSetup.bundleMs),
        bundle_reused: timing.globalSetup.bundleReused,
      }
    : null,
  files: timing.files.length,
  tests: {
    total: sum((f) => f.tests),
    failed: sum((f) => f.failed),
    skipped: sum((f) => f.skipped),
  },
  // Worker time: what the files cost summed over the workers, against the run's wall time.
  worker_s: {
    files_wall: seconds(sum((f) => f.wallMs)),
    importing: seconds(sum((f) => f.collectMs + f.prepareMs)),
    testing: seconds(sum((f) => f.testsMs)),
  },
  slowest_files: timing.files.slice(0, 20).map(fileRow),
  slowest_tests: tests.slice(0, 20).map((t) => ({ file: t.file, test: t.name, s: seconds(t.ms) })),
};

const text = `${JSON.stringify(report, null, 2)}\n`;
process.stdout.write(text);
if (out) writeFileSync(out, text);
if (run && run.status !== 0) process.exitCode = 1;
