/**
 * What a server checks on its own at startup, so a new or edited vault gets
 * recall without anyone running `llm-wiki reindex`: the registry is brought
 * up to date, and an index that is missing, stale or interrupted is updated
 * in the background. The handshake never waits for any of it.
 *
 * The check costs a walk of every page and a parse of the registry's whole
 * cache: about half a second at 10k pages, more than a first recall may
 * take. So when no `wiki/` folder changed since the registry was last saved
 * (no page added, removed or renamed) and the index holds exactly its pages,
 * the first recalls answer from that registry, read lazily (see
 * `VaultHandle.answerFromSaved`), and the check runs right after the first
 * tool call is answered, or IDLE_CHECK_MS after the handshake, whichever
 * comes first. A page edited in place while no server ran is seen from then
 * on. Otherwise the check runs at once, and only a recall that has no index
 * at all to read waits (bounded) for the update.
 *
 * The deferred check runs in slices (lib/sliced-work.ts): at 100k pages it
 * is seconds of work, and a client that leaves meanwhile (end of input, a
 * signal) stops it at the next slice instead of waiting for its end. Either
 * check reads only the index's status, not the vault's overview.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { reindexDiagnostics } from "../extensions/llm-wiki/lib/reindex-diagnostics.ts";
import { isCancelled } from "../extensions/llm-wiki/lib/sliced-work.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";

/** How long a recall waits for the first index of a vault before answering without it. */
const FIRST_INDEX_WAIT_MS = 15_000;
/** How long shutdown waits for an interrupted update to let go of the index (within the server's 2 s exit deadline). */
const STOP_WAIT_MS = 1_500;
/** Without a tool call, the deferred check runs this long after the handshake. */
const IDLE_CHECK_MS = 1_000;

export interface StartupIndex {
  /** Starts the startup check (at once, or deferred while the saved registry answers). */
  start(): void;
  /** Resolves when recall no longer needs to wait (at once unless the index was missing). */
  ready(): Promise<void>;
  /** Tells that a tool call was answered: a deferred check runs next. */
  answered(): void;
  /** Resolves when a deferred check under way has refreshed the registries and read the index status (at once when none is). */
  checked(): Promise<void>;
  /** Aborts a running update and waits (bounded) for it to stop. */
  stop(): Promise<void>;
}

export interface StartupOptions {
  /** How long a recall waits for a first index build (default 15 s). */
  waitMs?: number;
  /** How long after the handshake a deferred check runs without a tool call (default 1 s). */
  idleMs?: number;
}

async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([promise, sleep(ms, undefined, { signal: timer.signal, ref: false })]);
  } catch {
    // Only the aborted timer can reject here (the work catches its own errors).
  } finally {
    timer.abort();
  }
}

/** Creates the startup check for `service`; `log` writes one line to stderr. */
export function createStartupIndex(
  service: WikiService,
  log: (line: string) => void,
  options: StartupOptions = {},
): StartupIndex {
  const waitMs = options.waitMs ?? FIRST_INDEX_WAIT_MS;
  const controller = new AbortController();
  let running: Promise<void> | undefined;
  // Without any index a recall can only answer "nothing"; a stale one still answers.
  let blocksRecall = false;
  let started = false;
  let deferred: NodeJS.Timeout | undefined;

  /**
   * The deferred check: a walk of every page and a parse of the whole
   * registry cache (seconds at 100k pages), run in slices so that the end of
   * input or a signal is seen between two of them and stops it (`stop`).
   */
  let checking: Promise<void> | undefined;

  /** The active vault's root and index state (`refresh` false: its registry as held). */
  const activeState = (refresh: boolean) => {
    const found = service.indexStatus({ refresh });
    return found && { root: found.root, state: found.index.state };
  };

  /** Updates the active vault's index in the background when the check found it not ready. */
  const update = (found: { root: string; state: string } | undefined): void => {
    if (controller.signal.aborted || found === undefined || found.state === "ready") return;
    blocksRecall = found.state === "missing" || found.state === "error";
    log(`index ${found.state} at ${found.root}; updating it in the background`);
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
  };

  const cannotRead = (error: unknown): void =>
    log(`cannot read the index status (${errorMessage(error)}); not updating it`);

  /**
   * The check before any answer (a folder changed, or no saved registry):
   * at once and whole, so whatever the client asks first finds it done and
   * any update it needs under way.
   */
  const checkNow = (): void => {
    if (controller.signal.aborted) return;
    let found: ReturnType<typeof activeState>;
    try {
      // Vaults recall answers from as last saved (the personal one) get their walk now too.
      for (const v of service.resolveVaults("all")) {
        const handle = service.handles.get(v);
        if (handle.answersFromSaved()) handle.refresh();
      }
      found = activeState(true);
    } catch (error) {
      cannotRead(error);
      return;
    }
    update(found);
  };

  /** The deferred check, in slices: each vault recall answered from as last saved is walked, then the active one's status read. */
  const checkInSlices = async (): Promise<void> => {
    if (controller.signal.aborted) return;
    let found: ReturnType<typeof activeState>;
    try {
      for (const v of service.resolveVaults("all")) {
        const handle = service.handles.get(v);
        if (handle.answersFromSaved()) await handle.refreshInSlices(controller.signal);
      }
      // Refreshed just now (or by a call meanwhile): read as it is.
      found = activeState(false);
    } catch (error) {
      // Stopped by shutdown between two slices: nothing to report.
      if (!isCancelled(error)) cannotRead(error);
      return;
    }
    update(found);
  };

  const runDeferred = (): void => {
    if (!deferred) return;
    clearTimeout(deferred);
    deferred = undefined;
    checking = checkInSlices();
  };

  /** Lets each vault whose saved registry is still good answer from it; true for the active one. */
  const answerFromSaved = (): boolean => {
    const [active] = service.resolveVaults("active");
    let activeSaved = false;
    try {
      for (const v of service.resolveVaults("all")) {
        const saved = service.handles.get(v).answerFromSaved();
        if (v.dir === active?.dir) activeSaved = saved;
      }
    } catch {
      activeSaved = false;
    }
    return activeSaved;
  };

  return {
    start() {
      if (started) return;
      started = true;
      if (!answerFromSaved()) {
        checkNow();
        return;
      }
      deferred = setTimeout(runDeferred, options.idleMs ?? IDLE_CHECK_MS);
      deferred.unref();
    },

    async ready() {
      if (running && blocksRecall) await within(running, waitMs);
    },

    checked: () => checking ?? Promise.resolve(),

    answered() {
      // After the answer has gone out: the check blocks for a while at 10k pages.
      if (deferred) setImmediate(runDeferred);
    },

    async stop() {
      controller.abort();
      if (deferred) clearTimeout(deferred);
      deferred = undefined;
      // The check stops at its next slice; an update it started lets go of the index.
      if (checking) await within(checking, STOP_WAIT_MS);
      if (running) await within(running, STOP_WAIT_MS);
    },
  };
}
