/**
 * Runs once before the suite. Isolates every test process from the user's
 * real caches and vaults so no test can read or download a model by accident.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export default function setup(): void {
  const root = join(import.meta.dirname, "..", ".cache", "test-env");
  const xdg = join(root, "xdg-cache");
  mkdirSync(xdg, { recursive: true });
  process.env.XDG_CACHE_HOME = xdg;
  process.env.LLM_WIKI_TEST = "1";
}
