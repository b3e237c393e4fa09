/**
 * The worker thread of a bulk document load (document-load.ts): it opens the
 * new generation's database on a connection of its own and writes each batch
 * it is sent in its own transaction, in the order sent, with the same
 * writer as in-thread loads (qmd-documents.ts). SQLite's tokenising of every
 * page for FTS5 is most of a full rebuild's time; here it runs beside the
 * main thread's reading and mirroring instead of after it.
 *
 * Plain better-sqlite3, loaded from the path the main thread resolved as QMD
 * does (this file never names QMD); the database is private until the
 * pointer swap, so it is written without syncing and with its rollback
 * journal in memory, as bulk-load.ts does for the main connection.
 */
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import type { LoadReply, LoadRequest, LoadWorkerData } from "./document-load-protocol.ts";
import { createDocumentWriter, mergeFullText, type QmdSqlDatabase } from "./qmd-documents.ts";

interface Connection extends QmdSqlDatabase {
  close(): void;
}
type ConnectionConstructor = new (path: string) => Connection;

const port = parentPort;
if (!port) throw new Error("document-load-worker.ts runs only as a worker thread");
const data = workerData as LoadWorkerData;
const Database = createRequire(import.meta.url)(data.sqlitePath) as ConnectionConstructor;
let db: Connection | undefined;
let writer: ReturnType<typeof createDocumentWriter> | undefined;
try {
  db = new Database(data.dbPath);
  db.exec("PRAGMA synchronous = OFF");
  db.exec("PRAGMA journal_mode = MEMORY");
  writer = createDocumentWriter(db);
} catch (error) {
  port.postMessage(failure(undefined, error));
  db?.close();
  port.close();
}

port.on("message", (request: LoadRequest) => {
  if (!db || !writer) return;
  if (request.kind === "close") {
    db.close();
    db = undefined;
    port.postMessage({ kind: "closed" } satisfies LoadReply);
    port.close();
    return;
  }
  try {
    if (request.kind === "merge") {
      mergeFullText(db);
      port.postMessage({ kind: "merged", seq: request.seq } satisfies LoadReply);
      return;
    }
    const result = writer.apply(request.upserts, request.removals);
    port.postMessage({ kind: "applied", seq: request.seq, result } satisfies LoadReply);
  } catch (error) {
    port.postMessage(failure(request.seq, error));
  }
});

/** An error as plain data: a structured clone keeps an error's message, not its SQLite `code`. */
function failure(seq: number | undefined, error: unknown): LoadReply {
  const e = error instanceof Error ? error : new Error(String(error));
  const code = (e as NodeJS.ErrnoException).code;
  return {
    kind: "failed",
    ...(seq === undefined ? {} : { seq }),
    message: e.message,
    ...(typeof code === "string" ? { code } : {}),
  };
}
