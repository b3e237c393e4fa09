/**
 * The name table (name-match.ts) kept on disk under
 * `meta/cache/registry/names/`: its keys spread over a few bucket files by
 * a hash of the key (more for a bigger vault, up to MAX_NAME_BUCKETS), plus
 * one file of CJK names. A recall in a fresh process reads the few buckets
 * its query's keys fall in instead of building the table from every page,
 * and one renamed page rewrites the buckets of its old and new names, not
 * the table. Derived like the rest of the cache: a file that is missing,
 * corrupt or not as the registry summary last saw it is never trusted; the
 * table is then built from the pages (and written again by the next refresh).
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type NameLookup, type NameTable, type PageNameKeys, pageNameKeys } from "../name-match.ts";
import { writeFileAtomic } from "./fs-safe.ts";
import { memberValue } from "./json-slice.ts";
import type { PageMeta } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
import { fileStamp } from "./registry-cache.ts";
import { fnv1a } from "./stable-hash.ts";

/**
 * Most buckets of exact and word keys (a 10k-page vault's ~30k keys: ~500 a
 * bucket). Past 10k pages a renamed page still rewrites buckets of this
 * size, not ones growing with the vault (256 keep them ~75 KB at 100k).
 */
export const MAX_NAME_BUCKETS = 256;
/** Pages per bucket a table is laid out for: a small vault keeps a few files, not 64. */
const PAGES_PER_BUCKET = 160;
/**
 * 4: a title's trailing qualifier in brackets is a name too ("Redis
 * (ElastiCache)" is named Redis). 5: a number's leading zeros go ("ADR-009"
 * is named "adr 9"). test/derived-versions.test.ts fails when
 * `pageNameKeys` changes and this does not.
 */
export const NAMES_VERSION = 5;

/** One stamp (`fileStamp`) per bucket, then the CJK file's: its length gives the layout. */
export type NameStamps = string[];

/** Ids by key, in page id order. */
type KeyIds = Map<string, string[]>;

/** A bucket as maps, for editing. */
interface Bucket {
  exact: KeyIds;
  words: KeyIds;
}

/** A bucket as parsed: plain objects. */
interface ParsedBucket {
  exact: Record<string, unknown>;
  words: Record<string, unknown>;
}

/**
 * A bucket as read for lookups: its bytes and where its two objects' members
 * lie, searched one key at a time (json-slice.ts), so a recall that needs
 * three keys of a bucket does not parse hundreds.
 */
interface BucketBytes {
  bytes: Buffer;
  exact: [from: number, to: number];
  words: [from: number, to: number];
}

/** How a bucket file begins; its word keys follow `},"words":{`. */
const BUCKET_HEAD = `{"version":${NAMES_VERSION},"exact":{`;
const WORDS_MARK = Buffer.from(`},"words":{`);

type CjkNames = Array<{ name: string; id: string }>;

/** Buckets for a table of `pages` pages: a power of two from 1 to MAX_NAME_BUCKETS. */
export function nameBucketsFor(pages: number): number {
  let buckets = 1;
  while (buckets < MAX_NAME_BUCKETS && buckets * PAGES_PER_BUCKET < pages) buckets *= 2;
  return buckets;
}

/** True when `stamps` can describe a table: a power-of-two number of buckets, then the CJK file. */
export function isNameLayout(stamps: readonly string[]): boolean {
  const buckets = stamps.length - 1;
  return buckets >= 1 && buckets <= MAX_NAME_BUCKETS && (buckets & (buckets - 1)) === 0;
}

function namesDir(paths: VaultPaths): string {
  return join(paths.registryCache, "names");
}

function bucketPath(paths: VaultPaths, bucket: number): string {
  return join(namesDir(paths), `${String(bucket).padStart(2, "0")}.json`);
}

function cjkPath(paths: VaultPaths): string {
  return join(namesDir(paths), "cjk.json");
}

function bucketOf(key: string, buckets: number): number {
  return fnv1a(key) & (buckets - 1);
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The stamps of a table's files (`buckets` buckets) as they are now. */
export function nameStampsNow(paths: VaultPaths, buckets: number): NameStamps {
  const stamps: NameStamps = [];
  for (let b = 0; b < buckets; b += 1) stamps.push(fileStamp(bucketPath(paths, b)));
  stamps.push(fileStamp(cjkPath(paths)));
  return stamps;
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The ids under `key`, own keys only ("constructor" is a name like any other). */
function own(record: Record<string, unknown>, key: string): string[] | undefined {
  if (!Object.hasOwn(record, key)) return undefined;
  const ids = record[key];
  return isStringList(ids) ? ids : undefined;
}

function keyIdsOf(record: Record<string, unknown>): KeyIds | undefined {
  const out: KeyIds = new Map();
  for (const key of Object.keys(record)) {
    const ids = own(record, key);
    if (!ids) return undefined;
    out.set(key, ids);
  }
  return out;
}

/**
 * Reads a file that must still have `stamp`: stamped before and after the
 * read, so a file replaced meanwhile is not taken for the one described.
 */
function readStamped(path: string, stamp: string): Buffer | undefined {
  if (stamp === "" || fileStamp(path) !== stamp) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  return fileStamp(path) === stamp ? bytes : undefined;
}

function bucketBytes(paths: VaultPaths, bucket: number, stamp: string): BucketBytes | undefined {
  const bytes = readStamped(bucketPath(paths, bucket), stamp);
  if (!bytes || bytes.toString("utf8", 0, BUCKET_HEAD.length) !== BUCKET_HEAD) return undefined;
  const mark = bytes.indexOf(WORDS_MARK, BUCKET_HEAD.length - 1);
  if (mark === -1) return undefined;
  return {
    bytes,
    exact: [BUCKET_HEAD.length, mark],
    words: [mark + WORDS_MARK.length, bytes.length],
  };
}

function parseBucket(paths: VaultPaths, bucket: number, stamp: string): ParsedBucket | undefined {
  const bytes = readStamped(bucketPath(paths, bucket), stamp);
  if (bytes === undefined) return undefined;
  try {
    const data = JSON.parse(bytes.toString("utf8")) as {
      version?: unknown;
      exact?: unknown;
      words?: unknown;
    };
    if (data?.version !== NAMES_VERSION || !isRecord(data.exact) || !isRecord(data.words))
      return undefined;
    return { exact: data.exact, words: data.words };
  } catch {
    return undefined;
  }
}

function readBucket(paths: VaultPaths, bucket: number, stamp: string): Bucket | undefined {
  const parsed = parseBucket(paths, bucket, stamp);
  if (!parsed) return undefined;
  const exact = keyIdsOf(parsed.exact);
  const words = keyIdsOf(parsed.words);
  return exact && words ? { exact, words } : undefined;
}

function readCjk(paths: VaultPaths, stamp: string): CjkNames | undefined {
  const bytes = readStamped(cjkPath(paths), stamp);
  if (bytes === undefined) return undefined;
  try {
    const data = JSON.parse(bytes.toString("utf8")) as { version?: unknown; cjk?: unknown };
    if (data?.version !== NAMES_VERSION || !Array.isArray(data.cjk)) return undefined;
    const out: CjkNames = [];
    for (const row of data.cjk) {
      if (!isStringList(row) || row.length !== 2) return undefined;
      out.push({ name: row[0] as string, id: row[1] as string });
    }
    return out;
  } catch {
    return undefined;
  }
}

/** True for a key an object orders first, by number: a canonical array index. */
function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4_294_967_295;
}

/**
 * A bucket's map as the JSON of an object with its keys sorted, the bytes
 * `JSON.stringify(Object.fromEntries(...))` gave (array-index keys first, by
 * number, as an object orders them), written out directly: building the
 * object of ~1,500 keys per bucket was most of the table's cost at 100k pages.
 */
function rowsJson(map: KeyIds): string {
  const keys = [...map.keys()].sort(byId);
  const indexKeys = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  const parts: string[] = [];
  const add = (key: string) =>
    parts.push(`${JSON.stringify(key)}:${JSON.stringify(map.get(key) ?? [])}`);
  for (const key of indexKeys) add(key);
  for (const key of keys) if (!isArrayIndex(key)) add(key);
  return `{${parts.join(",")}}`;
}

/** Writes a bucket and returns its stamp (keys sorted: a rebuilt table is byte for byte the same). */
function writeBucket(paths: VaultPaths, bucket: number, content: Bucket): string {
  const path = bucketPath(paths, bucket);
  writeFileAtomic(
    path,
    `{"version":${JSON.stringify(NAMES_VERSION)},"exact":${rowsJson(content.exact)},"words":${rowsJson(content.words)}}\n`,
  );
  return fileStamp(path);
}

function writeCjk(paths: VaultPaths, cjk: CjkNames): string {
  const path = cjkPath(paths);
  const rows = cjk.map(({ name, id }) => [name, id]);
  writeFileAtomic(path, `${JSON.stringify({ version: NAMES_VERSION, cjk: rows })}\n`);
  return fileStamp(path);
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/**
 * Adds `id` to `key`'s ids. The table is built one page at a time, each
 * page's keys together, so an id already there is the last one: a word
 * shared by thousands of titles was scanned whole for every page that had it.
 */
function addKey(map: KeyIds, key: string, id: string): void {
  if (key === "") return;
  const ids = map.get(key);
  if (!ids) map.set(key, [id]);
  else if (ids[ids.length - 1] !== id) ids.push(id);
}

/**
 * Writes the whole table of `pages` (in id order, as the registry keeps
 * them), laid out for their number, and returns the files' stamps; throws
 * when a write fails. Buckets of a former, bigger layout are removed.
 */
export function writeNameTable(
  paths: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
): NameStamps {
  const count = nameBucketsFor(pages.size);
  const buckets: Bucket[] = Array.from({ length: count }, () => ({
    exact: new Map(),
    words: new Map(),
  }));
  const into = (key: string) => buckets[bucketOf(key, count)] as Bucket;
  const cjk: CjkNames = [];
  for (const [id, page] of pages) {
    const keys = pageNameKeys(id, page);
    for (const key of keys.exact) addKey(into(key).exact, key, id);
    for (const key of keys.words) addKey(into(key).words, key, id);
    for (const name of keys.cjk) cjk.push({ name, id });
  }
  const stamps = buckets.map((bucket, b) => writeBucket(paths, b, bucket));
  stamps.push(writeCjk(paths, cjk));
  for (const name of readdirSync(namesDir(paths))) {
    const m = /^(\d{2,3})\.json$/.exec(name);
    if (m && Number(m[1]) >= count) rmSync(join(namesDir(paths), name), { force: true });
  }
  return stamps;
}

/** One page's names before and after a change (undefined: the page was not, or is no longer, there). */
export interface NameChange {
  id: string;
  before?: PageNameKeys;
  after?: PageNameKeys;
}

/** Inserts `id` into a list kept in id order (the order a built table has). */
function insertId(ids: string[], id: string): void {
  if (ids.includes(id)) return;
  let at = ids.length;
  while (at > 0 && byId(ids[at - 1] ?? "", id) > 0) at -= 1;
  ids.splice(at, 0, id);
}

function removeId(map: KeyIds, key: string, id: string): void {
  const rest = (map.get(key) ?? []).filter((x) => x !== id);
  if (rest.length > 0) map.set(key, rest);
  else map.delete(key);
}

/** One key added to or taken from a bucket. */
interface KeyEdit {
  kind: "exact" | "words";
  key: string;
  id: string;
  add: boolean;
}

/** The key edits of `changes`, by bucket, and whether any page's CJK names changed. */
function editsOf(
  changes: readonly NameChange[],
  count: number,
): { edits: Map<number, KeyEdit[]>; cjkChanged: boolean } {
  const edits = new Map<number, KeyEdit[]>();
  const push = (edit: KeyEdit) => {
    const b = bucketOf(edit.key, count);
    edits.set(b, [...(edits.get(b) ?? []), edit]);
  };
  let cjkChanged = false;
  for (const { id, before, after } of changes) {
    for (const kind of ["exact", "words"] as const) {
      const was = new Set((before?.[kind] ?? []).filter((k) => k !== ""));
      const now = new Set((after?.[kind] ?? []).filter((k) => k !== ""));
      for (const key of was) if (!now.has(key)) push({ kind, key, id, add: false });
      for (const key of now) if (!was.has(key)) push({ kind, key, id, add: true });
    }
    const a = before?.cjk ?? [];
    const b = after?.cjk ?? [];
    if (a.length !== b.length || a.some((n, i) => n !== b[i])) cjkChanged = true;
  }
  return { edits, cjkChanged };
}

/**
 * Applies `changes` to the table on disk, which must be as `stamps` say and
 * laid out for `pages` pages (else undefined: the caller writes the table
 * whole). Rewrites only the buckets whose keys changed; returns the new
 * stamps. Throws when a write fails.
 */
export function patchNameTable(
  paths: VaultPaths,
  stamps: NameStamps,
  changes: readonly NameChange[],
  pages: number,
): NameStamps | undefined {
  const count = stamps.length - 1;
  if (!isNameLayout(stamps) || count !== nameBucketsFor(pages)) return undefined;
  const { edits, cjkChanged } = editsOf(changes, count);
  const loaded = new Map<number, Bucket>();
  for (const b of edits.keys()) {
    const bucket = readBucket(paths, b, stamps[b] ?? "");
    if (!bucket) return undefined;
    loaded.set(b, bucket);
  }
  let cjk: CjkNames | undefined;
  if (cjkChanged) {
    cjk = readCjk(paths, stamps[count] ?? "");
    if (!cjk) return undefined;
    for (const { id, after } of changes) {
      cjk = cjk.filter((entry) => entry.id !== id);
      const names = (after?.cjk ?? []).map((name) => ({ name, id }));
      // A page's CJK names sit together, between smaller and larger ids.
      let at = cjk.length;
      while (at > 0 && byId(cjk[at - 1]?.id ?? "", id) > 0) at -= 1;
      cjk.splice(at, 0, ...names);
    }
  }
  const next = [...stamps];
  for (const [b, list] of edits) {
    const bucket = loaded.get(b) as Bucket;
    for (const { kind, key, id, add } of list) {
      if (!add) removeId(bucket[kind], key, id);
      else {
        const ids = bucket[kind].get(key);
        if (ids) insertId(ids, id);
        else bucket[kind].set(key, [id]);
      }
    }
    next[b] = writeBucket(paths, b, bucket);
  }
  if (cjk) next[count] = writeCjk(paths, cjk);
  return next;
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/** Keys whose ids a saved table keeps once read, per kind; a long-lived host meets new ones forever. */
const KEYS_KEPT = 20_000;

/**
 * The table on disk as `stamps` describe it, for `adoptNameTable`: buckets
 * are read on first use. When a file is no longer as described (another
 * process rewrote it), the table `fallback` builds from the same pages
 * answers instead, from then on. Undefined when the CJK file (read now) is
 * not as described.
 */
export function savedNameTable(
  paths: VaultPaths,
  stamps: NameStamps,
  fallback: () => NameTable,
): NameTable | undefined {
  if (!isNameLayout(stamps)) return undefined;
  const count = stamps.length - 1;
  const cjk = readCjk(paths, stamps[count] ?? "");
  if (!cjk) return undefined;
  const buckets: Array<BucketBytes | undefined> = [];
  let built: NameTable | undefined;
  // What each key read from a bucket's bytes (kept once read, so the same
  // answer every time): a recall looks up every run of up to eight of its
  // words, and a session's prompts share most of them.
  const found = {
    exact: new Map<string, Iterable<string> | undefined>(),
    words: new Map<string, Iterable<string> | undefined>(),
  };
  const lookup =
    (kind: "exact" | "words"): NameLookup["get"] =>
    (key) => {
      if (built) return built[kind].get(key);
      const memo = found[kind];
      if (memo.has(key)) return memo.get(key);
      const ids = read(kind, key);
      if (built) return ids;
      if (memo.size >= KEYS_KEPT) memo.clear();
      memo.set(key, ids);
      return ids;
    };
  const read = (kind: "exact" | "words", key: string): Iterable<string> | undefined => {
    const b = bucketOf(key, count);
    let bucket = buckets[b];
    if (!bucket) {
      bucket = bucketBytes(paths, b, stamps[b] ?? "");
      if (!bucket) {
        built = fallback();
        return built[kind].get(key);
      }
      buckets[b] = bucket;
    }
    const ids = memberValue(bucket.bytes, key, "[", ...bucket[kind]);
    return isStringList(ids) ? ids : undefined;
  };
  return { exact: { get: lookup("exact") }, words: { get: lookup("words") }, cjk };
}
