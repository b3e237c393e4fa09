/**
 * Generated views follow writes: after a write through the service, the
 * vault's `meta/index.md`, `meta/log.md` and (only where the vault is in
 * OKF mode, as `rebuild-meta` decides) `wiki/index.md`, its folder indexes
 * and `wiki/log.md` are refreshed — the same bytes a full `rebuild-meta`
 * writes, by the same code (`viewsWork`), without lint (its report judges
 * every page and stays `rebuild-meta`'s). Writes in a burst give one
 * refresh, `debounceMs` after the last; `flush` runs what is pending now (a
 * host's shutdown, a one-shot CLI before it exits). A refresh looks at the
 * pages the writes named, not every page, and reads only what was appended
 * to the event log. A refresh that fails is a diagnostic (`onRefresh`),
 * never a failed write. Pages, `raw/` and `meta/events.jsonl` are only read.
 */
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { type Redacted, redactSecrets } from "../safety/redact.ts";
import { runSliced } from "../sliced-work.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { VaultHandles } from "../vault-handles.ts";
import { createLogFollower } from "./event-entries-follow.ts";
import { viewsWork } from "./rebuild-meta.ts";

/** How long a host waits after the last write of a burst before refreshing the views. */
export const VIEWS_DEBOUNCE_MS = 300;

/** What one refresh of one vault's views did (paths relative to its `.llm-wiki/`). */
export interface ViewsRefresh {
  vault: VaultPaths;
  /** Writes this refresh follows (a burst counts each). */
  writes: number;
  /** The files the registry looked at, as the writes named them; undefined: every page. */
  changed?: string[];
  written: string[];
  removed: string[];
  diagnostics: Diagnostic[];
}

export interface ViewsFollowOptions {
  /** Wait after the last write before refreshing (default `VIEWS_DEBOUNCE_MS`). */
  debounceMs?: number;
  /** Told after each refresh (a host logs its diagnostics; a spec counts refreshes). */
  onRefresh?: (refresh: ViewsRefresh) => void;
}

export interface ViewsFollower {
  /**
   * A write changed `vault`: `changed` names the files it wrote (absolute or
   * relative to `.llm-wiki/`), undefined when it cannot say (every page is
   * then looked at). Schedules the refresh; never throws.
   */
  noteWrite(vault: VaultPaths, changed?: readonly string[]): void;
  /** Refreshes every vault with writes pending now; resolves when done. */
  flush(): Promise<void>;
}

interface Pending {
  vault: VaultPaths;
  writes: number;
  /** Files the writes named; undefined once one could not say. */
  changed: Set<string> | undefined;
}

/**
 * What of a refresh a host shows: failures (a view not written, a refresh
 * that threw, a config that stops the OKF views), not the warnings a full
 * `rebuild-meta` reports about the vault's own files.
 */
export function refreshProblems(refresh: ViewsRefresh): Diagnostic[] {
  return refresh.diagnostics.filter(
    (d) => d.severity === "error" || d.code === "views_refresh_failed",
  );
}

/** A follower over `handles` (one per service). */
export function createViewsFollower(
  handles: VaultHandles,
  options: ViewsFollowOptions = {},
): ViewsFollower {
  const debounceMs = options.debounceMs ?? VIEWS_DEBOUNCE_MS;
  const pending = new Map<string, Pending>();
  const logs = new Map<string, ReturnType<typeof createLogFollower>>();
  const redacted = new Map<string, Map<string, { text: string; clean: Redacted }>>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const refreshOne = async (job: Pending): Promise<void> => {
    let log = logs.get(job.vault.dir);
    if (log === undefined) {
      log = createLogFollower();
      logs.set(job.vault.dir, log);
    }
    const readLog = log.read;
    let seen = redacted.get(job.vault.dir);
    if (seen === undefined) {
      seen = new Map();
      redacted.set(job.vault.dir, seen);
    }
    const memo = seen;
    // A view whose text did not change since the last refresh (the catalog
    // after an event, the logs after a hand edit) is not scanned again.
    const redact = (rel: string, text: string): Redacted => {
      const last = memo.get(rel);
      if (last !== undefined && last.text === text) return last.clean;
      const clean = redactSecrets(text);
      memo.set(rel, { text, clean });
      return clean;
    };
    let refresh: ViewsRefresh;
    try {
      const outcome = await runSliced(
        (clock) =>
          viewsWork(
            handles,
            job.vault,
            {
              skipLint: true,
              readLog,
              redact,
              ...(job.changed ? { changed: [...job.changed] } : {}),
            },
            clock,
          ),
        "views refresh",
      );
      refresh = {
        vault: job.vault,
        writes: job.writes,
        ...(job.changed ? { changed: [...job.changed] } : {}),
        written: outcome.report.written,
        removed: outcome.report.removed,
        diagnostics: outcome.diagnostics,
      };
    } catch (error) {
      refresh = {
        vault: job.vault,
        writes: job.writes,
        ...(job.changed ? { changed: [...job.changed] } : {}),
        written: [],
        removed: [],
        diagnostics: [
          diagnostic(
            "views_refresh_failed",
            "warning",
            `the views were not refreshed after a write: ${errorMessage(error)}`,
            { repair: "llm-wiki rebuild-meta" },
          ),
        ],
      };
    }
    try {
      options.onRefresh?.(refresh);
    } catch {
      // A listener's failure is its own; the next write refreshes again.
    }
  };

  const drain = (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    // One refresh at a time: writes noted while one runs wait for the next.
    running = running.then(async () => {
      while (pending.size > 0) {
        const jobs = [...pending.values()];
        pending.clear();
        for (const job of jobs) await refreshOne(job);
      }
    });
    return running;
  };

  return {
    noteWrite(vault, changed) {
      const job = pending.get(vault.dir);
      if (job === undefined) {
        pending.set(vault.dir, {
          vault,
          writes: 1,
          changed: changed ? new Set(changed) : undefined,
        });
      } else {
        job.writes += 1;
        if (changed === undefined) job.changed = undefined;
        else for (const path of changed) job.changed?.add(path);
      }
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => void drain(), debounceMs);
      // A pending refresh never keeps a process alive: its host flushes before it exits.
      timer.unref();
    },
    flush() {
      return drain();
    },
  };
}
