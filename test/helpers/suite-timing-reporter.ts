/**
 * A Vitest reporter that records where the suite's time goes: the run's
 * wall time, global setup's steps (written by test/global-setup.ts), and for
 * every test file its wall time in a worker (queued → done), the time spent
 * importing it and the time its tests and hooks ran. It writes one JSON file
 * (`LLM_WIKI_SUITE_TIMING`, default `.cache/suite-timing.json`) that
 * `pnpm benchmark:suite` turns into benchmarks/suite.json.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const REPO = join(import.meta.dirname, "..", "..");
/** Where global setup records its own steps (read back at the end of the run). */
export const GLOBAL_SETUP_TIMING = join(REPO, ".cache", "test-env", "global-setup-timing.json");
/** Where this reporter writes, unless `LLM_WIKI_SUITE_TIMING` names another file. */
export const SUITE_TIMING = join(REPO, ".cache", "suite-timing.json");

/** What global setup measured of itself, in milliseconds since the epoch. */
export interface GlobalSetupTiming {
  startedAt: number;
  modelsMs: number;
  bundleMs: number;
  /** True when the bundle of the same sources was reused, not rebuilt. */
  bundleReused: boolean;
  endedAt: number;
}

/** One test file as the run saw it. */
export interface FileTiming {
  file: string;
  /** Queued on a worker → finished, as the main process saw it. */
  wallMs: number;
  /** Importing the file and running its describe blocks. */
  collectMs: number;
  /** Starting the worker's environment and Vitest's harness for the file. */
  prepareMs: number;
  /** All tests and hooks of the file. */
  testsMs: number;
  tests: number;
  failed: number;
  skipped: number;
  /** The slowest tests of the file, in ms. */
  slowest: { name: string; ms: number }[];
}

/** The file this reporter writes. */
export interface SuiteTiming {
  startedAt: number;
  endedAt: number;
  /** False while the run is under way (or when it was stopped). */
  complete: boolean;
  loadStart: number[];
  loadEnd: number[];
  globalSetup: GlobalSetupTiming | null;
  files: FileTiming[];
}

function readGlobalSetup(since: number): GlobalSetupTiming | null {
  try {
    const timing = JSON.parse(readFileSync(GLOBAL_SETUP_TIMING, "utf8")) as GlobalSetupTiming;
    // A record left by an earlier run (global setup skipped) says nothing of this one.
    return timing.startedAt >= since ? timing : null;
  } catch {
    return null;
  }
}

/** Records the run's timings; see the file comment. */
export default class SuiteTimingReporter implements Reporter {
  private startedAt = Date.now();
  private loadStart = loadavg();
  private readonly queuedAt = new Map<string, number>();
  private readonly files: FileTiming[] = [];

  onInit(): void {
    this.startedAt = Date.now();
    this.loadStart = loadavg();
  }

  onTestModuleQueued(module: TestModule): void {
    this.queuedAt.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const diagnostic = module.diagnostic();
    const tests = [...module.children.allTests()];
    const timed = tests
      .map((test) => ({ name: test.fullName, ms: Math.round(test.diagnostic()?.duration ?? 0) }))
      .sort((a, b) => b.ms - a.ms);
    this.files.push({
      file: relative(REPO, module.moduleId),
      wallMs: Date.now() - (this.queuedAt.get(module.moduleId) ?? this.startedAt),
      collectMs: Math.round(diagnostic.collectDuration),
      prepareMs: Math.round(diagnostic.prepareDuration + diagnostic.environmentSetupDuration),
      testsMs: Math.round(diagnostic.duration),
      tests: tests.length,
      failed: tests.filter((t) => t.result().state === "failed").length,
      skipped: tests.filter((t) => t.result().state === "skipped").length,
      slowest: timed.slice(0, 3),
    });
    // Written after every file too, so a run stopped midway still says where its time went.
    this.write(false);
  }

  onTestRunEnd(): void {
    this.write(true);
  }

  private write(complete: boolean): void {
    const timing: SuiteTiming = {
      startedAt: this.startedAt,
      endedAt: Date.now(),
      complete,
      loadStart: this.loadStart,
      loadEnd: loadavg(),
      globalSetup: readGlobalSetup(this.startedAt),
      files: [...this.files].sort((a, b) => b.wallMs - a.wallMs),
    };
    writeFileSync(
      process.env.LLM_WIKI_SUITE_TIMING ?? SUITE_TIMING,
      `${JSON.stringify(timing, null, 1)}\n`,
    );
  }
}
