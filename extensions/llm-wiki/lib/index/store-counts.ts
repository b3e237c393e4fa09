/**
 * A generation's store counts (`store.json`) moved by a lexical change
 * instead of recounted: QMD's status scans every document (half a second
 * at 100k pages), while a change touches a few rows. Only for a store never
 * embedded, where every content hash an active document holds needs
 * embedding: the count then moves by the hashes the change brings and drops.
 */
import type { GenerationStoreStatus } from "./index-state.ts";
import { type DocumentRemoval, type DocumentUpsert, qmdContentHash } from "./qmd-documents.ts";
import type { QmdStore } from "./qmd-store-types.ts";

/**
 * `before` when a change can move it by difference: a store never embedded
 * that holds as many documents as the manifest (`documents`) says.
 * Undefined: ask QMD's status after the change.
 */
export function countable(
  before: GenerationStoreStatus | undefined,
  documents: number | undefined,
): GenerationStoreStatus | undefined {
  return before !== undefined &&
    !before.hasVectors &&
    before.vectorModel === undefined &&
    before.documents === documents
    ? before
    : undefined;
}

/** The hashes a change touches (those its documents hold, those its upserts bring) and which are held. */
async function heldBy(
  store: QmdStore,
  upserts: readonly DocumentUpsert[],
  removals: readonly DocumentRemoval[],
  known?: ReadonlySet<string>,
): Promise<{ hashes: ReadonlySet<string>; held: ReadonlySet<string> }> {
  if (known) return { hashes: known, held: (await store.heldHashes([], known)).held };
  const docs = [...upserts, ...removals].map(({ collection, path }) => ({ collection, path }));
  const hashes = new Set(upserts.map((u) => qmdContentHash(u.text)));
  const found = await store.heldHashes(docs, []);
  for (const hash of found.docs) if (hash !== undefined) hashes.add(hash);
  return { hashes, held: (await store.heldHashes([], hashes)).held };
}

/**
 * Applies a change to the store. With `counting`, returns how many more
 * content hashes need embedding after it than before (any other hash is
 * held, or not, as before: no document of it changed).
 */
export async function applyCounting(
  store: QmdStore,
  upserts: readonly DocumentUpsert[],
  removals: readonly DocumentRemoval[],
  counting: boolean,
): Promise<number | undefined> {
  const before = counting ? await heldBy(store, upserts, removals) : undefined;
  await store.applyDocuments(upserts, removals);
  if (!before) return undefined;
  const after = await heldBy(store, upserts, removals, before.hashes);
  return after.held.size - before.held.size;
}
