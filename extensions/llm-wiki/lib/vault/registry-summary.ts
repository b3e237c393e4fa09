/**
 * `meta/cache/registry/summary.json`: what the registry cache on disk adds
 * up to, so a fresh process can answer from it without reading it all. It
 * holds the stamps of the shard and name files it describes, the number of
 * accepted pages, a mark of what the index mirror must hold (id, hash and
 * role of every page) and the stamps of the `wiki/` folders as the last
 * walk of every page found them, and the stamp of the saved relation
 * graph (relation-graph-file.ts).
 * Written after the files it describes; a summary whose stamps no longer
 * match the files is simply not used. Derived: deleting it costs nothing
 * but one cold start the slow way.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./fs-safe.ts";
import type { VaultPaths } from "./paths.ts";
import { fileStamp, REGISTRY_SHARDS } from "./registry-cache.ts";
import { isNameLayout, type NameStamps } from "./registry-names.ts";
import { SetMark } from "./set-mark.ts";
import type { FolderStamp } from "./wiki-walk.ts";

const SUMMARY_VERSION = 1;

export interface RegistrySummary {
  /** Stamps (`fileStamp`) of the registry's shard files, in shard order. */
  shards: string[];
  /** Stamps of the name table's files (registry-names.ts). */
  names: NameStamps;
  /** Accepted pages. */
  pages: number;
  /** `indexMark` of the accepted pages: what an up-to-date index mirror holds. */
  index: string;
  /**
   * The `wiki/` folders' stamps from the last walk of every page whose
   * findings the cache holds (wiki-walk.ts); null when pages were looked at
   * one by one since (a host's own writes), which leaves folders changed.
   */
  folders: FolderStamp[] | null;
  /**
   * Stamp of `relations.json` as this refresh left it ("" when not written;
   * absent in summaries of versions before relations: read as "").
   */
  relations: string;
}

/** The summary as read or written, with the stamp of its file then. */
export interface SummaryState {
  summary: RegistrySummary;
  stamp: string;
}

function summaryPath(paths: VaultPaths): string {
  return join(paths.registryCache, "summary.json");
}

/** The member of an index mark for one page. */
export function indexMember(id: string, hash: string, role: string): string {
  return `${id}\u0000${hash}\u0000${role}`;
}

/**
 * The mark of what an index mirror holds (or must hold): id, content hash
 * and role of each page. The registry's pages and a generation's manifest
 * have equal marks exactly when the mirror is up to date.
 */
export function indexMark(entries: Iterable<readonly [string, string, string]>): string {
  const acc = new SetMark();
  for (const [id, hash, role] of entries) acc.add(indexMember(id, hash, role));
  return acc.mark();
}

function isStamps(value: unknown, length: number): value is string[] {
  return (
    Array.isArray(value) && value.length === length && value.every((v) => typeof v === "string")
  );
}

function isFolders(value: unknown): value is FolderStamp[] | null {
  return (
    value === null ||
    (Array.isArray(value) &&
      value.every(
        (f) =>
          Array.isArray(f) &&
          f.length === 2 &&
          typeof f[0] === "string" &&
          typeof f[1] === "string",
      ))
  );
}

/** The summary on disk now, or undefined when absent, corrupt or of another layout. */
export function readSummary(paths: VaultPaths): SummaryState | undefined {
  const path = summaryPath(paths);
  const stamp = fileStamp(path);
  if (stamp === "") return undefined;
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as Partial<RegistrySummary> & {
      version?: unknown;
    };
    if (
      data?.version !== SUMMARY_VERSION ||
      !isStamps(data.shards, REGISTRY_SHARDS) ||
      !isStamps(data.names, Array.isArray(data.names) ? data.names.length : -1) ||
      !isNameLayout(data.names) ||
      typeof data.pages !== "number" ||
      typeof data.index !== "string" ||
      !isFolders(data.folders)
    ) {
      return undefined;
    }
    const { shards, names, pages, index, folders } = data;
    const relations = typeof data.relations === "string" ? data.relations : "";
    return { summary: { shards, names, pages, index, folders, relations }, stamp };
  } catch {
    return undefined;
  }
}

/** Writes the summary (atomically) and returns it with its new stamp; throws when the write fails. */
export function writeSummary(paths: VaultPaths, summary: RegistrySummary): SummaryState {
  const path = summaryPath(paths);
  writeFileAtomic(path, `${JSON.stringify({ version: SUMMARY_VERSION, ...summary })}\n`);
  return { summary, stamp: fileStamp(path) };
}

/** The stamp of the summary file now ("" when absent). */
export function summaryStamp(paths: VaultPaths): string {
  return fileStamp(summaryPath(paths));
}

/** True when both summaries say the same. */
export function sameSummary(a: RegistrySummary, b: RegistrySummary): boolean {
  const same = (x: string[], y: string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  const flat = (f: FolderStamp[] | null) => (f === null ? ["null"] : f.flat());
  return (
    a.pages === b.pages &&
    a.index === b.index &&
    a.relations === b.relations &&
    same(flat(a.folders), flat(b.folders)) &&
    same(a.shards, b.shards) &&
    same(a.names, b.names)
  );
}
