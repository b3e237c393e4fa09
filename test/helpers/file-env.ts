/**
 * Runs before every test file (vitest.config.ts `setupFiles`). Files share
 * a worker process (`isolate: false`, so the modules they import load once
 * per worker, not once per file): whatever a file did to the environment,
 * stubbed or assigned, is undone when it ends, so the next file in the same
 * worker starts from the environment the configuration gives.
 */
import { afterAll, vi } from "vitest";

const atStart = { ...process.env };

afterAll(() => {
  vi.unstubAllEnvs();
  for (const name of Object.keys(process.env)) {
    if (!(name in atStart)) delete process.env[name];
  }
  Object.assign(process.env, atStart);
});
