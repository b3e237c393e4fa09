import { join } from "node:path";
import { defineConfig } from "vitest/config";

const testEnv = join(import.meta.dirname, ".cache", "test-env");

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Real QMD stores and child processes on two cores: keep contention sane.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    env: {
      // No test may read or write the user's real model cache or vaults.
      XDG_CACHE_HOME: join(testEnv, "xdg-cache"),
      LLM_WIKI_TEST: "1",
    },
  },
});
