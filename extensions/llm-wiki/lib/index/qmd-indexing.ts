/**
 * One vault's index lifecycle: recovery of interrupted swaps, full rebuilds
 * in a staging generation swapped in through a journal, incremental updates
 * of the live generation, embeddings, and the open store a long-running host
 * keeps between calls. Every write happens under the vault's index lock.
 */
import { rmSync } from "node:fs";
import { setImmediate as nextImmediate } from "node:timers/promises";
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import { crashPoint } from "./crash-points.ts";
import { heapValve } from "./heap-valve.ts";
import {
  canWriteIndex,
  indexWriteFailure,
  isReadOnly,
  readOnlyDiagnostic,
  removeTempLeftovers,
} from "./index-failure.ts";
import {
  type GenerationStoreStatus,
  type IndexStatus,
  readIndexStatus,
  readIndexStatusByMark,
  readStoreStatus,
  updateStateFile,
  writeStoreStatus,
} from "./index-state.ts";
import {
  dropEarlierPointer,
  type GenerationPaths,
  generationPaths,
  indexLayout,
  newGenerationName,
  readCurrent,
  usable,
} from "./layout.ts";
import { fileStamp, liveManifest } from "./live-manifest.ts";
import { acquireLock, type LockHandle } from "./lock.ts";
import {
  applyMirror,
  collectionsOf,
  emptyManifest,
  formatOf,
  INDEX_FORMAT,
  type Manifest,
  manifestPart,
  readManifestMark,
  shardsFor,
  shardsOf,
} from "./mirror.ts";
import type { ResolvedModels } from "./models.ts";
import { openQmdStore, openQmdStoreReadOnly, type QmdStore } from "./qmd-store.ts";
import type { ReaderPool } from "./reader-pool.ts";
import { generationRetirer } from "./retired-generations.ts";
import { applyCounting, countable } from "./store-counts.ts";
import { type RefreshFeed, streamedLoad } from "./streamed-load.ts";
import { type Journal, readJournal, recover } from "./swap-journal.ts";

export type ReindexScope = "changed" | "all";
export type ReindexComponent = "lexical" | "vectors";

export interface ReindexOptions {
  scope?: ReindexScope;
  components?: ReindexComponent[];
  /** Rebuild even when nothing changed. */
  force?: boolean;
  signal?: AbortSignal;
  onProgress?: (event: { phase: string; current: number; total: number }) => void;
  lockWaitMs?: number;
}

export interface ReindexReport {
  vault: string;
  action: "none" | "incremental" | "rebuild";
  written: number;
  removed: number;
  embedded: number;
  recovered: boolean;
  durationMs: number;
  status: IndexStatus;
  diagnostics: Diagnostic[];
}

/** Pages a rebuild mirrors and indexes per transaction, between two looks at its cancel signal. */
const MIRROR_BATCH = 250;

/** Slices a rebuild may have sent to the store's bulk load and not yet seen written. */
const LOADS_AHEAD = 2;

/**
 * Lets the event loop run between the synchronous steps of a build (store
 * writes never wait on I/O, so awaiting them does not), so a signal, a closed
 * stdin or a cancel is seen there, and stops a cancelled build.
 */
async function nextTurn(signal: AbortSignal | undefined): Promise<void> {
  await nextImmediate();
  signal?.throwIfAborted();
}

/** A registry not refreshed yet: `VaultIndex.reindex` refreshes it, feeding a rebuild when it makes one. */
export interface RegistrySource {
  refresh(feed?: RefreshFeed): Promise<Registry>;
}

/** A vault's index, as held by one process. */
export interface VaultIndex {
  readonly vault: VaultPaths;
  status(registry: Registry): IndexStatus;
  /**
   * The status against a registry known only by its summary (see
   * vault/registry-summary.ts), from the live manifest's mark; undefined
   * unless the mirror holds exactly the summary's pages.
   */
  statusBySummary(summary: { pages: number; index: string }): IndexStatus | undefined;
  /**
   * Brings the index up to date with the registry (rebuilding when needed).
   * Given a registry still to refresh, a rebuild indexes each page as the
   * refresh reads it (streamed-load.ts); the refresh then runs under the
   * index lock.
   */
  reindex(registry: Registry | RegistrySource, options?: ReindexOptions): Promise<ReindexReport>;
  /** The open store of the live generation, or undefined when there is none; reopened after a swap. */
  store(): Promise<QmdStore | undefined>;
  /**
   * False when this process may not write the index (another user's folder,
   * a read-only mount): `store()` then opens it read-only for lexical search,
   * and `reindex` refuses with `index_read_only` before writing anything.
   */
  writable(): boolean;
  close(): Promise<void>;
}

export interface VaultIndexOptions {
  models: ResolvedModels;
  /**
   * Open the live index lexical-first (qmd-lexical-first.ts): the SQLite
   * driver alone until something besides a lexical search is asked. For a
   * short-lived process that only recalls (a hook), which then never loads QMD.
   */
  lexicalFirst?: boolean;
  /** Where a lexical-first read-only store is kept between services (reader-pool.ts). */
  readers?: ReaderPool;
}

/** Opens the index handle of `vault`; nothing is read or opened until used. */
export function openVaultIndex(vault: VaultPaths, options: VaultIndexOptions): VaultIndex {
  const layout = indexLayout(vault);
  const retirer = generationRetirer(layout);
  // The store being opened or open: concurrent callers (a background reindex
  // and a recall) share one open instead of each opening, and leaking, a store.
  let open: { generation: string; readOnly: boolean; store: Promise<QmdStore> } | undefined;
  let statusCache: { key: string; registry: Registry; status: IndexStatus } | undefined;

  const manifests = liveManifest();
  const manifestOf = manifests.of;
  const saveManifest = manifests.save;

  const manifestShards = (gen: GenerationPaths): number | undefined => {
    const manifest = manifestOf(gen);
    return manifest ? shardsOf(manifest) : undefined;
  };

  const statusKey = (): string => {
    const current = readCurrent(layout) ?? "";
    const gen = current ? generationPaths(layout, current) : undefined;
    const files = [
      layout.journal,
      layout.state,
      gen?.manifest,
      gen?.manifestLog,
      gen?.store,
      gen?.complete,
      gen?.db,
    ];
    return `${current}|${files.map((f) => (f ? fileStamp(f) : "-")).join("|")}`;
  };

  const openGeneration = (
    gen: GenerationPaths,
    shards: number,
    collections = collectionsOf(gen, shards),
    lexicalFirst = false,
    bulkLoad = false,
  ): Promise<QmdStore> =>
    openQmdStore({
      dbPath: gen.db,
      collections,
      models: options.models,
      lexicalFirst,
      ...(lexicalFirst && options.readers ? { readers: options.readers } : {}),
      ...(bulkLoad ? { bulkLoad } : {}),
    });

  const closeOpen = async (): Promise<void> => {
    const current = open;
    open = undefined;
    if (current)
      await current.store.then(
        (store) => store.close(),
        () => undefined,
      );
  };

  const liveStore = async (): Promise<QmdStore | undefined> => {
    const current = readCurrent(layout);
    if (current === undefined) {
      await closeOpen();
      return undefined;
    }
    // Permissions can change under a long-running host: an index that became
    // writable is reopened for writing, one that stopped being is reopened read-only.
    const readOnly = !canWriteIndex(vault, layout);
    const same = () => open?.generation === current && open.readOnly === readOnly;
    if (!same()) await closeOpen();
    // Checked again: another caller may have started the open while this one waited.
    if (!same()) {
      const gen = generationPaths(layout, current);
      // Opening a generation whose database is gone would create an empty one.
      if (!usable(gen)) return undefined;
      // The collections are all the store needs of the manifest: its mark
      // carries their number, so a fresh process opens without parsing it.
      const shards = readManifestMark(gen)?.shards ?? manifestShards(gen);
      if (shards === undefined) return undefined;
      const collections = collectionsOf(gen, shards);
      const readOnlyStore = () => openQmdStoreReadOnly({ dbPath: gen.db, collections });
      const opening = readOnly
        ? readOnlyStore()
        : openGeneration(gen, shards, collections, options.lexicalFirst).catch((error: unknown) => {
            // A database file (or folder) this user may not write, though the check passed.
            if (isReadOnly(error)) return readOnlyStore();
            throw error;
          });
      open = { generation: current, readOnly, store: opening };
      opening.catch(() => {
        if (open?.store === opening) open = undefined;
      });
    }
    return open?.store;
  };

  /**
   * Builds a new generation and swaps it in. A failure (a full disk, say)
   * removes what it wrote at once, so the space it took is given back and
   * the last good generation stays live.
   */
  const rebuild = async (registry: Registry, opts: ReindexOptions, diagnostics: Diagnostic[]) => {
    const name = newGenerationName("gen");
    try {
      return await buildAndSwap(name, registry, opts, diagnostics);
    } catch (error) {
      discardGeneration(name);
      throw error;
    }
  };

  /** Removes the generation `name` unless the swap made it live. */
  const discardGeneration = (name: string): void => {
    if (readCurrent(layout) === name) return;
    // At once, not in the background: a build that failed for lack of space gives it back.
    rmSync(generationPaths(layout, name).dir, { recursive: true, force: true });
    if (readJournal(layout)?.to === name) rmSync(layout.journal, { force: true });
  };

  const buildAndSwap = async (
    name: string,
    registry: Registry,
    opts: ReindexOptions,
    diagnostics: Diagnostic[],
  ) => {
    const gen = generationPaths(layout, name);
    const all = { write: [...registry.pages.keys()], remove: [] };
    opts.onProgress?.({ phase: "mirror", current: 0, total: all.write.length });
    const shards = shardsFor(registry.pages.size);
    const manifest = emptyManifest(shards);
    // Private until the pointer swap: loaded without syncing, made durable by `close`.
    const store = await openGeneration(gen, shards, collectionsOf(gen, shards), false, true);
    try {
      // Read and indexed a slice at a time: a slice's texts are let go
      // once SQLite holds them, so memory holds one slice, not the vault
      // (1.7 GB at 100k pages when every text waited for the last page).
      // The store writes a bulk load on a worker thread: a slice's texts are
      // copied there as it is sent, so here they die young (held across
      // turns they were promoted to V8's old space and piled up as garbage
      // until a full collection, ~490 MB of the peak at 100k pages), and the
      // next slices are read while SQLite indexes this one. At
      // most `LOADS_AHEAD` slices wait there. A cancel is seen between
      // slices; each slice is its own transaction.
      const total = all.write.length;
      let indexed = 0;
      const loading: Promise<void>[] = [];
      const valve = heapValve();
      for (let at = 0; at < total; at += MIRROR_BATCH) {
        await nextTurn(opts.signal);
        const write = all.write.slice(at, at + MIRROR_BATCH);
        // A fresh manifest per slice: copying the growing one each time is quadratic.
        const part = applyMirror(vault, registry, emptyManifest(shards), { write, remove: [] });
        Object.assign(manifest.entries, part.manifest.entries);
        diagnostics.push(...part.diagnostics);
        const count = part.upserts.length;
        const loaded = store.applyDocuments(part.upserts, []).then(() => {
          indexed += count;
          opts.onProgress?.({ phase: "index", current: indexed, total });
        });
        // Awaited below, or abandoned with the build when an earlier step throws.
        loaded.catch(() => undefined);
        loading.push(loaded);
        if (loading.length > LOADS_AHEAD) await loading.shift();
        valve.check();
      }
      await Promise.all(loading);
    } catch (error) {
      // The generation is discarded: nothing of it needs to reach the disk.
      await store.close().catch(() => undefined);
      throw error;
    }
    const embedded = await finishBuild(name, store, manifest, opts);
    return { written: all.write.length, removed: 0, embedded };
  };

  /**
   * A rebuild fed by the registry's own refresh (streamed-load.ts); one
   * from the finished registry when the refresh fed anything else.
   */
  const streamedRebuild = async (
    source: RegistrySource,
    opts: ReindexOptions,
    diagnostics: Diagnostic[],
  ) => {
    const name = newGenerationName("gen");
    const gen = generationPaths(layout, name);
    const load = streamedLoad({
      vault,
      open: (shards) => openGeneration(gen, shards, collectionsOf(gen, shards), false, true),
      batch: MIRROR_BATCH,
      ahead: LOADS_AHEAD,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    let registry: Registry;
    let loaded: Awaited<ReturnType<typeof load.finish>>;
    try {
      registry = await source.refresh(load.feed);
      loaded = await load.finish(registry);
    } catch (error) {
      await load.abandon();
      discardGeneration(name);
      throw error;
    }
    if (!loaded) {
      await load.abandon();
      discardGeneration(name);
      return { registry, counts: await rebuild(registry, opts, diagnostics) };
    }
    diagnostics.push(...loaded.diagnostics);
    try {
      const embedded = await finishBuild(name, loaded.store, loaded.manifest, opts, loaded.merged);
      return { registry, counts: { written: registry.pages.size, removed: 0, embedded } };
    } catch (error) {
      discardGeneration(name);
      throw error;
    }
  };

  /**
   * Merges the full-text index (unless `merged`), embeds (when asked),
   * records the counts, makes the loaded generation `name` durable and swaps
   * it in; returns the pages embedded. `store` is closed either way.
   */
  const finishBuild = async (
    name: string,
    store: QmdStore,
    manifest: Manifest,
    opts: ReindexOptions,
    merged = false,
  ) => {
    const gen = generationPaths(layout, name);
    let embedded = 0;
    try {
      // One FTS5 segment per slice written, merged into one: every term
      // lookup reads each segment, so an unmerged rebuild answers slower.
      // A streamed load merged already, beside the registry's last steps.
      if (!merged) await store.mergeFullText();
      crashPoint("after-mirror");
      crashPoint("after-update");
      if (opts.components?.includes("vectors")) {
        const result = await store.embed({
          ...(opts.signal ? { signal: opts.signal } : {}),
          onProgress: (p) => opts.onProgress?.({ phase: "embed", current: p.done, total: p.total }),
        });
        embedded = result.embedded;
      }
      await nextTurn(opts.signal);
      await recordStoreStatus(store, gen);
    } catch (error) {
      // The generation is discarded: nothing of it needs to reach the disk.
      await store.close().catch(() => undefined);
      throw error;
    }
    // Checkpoints and syncs the database before anything can point to it.
    await store.close();
    saveManifest(gen, manifest);
    crashPoint("after-manifest");
    writeFileAtomic(gen.complete, `${new Date().toISOString()}\n`);
    crashPoint("after-complete");
    const from = readCurrent(layout);
    const journal: Journal = from ? { from, to: name } : { to: name };
    writeFileAtomic(layout.journal, `${JSON.stringify(journal)}\n`);
    crashPoint("after-journal");
    writeFileAtomic(layout.pointer, `${name}\n`);
    dropEarlierPointer(layout);
    crashPoint("after-pointer");
    // The new index answers from here on; the old one's files go in the background.
    if (from) void retirer.retire(from);
    crashPoint("after-cleanup");
    rmSync(layout.journal, { force: true });
    removeTempLeftovers(layout.root);
    return embedded;
  };

  /** Records what `gen`'s store holds, inside `gen`, so the counts swap with it. */
  const recordStoreStatus = async (store: QmdStore, gen: GenerationPaths) => {
    const s = await store.status();
    const next: GenerationStoreStatus = {
      documents: s.documents,
      needsEmbedding: s.needsEmbedding,
      hasVectors: s.hasVectors,
    };
    if (s.vectorModel) next.vectorModel = s.vectorModel;
    writeStoreStatus(gen, next);
  };

  /** True when the live generation can be patched (what `incremental` needs besides its store). */
  const patchable = (): boolean => {
    const current = readCurrent(layout);
    if (current === undefined) return false;
    const gen = generationPaths(layout, current);
    const manifest = usable(gen) ? manifestOf(gen) : undefined;
    return manifest !== undefined && formatOf(manifest) === INDEX_FORMAT;
  };

  const incremental = async (
    registry: Registry,
    opts: ReindexOptions,
    diagnostics: Diagnostic[],
  ) => {
    const current = readCurrent(layout);
    if (current === undefined) return undefined;
    const gen = generationPaths(layout, current);
    const manifest = usable(gen) ? manifestOf(gen) : undefined;
    // A generation of an older format is rebuilt, not patched (mirror.ts INDEX_FORMAT).
    if (!manifest || formatOf(manifest) !== INDEX_FORMAT) return undefined;
    const plan = manifests.plan(registry, manifest);
    const store = await liveStore();
    if (!store) return undefined;
    opts.signal?.throwIfAborted();
    let embedded = 0;
    const changed = plan.write.length > 0 || plan.remove.length > 0;
    const vectors = opts.components?.includes("vectors") === true;
    // Counts follow a lexical change by difference; embedding, or no counts yet, asks QMD.
    const before = readStoreStatus(gen);
    const counted = vectors ? undefined : countable(before, manifests.markOf(manifest)?.documents);
    let skipped = false;
    let recorded = false;
    if (changed) {
      const ids = [...plan.write, ...plan.remove.map((r) => r.id)];
      // Only the planned pages' entries: applying the plan copies nothing else.
      const part = manifestPart(manifest, ids);
      const mirrored = applyMirror(vault, registry, part, plan);
      diagnostics.push(...mirrored.diagnostics);
      skipped = mirrored.diagnostics.length > 0;
      const moved = await applyCounting(
        store,
        mirrored.upserts,
        mirrored.removals,
        counted !== undefined,
      );
      manifests.update(gen, manifest, part, mirrored.manifest, ids);
      const documents = manifests.markOf(manifest)?.documents;
      if (counted && moved !== undefined && documents !== undefined) {
        writeStoreStatus(gen, {
          ...counted,
          documents,
          needsEmbedding: counted.needsEmbedding + moved,
        });
        recorded = true;
      }
    }
    // A page skipped (changed again, or gone, since the registry read it)
    // stays pending: the next plan must compare every page to find it.
    manifests.synced(skipped ? undefined : registry);
    if (vectors) {
      const result = await store.embed({
        ...(opts.force ? { force: true } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        onProgress: (p) => opts.onProgress?.({ phase: "embed", current: p.done, total: p.total }),
      });
      embedded = result.embedded;
    }
    if ((changed && !recorded) || vectors || before === undefined) {
      await recordStoreStatus(store, gen);
    }
    return { written: plan.write.length, removed: plan.remove.length, embedded };
  };

  /**
   * Automatic recall asks on every turn: answer from memory while no index
   * file and no registry changed (a handful of stats instead of reading and
   * diffing the manifest).
   */
  const statusOf = (registry: Registry): IndexStatus => {
    const key = statusKey();
    if (statusCache && statusCache.key === key && statusCache.registry === registry) {
      return statusCache.status;
    }
    const status = readIndexStatus(layout, registry, manifestOf, manifests.known);
    statusCache = { key, registry, status };
    return status;
  };

  return {
    vault,

    status: statusOf,

    statusBySummary: (summary) => readIndexStatusByMark(layout, summary),

    async reindex(given, opts = {}) {
      const started = performance.now();
      const diagnostics: Diagnostic[] = [];
      const source = "pages" in given ? undefined : given;
      let registry = "pages" in given ? given : undefined;
      const registryNow = async (): Promise<Registry> => {
        registry ??= await (source as RegistrySource).refresh();
        return registry;
      };
      const cancelled = () =>
        diagnostic(
          "index_cancelled",
          "error",
          "index update cancelled; the previous index stays in use",
          {
            repair: "llm-wiki reindex",
          },
        );
      // A caller that already left (a closing server) starts nothing, not even the lock wait.
      if (opts.signal?.aborted)
        return report("none", { written: 0, removed: 0, embedded: 0 }, false, [cancelled()]);
      // Nothing is tried (not even the lock file) where nothing may be written.
      if (!canWriteIndex(vault, layout))
        return report("none", { written: 0, removed: 0, embedded: 0 }, false, [
          readOnlyDiagnostic(vault, "error"),
        ]);
      const takeLock = (waitMs: number | undefined) =>
        acquireLock(layout.lock, {
          op: `reindex ${opts.scope ?? "changed"}`,
          ...(waitMs !== undefined ? { waitMs } : {}),
        });
      let lock: LockHandle;
      try {
        try {
          lock = await takeLock(source ? 0 : opts.lockWaitMs);
        } catch (error) {
          if (!(source && error instanceof WikiError && error.diagnostic.code === "index_busy"))
            throw error;
          // Held by another process: the registry is refreshed while this one
          // waits, as before a lock, and a rebuild then reads its pages.
          await registryNow();
          lock = await takeLock(opts.lockWaitMs);
        }
      } catch (error) {
        // A busy or unusable lock, or a meta/ folder this user may not write.
        const refused =
          error instanceof WikiError ? error.diagnostic : indexWriteFailure(error, layout, vault);
        if (refused)
          return report("none", { written: 0, removed: 0, embedded: 0 }, false, [refused]);
        throw error;
      }
      let action: ReindexReport["action"] = "none";
      let counts = { written: 0, removed: 0, embedded: 0 };
      let recovered = false;
      try {
        opts.signal?.throwIfAborted();
        const before = readCurrent(layout);
        recovered = recover(layout, retirer);
        if (readCurrent(layout) !== before) await closeOpen();
        const wantRebuild = opts.scope === "all" || opts.force === true;
        // A registry still to refresh feeds a rebuild that is certain now: no live generation to patch.
        const stream =
          source !== undefined && registry === undefined && (wantRebuild || !patchable());
        const done =
          wantRebuild || stream
            ? undefined
            : await incremental(await registryNow(), opts, diagnostics);
        if (done) {
          counts = done;
          action = done.written + done.removed + done.embedded > 0 ? "incremental" : "none";
        } else {
          await closeOpen();
          if (stream && source) {
            const built = await streamedRebuild(source, opts, diagnostics);
            registry = built.registry;
            counts = built.counts;
          } else {
            counts = await rebuild(await registryNow(), opts, diagnostics);
          }
          action = "rebuild";
          // The new mirror holds the registry's pages, unless one was skipped.
          const skipped = diagnostics.some((d) => d.code === "index_page_skipped");
          manifests.synced(skipped ? undefined : registry);
        }
        updateStateFile(layout, {
          lastBuiltAt: new Date().toISOString(),
          lastError: undefined,
          lastErrorAt: undefined,
        });
      } catch (error) {
        const message = errorMessage(error);
        // A cancelled update is not a failed one: the index is no worse than before it.
        if (opts.signal?.aborted) diagnostics.push(cancelled());
        else {
          recordFailure(message);
          diagnostics.push(
            error instanceof WikiError
              ? error.diagnostic
              : (indexWriteFailure(error, layout, vault) ??
                  diagnostic(
                    "index_failed",
                    "error",
                    `indexing failed: ${message}; the previous index stays in use`,
                    {
                      repair: "llm-wiki reindex --force",
                    },
                  )),
          );
        }
        // A failed rebuild removed its own generation; the next recovery removes a killed one's.
      } finally {
        lock.release();
      }
      return report(action, counts, recovered, diagnostics);

      /** Remembers the failure for `status`, if the disk still takes the write. */
      function recordFailure(message: string): void {
        try {
          updateStateFile(layout, { lastError: message, lastErrorAt: new Date().toISOString() });
        } catch {
          // A full disk or a read-only folder: the diagnostic still tells the caller.
        }
      }

      async function report(
        act: ReindexReport["action"],
        c: { written: number; removed: number; embedded: number },
        rec: boolean,
        diags: Diagnostic[],
      ): Promise<ReindexReport> {
        const durationMs = Math.round(performance.now() - started);
        const status = statusOf(await registryNow());
        return {
          vault: vault.root,
          action: act,
          ...c,
          recovered: rec,
          durationMs,
          status,
          diagnostics: diags,
        };
      }
    },

    store: liveStore,
    writable: () => canWriteIndex(vault, layout),
    close: closeOpen,
  };
}
