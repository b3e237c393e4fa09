/**
 * Coalesced background reindexing. Page changes arrive in bursts (an agent
 * editing several pages in one turn), so requests wait out a short quiet
 * period and merge; at most one pass runs at a time, and changes that arrive
 * during a pass start another one after it.
 */
import type { VaultKind } from "../lib/vault/paths.ts";
import type { VaultSelector } from "../lib/wiki-service.ts";

export interface ReindexScheduler {
  /**
   * Asks for a pass over `vault` after `delayMs` of quiet (default: the
   * scheduler's delay). `paths` are the files known to have changed; a
   * request without them makes the pass look at every page.
   */
  schedule(vault: VaultKind, delayMs?: number, paths?: readonly string[]): void;
  /** True while a pass runs or one is waiting to start. */
  readonly busy: boolean;
  /**
   * Resolves once no pass is running or waiting. A waiting pass then keeps
   * the process alive until it has run (an unwatched one does not).
   */
  settled(): Promise<void>;
  /** Drops waiting requests and waits for a running pass to end; later requests are ignored. */
  dispose(): Promise<void>;
}

export interface ReindexSchedulerOptions {
  /**
   * One pass over the selected vaults; its failures are its own to report.
   * `paths`: every file the merged requests named, or undefined when one of
   * them named none.
   */
  run(vault: VaultSelector, paths?: string[]): Promise<void>;
  delayMs: number;
}

export function createReindexScheduler(options: ReindexSchedulerOptions): ReindexScheduler {
  let pending = new Set<VaultKind>();
  // Undefined once any merged request did not say what changed.
  let pendingPaths: Set<string> | undefined = new Set();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let disposed = false;
  let waiters: Array<() => void> = [];

  const idle = () => timer === undefined && running === undefined && pending.size === 0;

  const wake = () => {
    if (!idle()) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };

  const arm = (delayMs: number) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(fire, delayMs);
    // A pass nobody waits for must not keep a finished process alive; one a
    // tool waits for must (see `settled`).
    if (waiters.length === 0) timer.unref?.();
  };

  function fire(): void {
    timer = undefined;
    if (running !== undefined || pending.size === 0) {
      wake();
      return;
    }
    const kinds = pending;
    const paths = pendingPaths ? [...pendingPaths] : undefined;
    pending = new Set();
    pendingPaths = new Set();
    const selector: VaultSelector = kinds.size > 1 ? "all" : ([...kinds][0] ?? "all");
    running = options
      .run(selector, paths)
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
        if (pending.size > 0 && !disposed) arm(options.delayMs);
        wake();
      });
  }

  return {
    schedule(vault, delayMs = options.delayMs, paths) {
      if (disposed) return;
      pending.add(vault);
      if (paths === undefined) pendingPaths = undefined;
      else for (const path of paths) pendingPaths?.add(path);
      // While a pass runs, the request waits for it; the pass re-arms the timer when it ends.
      if (running === undefined) arm(delayMs);
    },
    get busy() {
      return !idle();
    },
    settled() {
      if (idle()) return Promise.resolve();
      // Someone now waits for the pass: a print-mode Pi whose only pending
      // work is this timer would otherwise exit with the answer unsent.
      timer?.ref?.();
      return new Promise((resolve) => waiters.push(resolve));
    },
    async dispose() {
      disposed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      pending.clear();
      pendingPaths = new Set();
      await running;
      wake();
    },
  };
}
