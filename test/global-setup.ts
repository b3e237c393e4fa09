/**
 * Runs once before the suite: isolates tests from the user's real caches,
 * generates the tiny test models (a no-op when they are up to date) and
 * bundles the bins the specs run as a person would (test/helpers/cli.ts),
 * reusing the last bundle when nothing it is built from changed. Records
 * how long each step took for the suite's timing report.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureTestModels } from "../scripts/generate-test-models.ts";
import { TEST_BUNDLE } from "./helpers/cli.ts";
import { GLOBAL_SETUP_TIMING, type GlobalSetupTiming } from "./helpers/suite-timing-reporter.ts";
import { ensureTestBundle } from "./helpers/test-bundle.ts";

export default async function setup(): Promise<void> {
  const startedAt = Date.now();
  mkdirSync(join(import.meta.dirname, "..", ".cache", "test-env", "xdg-cache"), {
    recursive: true,
  });
  await ensureTestModels();
  const modelsDone = Date.now();
  // Keyed by the content of its inputs, so a spec never runs a stale bundle.
  const bundleReused = await ensureTestBundle(TEST_BUNDLE);
  const endedAt = Date.now();
  const timing: GlobalSetupTiming = {
    startedAt,
    modelsMs: modelsDone - startedAt,
    bundleMs: endedAt - modelsDone,
    bundleReused,
    endedAt,
  };
  writeFileSync(GLOBAL_SETUP_TIMING, `${JSON.stringify(timing)}\n`);
}
