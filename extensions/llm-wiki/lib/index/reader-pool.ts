/**
 * Read-only lexical stores kept open from one service to the next, for a
 * process that makes a fresh service per request (the warm hook process).
 * A store's lexical caches (term counts, phrase impacts, tokenized pages)
 * die with it, so each request asked its index as a first question: a
 * session start's priming query ranked every page holding a common word
 * again (about 45 of its ~70 ms at 10k pages). A kept store checks the
 * index's data version before each search, as a long-lived server's does,
 * so a write from another process is seen; a rebuilt index is another
 * generation, so another file and another store. The owner hands the pool
 * to each service (`WikiServiceOptions.readers`) and closes it when it
 * leaves.
 */
import { existsSync } from "node:fs";
import type { QmdStore } from "./qmd-store-types.ts";

/** Stores kept while idle, at most: a project's and the personal vault's, with room for a rebuild's. */
const MAX_KEPT = 4;

/** A store lent out; `release` gives it back (the pool may then close it). */
export interface ReaderLease {
  store: QmdStore;
  release(): Promise<void>;
}

/** Read-only stores by database file and collections. */
export interface ReaderPool {
  /**
   * The kept store for `dbPath` and these collections, else the one `open`
   * makes (undefined when it cannot), lent until released.
   */
  lease(
    dbPath: string,
    collections: readonly string[],
    open: () => QmdStore | undefined,
  ): ReaderLease | undefined;
  /** Closes every store; a store still lent closes when it is released. */
  close(): Promise<void>;
}

interface Kept {
  dbPath: string;
  store: QmdStore;
  users: number;
  usedAt: number;
}

export function createReaderPool(): ReaderPool {
  const kept = new Map<string, Kept>();
  let closed = false;
  let clock = 0;
  const drop = async (key: string, entry: Kept) => {
    kept.delete(key);
    await entry.store.close().catch(() => undefined);
  };
  /** Closes idle stores of files gone (a retired generation) and the least used past MAX_KEPT. */
  const prune = () => {
    const idle = [...kept]
      .filter(([, e]) => e.users === 0)
      .sort((a, b) => a[1].usedAt - b[1].usedAt);
    let extra = kept.size - MAX_KEPT;
    for (const [key, entry] of idle) {
      if (!existsSync(entry.dbPath) || extra > 0) {
        extra -= 1;
        void drop(key, entry);
      }
    }
  };
  return {
    lease(dbPath, collections, open) {
      if (closed) return undefined;
      prune();
      const key = `${dbPath}\0${JSON.stringify(collections)}`;
      let entry = kept.get(key);
      if (entry === undefined) {
        const store = open();
        if (store === undefined) return undefined;
        entry = { dbPath, store, users: 0, usedAt: 0 };
        kept.set(key, entry);
      }
      const held = entry;
      held.users += 1;
      held.usedAt = ++clock;
      let released = false;
      return {
        store: held.store,
        async release() {
          if (released) return;
          released = true;
          held.users -= 1;
          if (closed && held.users === 0) await drop(key, held);
          else prune();
        },
      };
    },
    async close() {
      closed = true;
      await Promise.all([...kept].filter(([, e]) => e.users === 0).map(([k, e]) => drop(k, e)));
    },
  };
}
