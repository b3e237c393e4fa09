/** Messages between a bulk document load (document-load.ts) and its worker thread. */
import type { DocumentApplyResult, DocumentRemoval, DocumentUpsert } from "./qmd-documents.ts";

/** What the worker is started with. */
export interface LoadWorkerData {
  /** better-sqlite3's entry, resolved as QMD resolves it. */
  sqlitePath: string;
  dbPath: string;
}

/** Main thread → worker: a batch to write (one transaction), the full-text merge, or the end. */
export type LoadRequest =
  | {
      kind: "apply";
      seq: number;
      upserts: readonly DocumentUpsert[];
      removals: readonly DocumentRemoval[];
    }
  | { kind: "merge"; seq: number }
  | { kind: "close" };

/** Worker → main thread. A failure without `seq` is the worker's start. */
export type LoadReply =
  | { kind: "applied"; seq: number; result: DocumentApplyResult }
  | { kind: "merged"; seq: number }
  | { kind: "failed"; seq?: number; message: string; code?: string }
  | { kind: "closed" };
