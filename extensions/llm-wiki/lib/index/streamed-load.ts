/**
 * A rebuild fed by the registry refresh itself: each accepted page is
 * mirrored as the refresh reads it, with the bytes it read, and sent to the
 * new generation's bulk load a slice at a time, so SQLite indexes on its
 * worker thread while this thread parses the next pages. A fresh clone's
 * first index otherwise read and parsed every page (the registry), then
 * read every page again and indexed it, one after the other. The pages are
 * loaded in the registry's order, as a rebuild from the finished registry
 * loads them; when the refresh turns out to have fed anything else (it
 * started from a registry in hand and fed nothing, or a page count crossed
 * a collection boundary), `finish` says so and the caller rebuilds from the
 * registry instead.
 */
import { setImmediate as nextImmediate } from "node:timers/promises";
import type { Diagnostic } from "../diagnostics.ts";
import { type Pace, SLICE_MS } from "../sliced-work.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry, WalkedPage } from "../vault/registry.ts";
import { heapValve } from "./heap-valve.ts";
import { emptyManifest, type Manifest, mirrorDocument, shardsFor } from "./mirror.ts";
import type { DocumentUpsert } from "./qmd-documents.ts";
import type { QmdStore } from "./qmd-store.ts";

/** What a registry refresh calls as it reads each page, and the pace it keeps. */
export interface RefreshFeed {
  onPage(page: WalkedPage): void;
  /** The refresh has fed its last page (it goes on with its link graph and cache). */
  pagesRead(): void;
  pace: Pace;
}

/** A load in progress; see the module comment. */
export interface StreamedLoad {
  readonly feed: RefreshFeed;
  /**
   * Sends the last slice and waits for every slice to be written. The store
   * and the manifest of what it holds when the pages fed were exactly
   * `registry`'s, in its order, with its hashes and roles; else undefined.
   */
  finish(registry: Registry): Promise<
    | {
        store: QmdStore;
        manifest: Manifest;
        diagnostics: Diagnostic[];
        /** The full-text index was merged after the last slice (`QmdStore.mergeFullText`). */
        merged: boolean;
      }
    | undefined
  >;
  /** Waits for the slices under way and closes the store, if one was opened. */
  abandon(): Promise<void>;
}

export interface StreamedLoadOptions {
  vault: VaultPaths;
  /** Opens the new generation's store for `shards` collections per role (a bulk load). */
  open(shards: number): Promise<QmdStore>;
  /** Pages per slice (one transaction). */
  batch: number;
  /** Slices sent and not yet written before the refresh waits. */
  ahead: number;
  signal?: AbortSignal;
  onProgress?: (event: { phase: string; current: number; total: number }) => void;
}

/** Starts a load; nothing is opened until the refresh feeds its first page. */
export function streamedLoad(options: StreamedLoadOptions): StreamedLoad {
  const { vault, batch: perSlice, ahead, signal, onProgress } = options;
  let opened: { shards: number; store: Promise<QmdStore> } | undefined;
  const entries: Manifest["entries"] = {};
  const diagnostics: Diagnostic[] = [];
  /** What was fed, page by page, to compare with the finished registry. */
  const fed: Array<{ id: string; hash: string; role: string }> = [];
  let slice: DocumentUpsert[] = [];
  const loading: Promise<void>[] = [];
  let indexed = 0;
  let files = 0;
  let turnWanted = false;
  /** The merge asked for once the last page was fed; undefined once a slice follows it. */
  let merging: Promise<void> | undefined;
  let begun = performance.now();
  const valve = heapValve();

  const openFor = (shards: number) => {
    const store = options.open(shards);
    // Seen by the slices (or `finish`); never a rejection left unhandled.
    store.catch(() => undefined);
    opened = { shards, store };
    return opened;
  };

  const send = (): void => {
    if (slice.length === 0 || !opened) return;
    const docs = slice;
    slice = [];
    const loaded = opened.store
      .then((store) => store.applyDocuments(docs, []))
      .then(() => {
        indexed += docs.length;
        onProgress?.({ phase: "index", current: indexed, total: files });
      });
    // Awaited by `pace.between`, `finish` or `abandon`.
    loaded.catch(() => undefined);
    loading.push(loaded);
    turnWanted = true;
    merging = undefined;
  };

  const feed: RefreshFeed = {
    onPage(page) {
      files = page.files;
      const target = opened ?? openFor(shardsFor(page.files));
      fed.push({ id: page.id, hash: page.hash, role: page.meta.role });
      const doc = mirrorDocument(vault, {
        meta: page.meta,
        hash: page.hash,
        secrets: page.secrets,
        ...(page.bytes ? { bytes: page.bytes } : {}),
        shards: target.shards,
      });
      if ("skipped" in doc) {
        diagnostics.push(doc.skipped);
        return;
      }
      entries[page.id] = doc.entry;
      slice.push(doc.upsert);
      if (slice.length >= perSlice) send();
    },
    pagesRead() {
      // The worker writes the last slice and merges the full-text index
      // while this thread builds the registry's link graph and cache;
      // the store waits for the merge before it closes.
      send();
      if (!opened) return;
      const merge = opened.store.then((store) => store.mergeFullText());
      merge.catch(() => undefined);
      merging = merge;
    },
    pace: {
      due: () => turnWanted || performance.now() - begun >= SLICE_MS,
      async between() {
        turnWanted = false;
        // A signal, a closed stdin or a cancel is seen here.
        await nextImmediate();
        signal?.throwIfAborted();
        while (loading.length > ahead) await loading.shift();
        valve.check();
        begun = performance.now();
      },
    },
  };

  const matches = (registry: Registry, shards: number): boolean => {
    if (shards !== shardsFor(registry.pages.size) || fed.length !== registry.pages.size)
      return false;
    let i = 0;
    for (const [id, meta] of registry.pages) {
      const page = fed[i];
      if (page?.id !== id || page.role !== meta.role || page.hash !== registry.hashes.get(id))
        return false;
      i += 1;
    }
    return true;
  };

  return {
    feed,
    async finish(registry) {
      send();
      await Promise.all(loading);
      loading.length = 0;
      // An empty vault feeds nothing: its generation is opened here, empty.
      const target = opened ?? (registry.pages.size === 0 ? openFor(shardsFor(0)) : undefined);
      if (!target || !matches(registry, target.shards)) return undefined;
      const manifest = emptyManifest(target.shards);
      manifest.entries = entries;
      const merged = merging !== undefined;
      if (merging) await merging;
      return { store: await target.store, manifest, diagnostics, merged };
    },
    async abandon() {
      await Promise.allSettled(loading);
      loading.length = 0;
      slice = [];
      if (opened) await opened.store.then((store) => store.close()).catch(() => undefined);
    },
  };
}
