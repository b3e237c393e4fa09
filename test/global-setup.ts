/**
 * Runs once before the suite: isolates tests from the user's real caches and
 * generates the tiny test models (a no-op when they are up to date).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureTestModels } from "../scripts/generate-test-models.ts";

export default async function setup(): Promise<void> {
  mkdirSync(join(import.meta.dirname, "..", ".cache", "test-env", "xdg-cache"), {
    recursive: true,
  });
  await ensureTestModels();
}
