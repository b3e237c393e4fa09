/**
 * A lexical-first store: an existing index read with the SQLite driver
 * alone, QMD opened only when something besides a lexical search is asked
 * of it (a write, an embed, a model path, status). A short-lived process
 * that only recalls lexically — a hook, once per prompt — then never loads
 * QMD's modules, most of its start-up. From the first other call on, every
 * call (lexical ones too, so they see what a write changed) goes to QMD's
 * store. Nothing here names a QMD type; qmd-store.ts hands in the opener.
 */
import type { QmdStore } from "./qmd-store-types.ts";
import type { ReaderLease } from "./reader-pool.ts";

/**
 * The store over `reader` (a read-only store, lent: released on close) that
 * opens the full store with `openFull` when first needed.
 */
export function lexicalFirstStore(lease: ReaderLease, openFull: () => Promise<QmdStore>): QmdStore {
  const reader = lease.store;
  let full: Promise<QmdStore> | undefined;
  let closed = false;
  const upgraded = (): Promise<QmdStore> => {
    if (closed) return Promise.reject(new Error("QMD store is closed"));
    full ??= openFull();
    return full;
  };
  return {
    update: (opts) => upgraded().then((s) => s.update(opts)),
    applyDocuments: (upserts, removals, opts) =>
      upgraded().then((s) => s.applyDocuments(upserts, removals, opts)),
    mergeFullText: () => upgraded().then((s) => s.mergeFullText()),
    embed: (opts) => upgraded().then((s) => s.embed(opts)),
    searchLex: (query, opts) =>
      full ? full.then((s) => s.searchLex(query, opts)) : reader.searchLex(query, opts),
    searchVector: (query, opts) => upgraded().then((s) => s.searchVector(query, opts)),
    searchTyped: (query, opts) => upgraded().then((s) => s.searchTyped(query, opts)),
    searchExpanded: (query, opts) => upgraded().then((s) => s.searchExpanded(query, opts)),
    // QMD's status knows of vectors and embedding; the reader's counts do not.
    status: () => upgraded().then((s) => s.status()),
    heldHashes: (docs, hashes) => upgraded().then((s) => s.heldHashes(docs, hashes)),
    close: async () => {
      if (closed) return;
      closed = true;
      // The reader stays open until here: a search started on it may still run.
      const opened = full;
      await lease.release();
      // A full store that failed to open has nothing to close.
      if (opened)
        await opened.then(
          (s) => s.close(),
          () => undefined,
        );
    },
  };
}
