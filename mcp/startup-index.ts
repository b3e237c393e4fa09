/**
 * The index update a server starts on its own, so a new or edited vault gets
 * recall without anyone running `llm-wiki reindex`. It runs in the
 * background: the handshake never waits for it, and only a recall that has
 * no index at all to read waits (bounded) for it to finish.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { reindexDiagnostics } from "../extensions/llm-wiki/lib/reindex-diagnostics.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";

/** How long a recall waits for the first index of a vault before answering without it. */
const FIRST_INDEX_WAIT_MS = 15_000;
/** How long shutdown waits for an interrupted update to let go of the index (within the server's 2 s exit deadline). */
const STOP_WAIT_MS = 1_500;

export interface StartupIndex {
  /** Checks the active vault's index and starts an update if it is missing, stale or interrupted. */
  start(): void;
  /** Resolves when recall no longer needs to wait (at once unless the index was missing). */
  ready(): Promise<void>;
  /** Aborts a running update and waits (bounded) for it to stop. */
  stop(): Promise<void>;
}

async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([promise, sleep(ms, undefined, { signal: timer.signal, ref: false })]);
  } catch {
    // Only the aborted timer can reject here (the update catches its own errors).
  } finally {
    timer.abort();
  }
}

/** Creates the startup update for `service`; `log` writes one line to stderr. */
export function createStartupIndex(
  service: WikiService,
  log: (line: string) => void,
  options: { waitMs?: number } = {},
): StartupIndex {
  const waitMs = options.waitMs ?? FIRST_INDEX_WAIT_MS;
  const controller = new AbortController();
  let running: Promise<void> | undefined;
  // Without any index a recall can only answer "nothing"; a stale one still answers.
  let blocksRecall = false;
  let started = false;

  return {
    start() {
      if (started) return;
      started = true;
      let state: string | undefined;
      let root: string | undefined;
      try {
        const status = service.status();
        state = status.vault?.index.state;
        root = status.vault?.root;
      } catch (error) {
        log(`cannot read the index status (${errorMessage(error)}); not updating it`);
        return;
      }
      if (state === undefined || state === "ready") return;
      blocksRecall = state === "missing" || state === "error";
      log(`index ${state} at ${root}; updating it in the background`);
      running = service
        .reindex({ scope: "changed", signal: controller.signal })
        .then((result) => {
          // Stopped by shutdown: cancelled, not failed, and the previous index stays.
          if (controller.signal.aborted) return;
          const failed = reindexDiagnostics(result)
            .filter((d) => d.severity === "error")
            .map((d) => d.message);
          if (failed.length > 0) log(`background index update failed: ${failed.join("; ")}`);
        })
        .catch((error: unknown) => log(`background index update failed: ${errorMessage(error)}`))
        .finally(() => {
          blocksRecall = false;
        });
    },

    async ready() {
      if (running && blocksRecall) await within(running, waitMs);
    },

    async stop() {
      controller.abort();
      if (running) await within(running, STOP_WAIT_MS);
    },
  };
}
