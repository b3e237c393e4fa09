/**
 * Keeps `summary.json` and the name table on disk in step with the registry
 * cache after each refresh. When the summary on disk described the cache as
 * this refresh found it, only the refresh's changes are applied (a few
 * hashes, the name buckets of renamed pages); otherwise everything is
 * computed from the records in memory and the name table written whole.
 * Nothing is written when nothing changed. A failed write leaves the old
 * files, which then no longer match the cache, so nobody trusts them.
 */

import { join } from "node:path";
import { type PageNameKeys, pageNameKeys } from "../name-match.ts";
import type { PageMeta } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
import { fileStamp, type RegistryRecord, type ShardRecords } from "./registry-cache.ts";
import {
  type NameChange,
  nameBucketsFor,
  nameStampsNow,
  patchNameTable,
  writeNameTable,
} from "./registry-names.ts";
import {
  indexMember,
  type RegistrySummary,
  readSummary,
  type SummaryState,
  sameSummary,
  summaryStamp,
  writeSummary,
} from "./registry-summary.ts";
import { SetMark } from "./set-mark.ts";
import { type FolderStamp, folderPages, idOf } from "./wiki-walk.ts";

/** One cache record before and after a refresh (undefined: absent then). */
export interface RecordChange {
  before?: RegistryRecord;
  after?: RegistryRecord;
}

export interface SyncInput {
  paths: VaultPaths;
  /** Every shard's records after the refresh. */
  shards: readonly ShardRecords[];
  /** Shard stamps after the refresh's writes. */
  stamps: readonly string[];
  /** Shard stamps as the refresh found them, before its writes. */
  previousStamps: readonly string[];
  /** Every record the refresh changed (parsed, removed, or re-stamped), by path. */
  changes: ReadonlyMap<string, RecordChange>;
  /** The accepted pages after the refresh, in id order. */
  pages: ReadonlyMap<string, PageMeta>;
  /** The folders' stamps when the refresh walked every page; undefined when it looked at some. */
  folders?: FolderStamp[];
  /** The summary this process last read or wrote for the vault. */
  known?: SummaryState;
  /** Stamp of the saved relation graph as this refresh left it. */
  relations: string;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function keysOf(rec: RegistryRecord | undefined): PageNameKeys | undefined {
  return rec?.meta ? pageNameKeys(rec.meta.id, rec.meta) : undefined;
}

function sameKeys(a: PageNameKeys | undefined, b: PageNameKeys | undefined): boolean {
  if (!a || !b) return a === b;
  return sameList(a.exact, b.exact) && sameList(a.words, b.words) && sameList(a.cjk, b.cjk);
}

/** The index mark of every record, computed afresh. */
function markOf(shards: readonly ShardRecords[]): string {
  const index = new SetMark();
  for (const records of shards) {
    for (const rec of Object.values(records)) {
      if (rec.meta) index.add(indexMember(rec.meta.id, rec.hash, rec.meta.role));
    }
  }
  return index.mark();
}

/** `base`'s index mark moved by `changes`. */
function movedMark(base: RegistrySummary, changes: ReadonlyMap<string, RecordChange>): string {
  const index = SetMark.from(base.index);
  for (const { before, after } of changes.values()) {
    if (before?.meta) index.remove(indexMember(before.meta.id, before.hash, before.meta.role));
    if (after?.meta) index.add(indexMember(after.meta.id, after.hash, after.meta.role));
  }
  return index.mark();
}

/**
 * The folders' stamps after a refresh that looked at some pages only (a
 * host's own writes): `known` with each changed page's folder stamped anew
 * when it lists exactly the pages the cache records in it (so nobody else
 * added, removed or renamed one there since the last walk), else null: only
 * the next walk of every page vouches for the folders then.
 */
function restamped(
  paths: VaultPaths,
  known: FolderStamp[] | null,
  shards: readonly ShardRecords[],
  changes: ReadonlyMap<string, RecordChange>,
): FolderStamp[] | null {
  if (known === null) return null;
  const stamps = new Map(known);
  const folderOf = (rel: string) => rel.slice(0, rel.lastIndexOf("/"));
  for (const folder of new Set([...changes.keys()].map(folderOf))) {
    const was = stamps.get(folder);
    if (was === undefined) return null;
    if (fileStamp(join(paths.dir, folder)) === was) continue;
    const listed = folderPages(paths, folder, new Set(stamps.keys()));
    if (!listed) return null;
    const recorded = new Set<string>();
    for (const records of shards) {
      for (const rel of Object.keys(records)) if (folderOf(rel) === folder) recorded.add(rel);
    }
    if (listed.pages.size !== recorded.size) return null;
    for (const rel of listed.pages) if (!recorded.has(rel)) return null;
    stamps.set(folder, listed.stamp);
  }
  return [...stamps];
}

/**
 * Brings the summary (and the name table it describes) up to date with the
 * cache after a refresh; returns it, or undefined when it could not be
 * written (a read-only vault: the registry still answers, the slow way).
 */
export function syncSummary(input: SyncInput): SummaryState | undefined {
  const { paths, changes } = input;
  const base =
    input.known && input.known.stamp === summaryStamp(paths) ? input.known : readSummary(paths);
  // The summary on disk described the cache this refresh started from.
  const trusted = base !== undefined && sameList(base.summary.shards, input.previousStamps);
  const folders =
    input.folders ??
    (trusted ? restamped(paths, base.summary.folders, input.shards, changes) : null);
  const quiet = trusted && changes.size === 0 && sameList(base.summary.shards, input.stamps);
  // This process's own summary and nothing moved: nothing to look at (a fresh
  // process checks the name files, and rewrites them if someone touched them).
  const { relations } = input;
  if (
    quiet &&
    base === input.known &&
    sameSummary(base.summary, { ...base.summary, folders, relations })
  )
    return base;
  // ...and its name table is still on disk as it says (else it is written whole).
  const namesKept =
    trusted && sameList(nameStampsNow(paths, base.summary.names.length - 1), base.summary.names);
  try {
    if (quiet && namesKept) {
      // The common cold start: nothing moved (but a walk may vouch for the folders anew).
      const same = { ...base.summary, folders, relations };
      return sameSummary(base.summary, same) ? base : writeSummary(paths, same);
    }
    const index = trusted ? movedMark(base.summary, changes) : markOf(input.shards);
    let names = namesKept ? base.summary.names : undefined;
    if (namesKept) {
      const renamed: NameChange[] = [];
      for (const [rel, { before, after }] of changes) {
        const was = keysOf(before);
        const now = keysOf(after);
        if (sameKeys(was, now)) continue;
        const change: NameChange = { id: idOf(rel) };
        if (was) change.before = was;
        if (now) change.after = now;
        renamed.push(change);
      }
      if (renamed.length > 0)
        names = patchNameTable(paths, base.summary.names, renamed, input.pages.size);
      // A vault that grew or shrank past a layout's size gets the table laid out anew.
      else if (base.summary.names.length - 1 !== nameBucketsFor(input.pages.size))
        names = undefined;
    }
    names ??= writeNameTable(paths, input.pages);
    const summary: RegistrySummary = {
      shards: [...input.stamps],
      names,
      pages: input.pages.size,
      index,
      folders,
      relations,
    };
    if (base && sameSummary(base.summary, summary)) return base;
    return writeSummary(paths, summary);
  } catch {
    // The cache's own write warnings already tell of a folder that refuses writes.
    return undefined;
  }
}
