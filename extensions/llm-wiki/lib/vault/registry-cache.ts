/**
 * The registry's on-disk cache: what is known about each file under `wiki/`
 * (size, mtime, hash, parsed metadata, raw links), spread over a fixed number
 * of shard files under `meta/cache/registry/` by a hash of the page's path,
 * so one changed page rewrites one small file instead of megabytes of JSON
 * at 10k pages. A shard this process wrote and that is still on disk as
 * written is not read again; a process that needs a few pages' records (a
 * cold recall, see registry-saved.ts) finds them in the shard text without
 * parsing the rest. Derived: deleting the folder costs one full re-parse,
 * nothing else.
 */
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import { diagnostic, errorMessage } from "../diagnostics.ts";
import { runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { writeFileAtomic } from "./fs-safe.ts";
import type { RawLink } from "./links.ts";
import type { PageMeta } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
import { seekShardRecord } from "./registry-shard-seek.ts";
import { fnv1a } from "./stable-hash.ts";

/** 4: records say whether the page holds a secret, and its fields are kept redacted then (older caches are re-parsed). 6: records carry the page's own `date`. 7: and its OKF provenance. 8: and the targets of its text-form conflicts. 9: `date` falls back to the older system's `ingested`. 10: pages git left unmerged (`mergeConflicts`) are read, not rejected. 11: a page with text and no `type` is read by its folder, titled by its first heading. test/derived-versions.test.ts fails when what a record holds changes and this does not. */
export const CACHE_VERSION = 11;
/** Shards of the cache; a power of two so the shard is a mask of the path's hash. */
export const REGISTRY_SHARDS = 32;

/** What the registry remembers about one file under `wiki/`. */
export interface RegistryRecord {
  size: number;
  mtimeMs: number;
  hash: string;
  meta?: PageMeta;
  links?: RawLink[];
  diagnostics?: Diagnostic[];
  /** The page's text holds a secret (its `meta` is then kept redacted). */
  secrets?: true;
}

/** Records of one shard by vault-relative path (`wiki/concepts/rag.md`). */
export type ShardRecords = Record<string, RegistryRecord>;

/** The cache as this process last read or wrote it: each shard and its stat then. */
export interface CacheSnapshot {
  shards: ShardRecords[];
  /** `size:mtimeMs` of each shard file; "" when absent. */
  stamps: string[];
}

/** The shard a vault-relative path belongs to. */
export function shardOf(rel: string): number {
  return fnv1a(rel) & (REGISTRY_SHARDS - 1);
}

function shardPath(paths: VaultPaths, shard: number): string {
  return join(paths.registryCache, `${String(shard).padStart(2, "0")}.json`);
}

/**
 * `size:mtimeMs` of a file, "" when absent (or unreadable): how derived
 * files tell whether a file is still as they last saw it. No exception for
 * an absent file: they are common (a small vault's shards, a new vault).
 */
export function fileStamp(path: string): string {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? `${st.size}:${st.mtimeMs}` : "";
  } catch {
    return "";
  }
}

/** The stamp (`fileStamp`) of one shard file now. */
export function shardStamp(paths: VaultPaths, shard: number): string {
  return fileStamp(shardPath(paths, shard));
}

/**
 * The record of `rel` in its shard file as on disk now, found by bisecting
 * the file's sorted keys (registry-shard-seek.ts): a few small reads, not
 * the whole shard. Undefined when the shard is not of this version or
 * holds no such record.
 */
export function recordInShardFile(paths: VaultPaths, rel: string): RegistryRecord | undefined {
  const rec = seekShardRecord(
    shardPath(paths, shardOf(rel)),
    `{"version":${CACHE_VERSION},"files":{`,
    rel,
  ) as RegistryRecord | undefined;
  return typeof rec?.hash === "string" ? rec : undefined;
}

/** The records of one shard as on disk now (empty when absent, corrupt or of another version). */
export function readShardAt(paths: VaultPaths, shard: number): ShardRecords {
  return readShard(shardPath(paths, shard));
}

function readShard(path: string): ShardRecords {
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as { version?: unknown; files?: unknown };
    const files = data?.files;
    if (
      data?.version === CACHE_VERSION &&
      typeof files === "object" &&
      files !== null &&
      !Array.isArray(files)
    ) {
      return files as ShardRecords;
    }
  } catch {
    // Missing or corrupt: it is derived, so its pages are parsed again.
  }
  return {};
}

/**
 * The cache as it is on disk now. Shards whose file is unchanged since `last`
 * are taken from it as they are (same objects); `own` tells whether every
 * shard was, i.e. nobody else wrote the cache since this process did.
 */
export function loadCache(
  paths: VaultPaths,
  last?: CacheSnapshot,
): { snapshot: CacheSnapshot; own: boolean } {
  return runWhole((clock) => loadCacheSteps(paths, last, clock));
}

/** `loadCache` as sliced work: may yield between two shards (a parse of 2.5 MB each at 100k pages). */
export function* loadCacheSteps(
  paths: VaultPaths,
  last: CacheSnapshot | undefined,
  clock: SliceClock,
): Sliced<{ snapshot: CacheSnapshot; own: boolean }> {
  const shards: ShardRecords[] = [];
  const stamps: string[] = [];
  let own = last !== undefined;
  for (let i = 0; i < REGISTRY_SHARDS; i += 1) {
    if (clock.due()) yield;
    const path = shardPath(paths, i);
    const stamp = fileStamp(path);
    const kept = last?.stamps[i] === stamp ? last.shards[i] : undefined;
    if (kept) {
      shards.push(kept);
    } else {
      own = false;
      shards.push(stamp === "" ? {} : readShard(path));
    }
    stamps.push(stamp);
  }
  return { snapshot: { shards, stamps }, own };
}

/**
 * Writes the `dirty` shards (keys sorted, so a rebuilt cache is byte for
 * byte the same) and returns the snapshot of what is on disk now. A failed
 * write is a warning: the registry in memory still answers.
 */
export function saveCache(
  paths: VaultPaths,
  shards: ShardRecords[],
  dirty: Iterable<number>,
  previous: CacheSnapshot,
  diagnostics: Diagnostic[],
): CacheSnapshot {
  const stamps = [...previous.stamps];
  try {
    mkdirSync(paths.registryCache, { recursive: true });
  } catch {
    // Reported by the write below.
  }
  for (const i of dirty) {
    const path = shardPath(paths, i);
    const files = shards[i] ?? {};
    const sorted = Object.fromEntries(
      Object.keys(files)
        .sort()
        .map((rel) => [rel, files[rel]]),
    );
    try {
      writeFileAtomic(path, `${JSON.stringify({ version: CACHE_VERSION, files: sorted })}\n`);
      stamps[i] = fileStamp(path);
    } catch (error) {
      stamps[i] = "";
      diagnostics.push(
        diagnostic(
          "registry_write_failed",
          "warning",
          `could not write ${path}: ${errorMessage(error)}`,
        ),
      );
    }
  }
  return { shards, stamps };
}

/**
 * Removes `meta/registry.json` when it is the single-file cache of earlier
 * llm-wiki versions (`{version: 1, files}`). A file in any other shape is
 * not ours (`@zosmaai/pi-llm-wiki` keeps its own registry there) and stays.
 */
export function removeLegacyCache(paths: VaultPaths): void {
  try {
    const head = readFileSync(paths.legacyRegistry, "utf8").slice(0, 32);
    if (head.startsWith('{"version":1,"files":')) rmSync(paths.legacyRegistry, { force: true });
  } catch {
    // Absent: nothing to do.
  }
}
