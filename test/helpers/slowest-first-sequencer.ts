/**
 * Starts the slowest test files first, so the two workers finish together
 * instead of one running a two-minute file alone at the end. The expected
 * times are the slowest files of the last measured run
 * (benchmarks/suite.json, written by `pnpm benchmark:suite`); every other
 * file keeps Vitest's own order after them.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const REPO = join(import.meta.dirname, "..", "..");
const MEASURED = join(REPO, "benchmarks", "suite.json");

/** Seconds each measured slow file took, by path from the checkout. */
function measuredSeconds(): Map<string, number> {
  try {
    const report = JSON.parse(readFileSync(MEASURED, "utf8")) as {
      slowest_files?: Array<{ file: string; wall_s: number }>;
    };
    return new Map((report.slowest_files ?? []).map((f) => [f.file, f.wall_s]));
  } catch {
    // No report (a fresh clone before its first benchmark): Vitest's order alone.
    return new Map();
  }
}

/** Vitest's sequencer, with the slowest measured files moved to the front. */
export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const seconds = measuredSeconds();
    const expected = (spec: TestSpecification) =>
      seconds.get(relative(REPO, spec.moduleId).split("\\").join("/")) ?? 0;
    return ordered
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => expected(b.spec) - expected(a.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
