/**
 * The few rows a change's store counts move by: which content hash each
 * changed document holds, and which hashes some active document holds.
 * Read by index (`idx_documents_path`, `idx_documents_hash`), so the cost is
 * the change's, not the store's: counts kept by difference instead of
 * QMD's status scanning every document.
 */
import type { HeldHashes, QmdDocumentRef } from "./qmd-store-types.ts";

/** What `heldHashes` needs of a SQLite connection. */
interface Queryable {
  prepare(sql: string): { get<T>(...params: Array<string | number>): T | undefined };
}

/** `QmdStore.heldHashes` over `db` (prepared once per store). */
export function createHeldHashes(
  db: Queryable,
): (docs: readonly QmdDocumentRef[], hashes: Iterable<string>) => HeldHashes {
  const hashAt = db.prepare(
    "SELECT hash FROM documents WHERE collection = ? AND path = ? AND active = 1",
  );
  const held = db.prepare("SELECT 1 AS held FROM documents WHERE hash = ? AND active = 1 LIMIT 1");
  return (docs, hashes) => {
    const out: HeldHashes = { docs: [], held: new Set() };
    for (const doc of docs)
      out.docs.push(hashAt.get<{ hash: string }>(doc.collection, doc.path)?.hash);
    for (const hash of new Set(hashes)) if (held.get(hash)) out.held.add(hash);
    return out;
  };
}
