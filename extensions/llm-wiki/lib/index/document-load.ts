/**
 * A bulk document load on a worker thread, for a rebuild's new generation
 * (private until the pointer swap): batches are sent as they are read and
 * written there in order, each its own transaction, while this thread goes
 * on reading and mirroring the next pages. At 100k pages SQLite's share
 * (tokenising every page for FTS5) was ~60% of the rebuild's main thread.
 *
 * The worker's connection is the only writer while the load runs; the
 * caller's own connection only reads it or writes after `close` (embedding,
 * the status record, the durability switch).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { LoadReply, LoadRequest, LoadWorkerData } from "./document-load-protocol.ts";
import type { DocumentApplyResult, DocumentRemoval, DocumentUpsert } from "./qmd-documents.ts";

/** Writes batches on the worker; `close` ends it once every batch is written. */
export interface DocumentLoad {
  /** Resolves once the batch is committed, or rejects with why it was not (rolled back). */
  apply(
    upserts: readonly DocumentUpsert[],
    removals: readonly DocumentRemoval[],
  ): Promise<DocumentApplyResult>;
  /** Merges the full-text index once the batches sent are written (`mergeFullText`). */
  merge(): Promise<void>;
  /**
   * Waits for the batches sent, closes the worker's connection and ends it.
   * Rejects with the load's first failure (a batch's or the worker's own).
   */
  close(): Promise<void>;
}

interface Waiter {
  /** The batch's result; undefined for a merge. */
  resolve(result: DocumentApplyResult | undefined): void;
  reject(error: Error): void;
}

/**
 * The worker's module: beside this one, as TypeScript in the sources and as
 * `chunks/document-load-worker.js` in the bundle (the build places this
 * module's chunk beside it and checks that it did). Node strips types
 * nowhere under `node_modules`, so an installed package's sources (Pi loads
 * them through its own TypeScript loader) start the bundle's worker.
 */
export function documentLoadWorkerUrl(from: string = import.meta.url): URL {
  if (!from.endsWith(".ts")) return new URL("./document-load-worker.js", from);
  if (fileURLToPath(from).split(/[\\/]/).includes("node_modules"))
    return new URL("../../../../dist/chunks/document-load-worker.js", from);
  return new URL("./document-load-worker.ts", from);
}

/**
 * The worker's module when there is one to run; undefined for an installed
 * package without its build (sources only), which then loads in-thread.
 */
export function documentLoadWorker(from: string = import.meta.url): URL | undefined {
  const url = documentLoadWorkerUrl(from);
  return existsSync(url) ? url : undefined;
}

/** Starts the worker `module` (`documentLoadWorker()`) on the database `data.dbPath`, its schema already made. */
export function startDocumentLoad(module: URL, data: LoadWorkerData): DocumentLoad {
  const worker = new Worker(module, { workerData: data });
  const waiting = new Map<number, Waiter>();
  let seq = 0;
  let failure: Error | undefined;
  let ended = false;
  let endWaiter: { resolve(): void } | undefined;
  const ending = new Promise<void>((resolve) => {
    endWaiter = { resolve };
  });

  const fail = (error: Error): void => {
    failure ??= error;
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
  };
  const end = (): void => {
    ended = true;
    endWaiter?.resolve();
  };

  worker.on("message", (reply: LoadReply) => {
    switch (reply.kind) {
      case "applied":
      case "merged": {
        const waiter = waiting.get(reply.seq);
        waiting.delete(reply.seq);
        waiter?.resolve(reply.kind === "applied" ? reply.result : undefined);
        return;
      }
      case "failed": {
        const error = Object.assign(
          new Error(reply.message),
          reply.code ? { code: reply.code } : {},
        );
        if (reply.seq === undefined) {
          fail(error);
          return;
        }
        failure ??= error;
        const waiter = waiting.get(reply.seq);
        waiting.delete(reply.seq);
        waiter?.reject(error);
        return;
      }
      case "closed":
        end();
    }
  });
  worker.on("error", (error) => fail(error));
  worker.on("exit", (code) => {
    if (waiting.size > 0 || !ended)
      fail(failure ?? new Error(`the index's document load stopped (exit ${code})`));
    end();
  });

  const send = (request: LoadRequest): void => worker.postMessage(request);
  /** Sends a numbered request and waits for its reply (requests run in the order sent). */
  const ask = (request: (seq: number) => LoadRequest): Promise<DocumentApplyResult | undefined> => {
    if (failure) return Promise.reject(failure);
    if (ended) return Promise.reject(new Error("the index's document load is closed"));
    seq += 1;
    const at = seq;
    return new Promise((resolve, reject) => {
      waiting.set(at, { resolve, reject });
      send(request(at));
    });
  };

  return {
    async apply(upserts, removals) {
      const result = await ask((at) => ({ kind: "apply", seq: at, upserts, removals }));
      if (!result) throw new Error("the index's document load answered a batch without its counts");
      return result;
    },
    async merge() {
      await ask((at) => ({ kind: "merge", seq: at }));
    },
    async close() {
      if (!ended) send({ kind: "close" });
      await ending;
      if (failure) throw failure;
    },
  };
}
