/**
 * Per-vault state a host process keeps between calls: the registry (refreshed
 * on demand, not per recall) and the index handle with its open store. One
 * set per service instance; closed when the host shuts down. A server that
 * has just started may let recall answer from the registry as last saved
 * (`answerFromSaved`) until its first refresh.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createVaultFeedback, type VaultFeedback } from "./feedback/vault-feedback.ts";
import type { IndexStatus } from "./index/index-state.ts";
import { type ModelAvailability, modelAvailability, type ResolvedModels } from "./index/models.ts";
import { openVaultIndex, type VaultIndex } from "./index/qmd-indexing.ts";
import { preloadQmd } from "./index/qmd-store.ts";
import type { ReaderPool } from "./index/reader-pool.ts";
import type { RefreshFeed } from "./index/streamed-load.ts";
import { runPaced, runSliced } from "./sliced-work.ts";
import { readVaultConfig } from "./vault/config.ts";
import { followGitHead } from "./vault/git-follow.ts";
import { hashContent } from "./vault/page.ts";
import type { VaultPaths } from "./vault/paths.ts";
import { type Registry, refreshRegistry, refreshRegistrySteps } from "./vault/registry.ts";
import {
  openSavedRegistry,
  type RecallRegistry,
  type SavedRegistry,
} from "./vault/registry-saved.ts";

export interface VaultHandle {
  readonly paths: VaultPaths;
  readonly index: VaultIndex;
  /**
   * The registry, refreshed from disk (incremental: unchanged pages are not
   * re-read). With `changed`, only those files are looked at while the
   * registry in hand is current (see `RefreshOptions`).
   */
  refresh(changed?: readonly string[]): Registry;
  /**
   * A full refresh run in slices (sliced-work.ts), the event loop handed
   * back between them: for a server's own check after its first answers,
   * while recall still answers from the saved registry. Rejects with the
   * cancellation error when `signal` aborts; a refresh called meanwhile
   * wins, and this one ends with its registry. With a registry already in
   * hand it is a plain `refresh()`.
   */
  refreshInSlices(signal?: AbortSignal): Promise<Registry>;
  /**
   * `refresh(changed)` that feeds a rebuild each page it reads, at the
   * rebuild's pace (index/streamed-load.ts). With a registry already in
   * hand it is a plain `refresh(changed)` and feeds nothing: the rebuild
   * then reads the pages itself.
   */
  refreshFeeding(changed: readonly string[] | undefined, feed: RefreshFeed): Promise<Registry>;
  /**
   * The index was just brought up to `registry` (a reindex in this
   * process): a recall right after trusts it as if refreshed now instead of
   * walking `wiki/` again. An edit made outside the tools meanwhile is seen
   * by the next full refresh, as always.
   */
  indexed(registry: Registry): void;
  /** The registry as `wiki/` holds it now, writing nothing and keeping nothing (see `RefreshOptions.readOnly`). */
  peek(): Registry;
  /**
   * The last refreshed registry; refreshed first when there is none yet or it
   * is older than `maxAgeMs` (default: never refresh a registry in hand).
   */
  registry(maxAgeMs?: number): Registry;
  /**
   * What the vault is about (`topic` and `mode` of its config, ≤ 256 chars),
   * steering QMD's reranking. Read with the registry, not on every recall.
   */
  intent(): string;
  /**
   * Lets recall answer from the registry as last saved, read lazily (see
   * vault/registry-saved.ts), instead of walking `wiki/` and parsing every
   * page's record: only while no `wiki/` folder changed since the last walk
   * of every page and the index holds exactly the saved pages. A page edited
   * in place since is not seen until the next refresh, which ends it. For a
   * server's first answers; it refreshes right after. True when it does.
   * `minPages`: only in a vault of at least that many pages as saved (a
   * smaller one is walked, which finds such edits at little cost).
   */
  answerFromSaved(options?: { minPages?: number }): boolean;
  /** True while recall answers from the saved registry. */
  answersFromSaved(): boolean;
  /**
   * False when recall answers from the saved registry and one of these
   * pages no longer holds the text saved for it (edited in place since, or
   * gone): an answer that shows it should refresh first. A read and a hash
   * per page, only while answering from saved.
   */
  savedCurrent(ids: Iterable<string>): boolean;
  /**
   * What recall reads and the index status against it: the saved registry
   * while it answers (opened at most `maxAgeMs` ago, the index still holding
   * its pages), else `registry(maxAgeMs)`.
   */
  recallView(maxAgeMs?: number): { registry: RecallRegistry; status: IndexStatus };
  /** The registry recall reads: the saved one while it answers, else `registry()`. */
  view(): RecallRegistry;
  /** The vault's recall feedback (its projection, reloaded when the event log changes). */
  readonly feedback: VaultFeedback;
  /**
   * Catches up with git (vault/git-follow.ts): when the commit checked out
   * moved since the last call (a pull, checkout or merge), the pages the two
   * commits differ in are refreshed and indexed, not the whole vault.
   * Never waits for a busy index lock; the index as it is answers then.
   */
  followGit(): Promise<void>;
}

export interface VaultHandles {
  get(paths: VaultPaths): VaultHandle;
  readonly models: ResolvedModels;
  /** Model availability, checked once per handle set (file checks only). */
  availability(): ModelAvailability;
  closeAll(): Promise<void>;
}

/**
 * The most time walking `wiki/` for edits made outside the tools may take
 * of a process's time once a walk is slow: a walk is a stat per page
 * (about a second at 100k pages), so a recall that asks for a registry at
 * most `maxAgeMs` old then gets one up to `walkMs / WALK_TIME_SHARE` old.
 */
export const WALK_TIME_SHARE = 0.05;
/** A walk this slow is a large vault's (tens of thousands of pages), never a busy machine's small one. */
export const SLOW_WALK_MS = 250;

/** How old a registry a caller asking for `maxAgeMs` accepts when the last walk took `walkMs`. */
export function registryMaxAge(maxAgeMs: number, walkMs: number): number {
  return walkMs < SLOW_WALK_MS ? maxAgeMs : Math.max(maxAgeMs, walkMs / WALK_TIME_SHARE);
}

/** The hash of page `id`'s file as it is now; undefined when it cannot be read. */
function pageHashNow(paths: VaultPaths, id: string): string | undefined {
  try {
    return hashContent(readFileSync(join(paths.wiki, `${id}.md`)));
  } catch {
    return undefined;
  }
}

/**
 * The handles of a host's vaults. `lexicalFirst`: each index opened
 * lexical-first (see `VaultIndexOptions`); `onGitMove`: told of the pages
 * a pull, checkout or merge changed, once they are indexed.
 */
export function createVaultHandles(
  models: ResolvedModels,
  options: {
    lexicalFirst?: boolean;
    /** Where lexical-first read-only stores are kept between services (index/reader-pool.ts). */
    readers?: ReaderPool;
    /** Told when `followGit` found HEAD moved: the files that changed (undefined: any page may have). */
    onGitMove?: (vault: VaultPaths, changed: readonly string[] | undefined) => void;
  } = {},
): VaultHandles {
  // Every host but a lexical-first one opens QMD stores: their modules load now, in the background.
  if (!options.lexicalFirst) preloadQmd();
  const handles = new Map<string, VaultHandle>();
  let availability: ModelAvailability | undefined;
  return {
    models,
    availability() {
      availability ??= modelAvailability(models);
      return availability;
    },
    get(paths) {
      const existing = handles.get(paths.dir);
      if (existing) return existing;
      let registry: Registry | undefined;
      let refreshedAt = 0;
      /** How long the last walk of an already-read registry took. */
      let walkMs = 0;
      let intent: string | undefined;
      let saved: { registry: SavedRegistry; at: number } | undefined;
      /** Aborts a sliced refresh under way: a plain refresh took its place. */
      let slicing: AbortController | undefined;
      /** A freshly refreshed registry becomes the one in hand; the saved one is let go. */
      const adopt = (reg: Registry): Registry => {
        saved = undefined;
        registry = reg;
        refreshedAt = performance.now();
        intent = undefined;
        return reg;
      };
      /** The saved registry's status while the index still holds its pages. */
      const savedStatus = (): IndexStatus | undefined => {
        const status = saved && handle.index.statusBySummary(saved.registry.summary);
        if (!status) saved = undefined;
        return status;
      };
      const git = followGitHead(paths);
      const handle: VaultHandle = {
        paths,
        index: openVaultIndex(paths, {
          models,
          ...(options.lexicalFirst ? { lexicalFirst: true } : {}),
          ...(options.readers ? { readers: options.readers } : {}),
        }),
        feedback: createVaultFeedback(paths),
        refresh(changed) {
          slicing?.abort();
          slicing = undefined;
          const walked = registry !== undefined && changed === undefined;
          const started = performance.now();
          const reg = adopt(refreshRegistry(paths, registry, changed ? { changed } : {}));
          if (walked) walkMs = refreshedAt - started;
          return reg;
        },
        async refreshFeeding(changed, feed) {
          if (registry) return handle.refresh(changed);
          slicing?.abort();
          slicing = undefined;
          return adopt(
            await runPaced(
              (clock) =>
                refreshRegistrySteps(
                  paths,
                  undefined,
                  {
                    ...(changed ? { changed } : {}),
                    onPage: feed.onPage,
                    onPagesRead: feed.pagesRead,
                  },
                  clock,
                ),
              feed.pace,
            ),
          );
        },
        async refreshInSlices(signal) {
          if (registry) return handle.refresh();
          slicing?.abort();
          const own = new AbortController();
          slicing = own;
          const stop = AbortSignal.any([own.signal, ...(signal ? [signal] : [])]);
          try {
            const reg = await runSliced(
              (clock) => refreshRegistrySteps(paths, undefined, {}, clock),
              "registry refresh",
              stop,
            );
            // A plain refresh between the last slice and here wins.
            if (own.signal.aborted && registry) return registry;
            return adopt(reg);
          } catch (error) {
            // A plain refresh replaced this one: its registry is the answer.
            if (own.signal.aborted && !signal?.aborted && registry) return registry;
            throw error;
          } finally {
            if (slicing === own) slicing = undefined;
          }
        },
        indexed(reg) {
          if (reg === registry) refreshedAt = performance.now();
        },
        peek() {
          return refreshRegistry(paths, undefined, { readOnly: true });
        },
        intent() {
          if (intent === undefined) {
            const { config } = readVaultConfig(paths);
            intent = [config.topic, config.mode].filter(Boolean).join(" ").slice(0, 256);
          }
          return intent;
        },
        registry(maxAgeMs = Number.POSITIVE_INFINITY) {
          if (registry && performance.now() - refreshedAt <= registryMaxAge(maxAgeMs, walkMs))
            return registry;
          return handle.refresh();
        },
        answerFromSaved({ minPages = 0 } = {}) {
          if (registry) return false;
          const opened = openSavedRegistry(paths);
          if (!opened || opened.summary.pages < minPages) return false;
          saved = { registry: opened, at: performance.now() };
          return savedStatus() !== undefined;
        },
        answersFromSaved: () => saved !== undefined,
        savedCurrent(ids) {
          if (!saved) return true;
          const hashes = saved.registry.hashes;
          for (const id of ids) {
            const want = hashes.get(id);
            if (want === undefined || pageHashNow(paths, id) !== want) return false;
          }
          return true;
        },
        recallView(maxAgeMs = Number.POSITIVE_INFINITY) {
          if (saved && performance.now() - saved.at <= maxAgeMs) {
            const status = savedStatus();
            if (saved && status) return { registry: saved.registry, status };
          }
          const reg = handle.registry(maxAgeMs);
          return { registry: reg, status: handle.index.status(reg) };
        },
        view: () => saved?.registry ?? handle.registry(),
        async followGit() {
          const move = git.check();
          if (move === undefined) return;
          if (move.changed?.length === 0) {
            git.settled(move);
            return;
          }
          const reg = move.changed ? handle.refresh(move.changed) : handle.refresh();
          if (handle.index.writable()) {
            const report = await handle.index.reindex(reg, { lockWaitMs: 0 });
            // Another process holds the index: the next recall tries again.
            if (report.diagnostics.some((d) => d.code === "index_busy")) return;
          }
          git.settled(move);
          options.onGitMove?.(paths, move.changed);
        },
      };
      handles.set(paths.dir, handle);
      return handle;
    },
    async closeAll() {
      const all = [...handles.values()];
      handles.clear();
      await Promise.all(all.map((h) => h.index.close()));
    },
  };
}
