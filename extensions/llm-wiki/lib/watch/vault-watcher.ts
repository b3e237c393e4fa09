/**
 * `llm-wiki watch`: keeps a vault's index current while its pages change. A
 * recursive file watcher on `wiki/` collects the changed files; once none
 * changed for the debounce (300 ms), they are indexed (`reindex` with those
 * paths, so only they are looked at). Runs never overlap: changes seen during
 * a run are indexed right after it. One watcher per vault: it holds
 * `meta/watch.lock` (the index lock's mechanism, a file of its own so index
 * writes by Pi, MCP or the CLI are never held up by a watcher), and a second
 * one is refused with `watch_running`.
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { acquireLock, type LockHandle } from "../index/lock.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { isReservedWikiFile } from "../vault/reserved-names.ts";
import type { ReindexInput, ReindexResult } from "../wiki-service.ts";
import { failureDiagnostic } from "../writing/input.ts";

export const WATCH_DEBOUNCE_MS = 300;
/** The lock file under `meta/` that keeps one watcher per vault. */
export const WATCH_LOCK = "watch.lock";

/** What the watcher needs of the service. */
export interface WatchService {
  reindex(input?: ReindexInput): Promise<ReindexResult>;
  /** The generated views follow the pages that changed (views-follow.ts). */
  noteWrite?(vault: VaultPaths, changed?: readonly string[]): void;
}

export interface WatchOptions {
  debounceMs?: number;
  /** Each indexing run's result, in order (the first covers what changed while nobody watched). */
  onRun?: (result: ReindexResult, changed: number) => void;
  /** A run that failed to start or threw. */
  onError?: (diagnostic: Diagnostic) => void;
}

/** A running watcher. */
export interface VaultWatch {
  /** Stops watching, waits for a run in progress, releases the lock. */
  stop(): Promise<void>;
}

export type StartWatchResult =
  | { ok: true; watch: VaultWatch }
  | { ok: false; diagnostics: Diagnostic[] };

/** Starts watching `vault`: takes the watch lock, indexes what changed meanwhile, then follows changes. */
export async function startVaultWatch(
  service: WatchService,
  vault: VaultPaths,
  options: WatchOptions = {},
): Promise<StartWatchResult> {
  const debounceMs = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  let lock: LockHandle;
  try {
    lock = await acquireLock(join(vault.meta, WATCH_LOCK), { op: "watch", waitMs: 0 });
  } catch (error) {
    const cause = failureDiagnostic(error);
    const busy = error instanceof WikiError && cause.code === "index_busy";
    return {
      ok: false,
      diagnostics: [
        busy
          ? diagnostic(
              "watch_running",
              "error",
              `another llm-wiki watch already keeps this vault's index current (${cause.message.replace(/^the index is busy: /, "")})`,
              { repair: "stop that watcher first, or let it keep running" },
            )
          : cause,
      ],
    };
  }

  const pending = new Set<string>();
  /** Set when a change came without a file name: the next run walks every page. */
  let walkAll = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const controller = new AbortController();

  const run = async (paths: string[] | undefined): Promise<void> => {
    try {
      const result = await service.reindex({
        scope: "changed",
        vault: vault.kind,
        signal: controller.signal,
        ...(paths ? { paths } : {}),
      });
      if (controller.signal.aborted) return;
      service.noteWrite?.(vault, paths);
      options.onRun?.(result, paths?.length ?? 0);
    } catch (error) {
      if (!controller.signal.aborted) options.onError?.(failureDiagnostic(error));
    }
  };

  const flush = (): void => {
    timer = undefined;
    if (stopped || running || (pending.size === 0 && !walkAll)) return;
    const paths = walkAll ? undefined : [...pending];
    pending.clear();
    walkAll = false;
    running = run(paths).finally(() => {
      running = undefined;
      // Changes seen during the run: their quiet period has already begun.
      if ((pending.size > 0 || walkAll) && !stopped) schedule();
    });
  };

  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };

  let watcher: FSWatcher;
  try {
    watcher = watch(vault.wiki, { recursive: true }, (_event, filename) => {
      if (stopped) return;
      // Reserved files (OKF's generated indexes and log, which the views
      // refresh writes) are never pages: nothing to index, no run.
      if (filename && isReservedWikiFile(filename.toString())) return;
      // Without a name the platform lost track of what changed: the walk finds it.
      if (filename) pending.add(join(vault.wiki, filename.toString()));
      else walkAll = true;
      schedule();
    });
  } catch (error) {
    lock.release();
    return {
      ok: false,
      diagnostics: [
        diagnostic(
          "watch_unavailable",
          "error",
          `cannot watch ${vault.wiki}: ${failureDiagnostic(error).message}`,
        ),
      ],
    };
  }
  watcher.on("error", (error) => options.onError?.(failureDiagnostic(error)));

  // What changed while nobody watched: one ordinary incremental run first.
  running = run(undefined).finally(() => {
    running = undefined;
    if ((pending.size > 0 || walkAll) && !stopped) schedule();
  });

  return {
    ok: true,
    watch: {
      async stop() {
        if (stopped) return;
        stopped = true;
        if (timer) clearTimeout(timer);
        watcher.close();
        controller.abort();
        await running;
        lock.release();
      },
    },
  };
}
