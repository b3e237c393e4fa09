/**
 * Runs once before the suite: isolates tests from the user's real caches,
 * generates the tiny test models (a no-op when they are up to date) and
 * bundles the bins the specs run as a person would (test/helpers/cli.ts).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildBins } from "../scripts/build.ts";
import { ensureTestModels } from "../scripts/generate-test-models.ts";
import { TEST_BUNDLE } from "./helpers/cli.ts";

export default async function setup(): Promise<void> {
  mkdirSync(join(import.meta.dirname, "..", ".cache", "test-env", "xdg-cache"), {
    recursive: true,
  });
  await ensureTestModels();
  // Built fresh on every run, so a spec never runs a stale bundle.
  await buildBins(TEST_BUNDLE);
}
