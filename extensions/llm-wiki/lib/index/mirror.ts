/**
 * The validated mirror QMD indexes: one document per accepted page, as
 * `<collection>/<pageId>.md` of a generation's QMD index. Only pages the
 * vault parser accepted are mirrored, rewritten as title, description,
 * aliases and tags followed by the body, so BM25's title weight lands on the
 * real title and frontmatter noise stays out. The text lives in the index
 * alone (qmd-documents.ts writes it there); generations of INDEX_FORMAT 1
 * also kept it as a Markdown file per page under `documents/`. Pages are
 * spread over a few collections per role, the layout QMD's `update()` works
 * in (it rescans whole collections).
 */
import { appendFileSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { redactSecrets } from "../safety/redact.ts";
import { refuseLinkOnTheWay, writeFileAtomic } from "../vault/fs-safe.ts";
import {
  bodyAfterFrontmatter,
  hashContent,
  type PageMeta,
  type PageRole,
  parsePage,
} from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import { indexMark, indexMember } from "../vault/registry-summary.ts";
import { SetMark } from "../vault/set-mark.ts";
import { fnv1a } from "../vault/stable-hash.ts";
import type { GenerationPaths } from "./layout.ts";
import type { DocumentRemoval, DocumentUpsert } from "./qmd-documents.ts";

/** Collections per role; one page change rescans about 1/8 of its role. */
export const SHARDS_PER_ROLE = 8;
const MANIFEST_VERSION = 1;

/**
 * What a generation holds on disk. 1 (a manifest without `format`): a
 * Markdown mirror file per page besides the SQLite index. 2: the SQLite
 * index alone. A live generation of an older format still answers; its
 * status is stale and the next index update rebuilds it. Raise it too when
 * `mirrorText` writes another text for the same page
 * (test/derived-versions.test.ts fails until then).
 */
export const INDEX_FORMAT = 2;

export interface ManifestEntry {
  hash: string;
  role: PageRole;
  collection: string;
}

/** What a generation's mirror holds: one entry per mirrored page id. */
export interface Manifest {
  version: number;
  /** INDEX_FORMAT of the generation; absent in format 1. */
  format?: number;
  /** Collections per role in this generation; absent in older manifests (8). */
  shards?: number;
  entries: Record<string, ManifestEntry>;
  /** Lines of `manifest.log` folded into `entries` (in memory only). */
  logged?: number;
}

/** One line of `manifest.log`: a page's new entry, or its removal. */
type ManifestLogLine = { id: string; entry: ManifestEntry } | { id: string; removed: true };

/** Past this many appended changes the manifest is written whole again. */
export const MANIFEST_LOG_LIMIT = 512;

export interface CollectionSpec {
  name: string;
  dir: string;
  role: PageRole;
}

/** Most shards per role: past this, opening a store registers too many collections. */
const MAX_SHARDS_PER_ROLE = 64;
/** Pages per collection a rebuild aims for: one change rescans about this many files. */
const PAGES_PER_SHARD = 128;

/**
 * Shards per role for a rebuild of `pages` pages: QMD's `update()` rescans a
 * whole collection, so a bigger vault gets more, smaller collections (a power
 * of two from 8 to 64). Fixed for the generation's life, in its manifest.
 */
export function shardsFor(pages: number): number {
  let shards = SHARDS_PER_ROLE;
  while (shards < MAX_SHARDS_PER_ROLE && shards * PAGES_PER_SHARD < pages) shards *= 2;
  return shards;
}

/** All collections of a generation (fixed per generation, so every store opens with the same config). */
export function collectionsOf(
  gen: GenerationPaths,
  shards: number = SHARDS_PER_ROLE,
): CollectionSpec[] {
  const out: CollectionSpec[] = [];
  for (const role of ["canonical", "evidence"] as const) {
    for (let i = 0; i < shards; i += 1) {
      const name = `${role}-${i}`;
      out.push({ name, role, dir: join(gen.documents, name) });
    }
  }
  return out;
}

/** The collection a page belongs to: its role and a stable shard of its id. */
export function collectionOf(
  pageId: string,
  role: PageRole,
  shards: number = SHARDS_PER_ROLE,
): string {
  return `${role}-${fnv1a(pageId) % shards}`;
}

/** The generation's INDEX_FORMAT (manifests of format 1 do not say). */
export function formatOf(manifest: Pick<Manifest, "format">): number {
  const n = manifest.format;
  return typeof n === "number" && Number.isInteger(n) && n >= 1 ? n : 1;
}

/** Shards per role of a generation (manifests written before sharding scaled had 8). */
export function shardsOf(manifest: Manifest): number {
  const n = manifest.shards;
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= MAX_SHARDS_PER_ROLE
    ? n
    : SHARDS_PER_ROLE;
}

/**
 * The text QMD indexes for `page`, secrets redacted: a page written by hand
 * may hold one, and the page stays as written (it is authoritative), but the
 * mirror, and so the SQLite index and every excerpt drawn from it, never
 * carries it.
 */
export function mirrorText(page: PageMeta & { body: string }, clean = false): string {
  const lines = [`# ${page.title}`, ""];
  const about = page.description ?? page.summary;
  if (about) lines.push(about, "");
  if (page.aliases.length > 0) lines.push(`Aliases: ${page.aliases.join(", ")}`, "");
  if (page.tags.length > 0) lines.push(`Tags: ${page.tags.join(", ")}`, "");
  if (page.recallTriggers.length > 0) lines.push(`Triggers: ${page.recallTriggers.join("; ")}`, "");
  lines.push(page.body.trim(), "");
  const text = lines.join("\n");
  return clean ? text : redactSecrets(text).text;
}

/** Folds `manifest.log` into `manifest`; a torn last line (a crash mid-append) is ignored. */
function replayLog(gen: GenerationPaths, manifest: Manifest): Manifest {
  let text: string;
  try {
    text = readFileSync(gen.manifestLog, "utf8");
  } catch {
    return manifest;
  }
  let logged = 0;
  for (const line of text.split("\n")) {
    if (!line) continue;
    let change: ManifestLogLine;
    try {
      change = JSON.parse(line) as ManifestLogLine;
    } catch {
      continue;
    }
    if (typeof change?.id !== "string") continue;
    if ("removed" in change) delete manifest.entries[change.id];
    else if (typeof change.entry?.hash === "string") manifest.entries[change.id] = change.entry;
    logged += 1;
  }
  manifest.logged = logged;
  return manifest;
}

/** Reads a generation's manifest with its logged changes; undefined when absent or invalid. */
export function readManifest(gen: GenerationPaths): Manifest | undefined {
  try {
    const data = JSON.parse(readFileSync(gen.manifest, "utf8")) as Manifest;
    if (data.version === MANIFEST_VERSION && data.entries && typeof data.entries === "object")
      return replayLog(gen, data);
  } catch {
    // Absent or corrupt: the caller rebuilds.
  }
  return undefined;
}

/** Writes the whole manifest (ids sorted) and drops the change log it now contains. */
export function writeManifest(gen: GenerationPaths, manifest: Manifest): void {
  const sorted = Object.fromEntries(
    Object.entries(manifest.entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  writeFileAtomic(
    gen.manifest,
    `${JSON.stringify({ version: manifest.version, format: formatOf(manifest), shards: shardsOf(manifest), entries: sorted })}\n`,
  );
  rmSync(gen.manifestLog, { force: true });
  manifest.logged = 0;
}

/**
 * Records `next` (the manifest after a change `previous` → `next`): the ids
 * whose entry changed are appended to the log, so one page change costs one
 * line, not a megabyte; past MANIFEST_LOG_LIMIT lines the whole manifest is
 * written again. Returns `next` with its log count.
 */
export function recordManifest(
  gen: GenerationPaths,
  previous: Manifest,
  next: Manifest,
  ids: Iterable<string>,
): Manifest {
  const lines: string[] = [];
  for (const id of new Set(ids)) {
    const entry = next.entries[id];
    if (entry === previous.entries[id]) continue;
    lines.push(JSON.stringify(entry ? { id, entry } : { id, removed: true }));
  }
  const logged = (previous.logged ?? 0) + lines.length;
  if (logged > MANIFEST_LOG_LIMIT) {
    writeManifest(gen, next);
    return next;
  }
  if (lines.length > 0) {
    // Appending follows a link: one placed at the log is refused, not written through.
    refuseLinkOnTheWay(gen.manifestLog);
    appendFileSync(gen.manifestLog, `${lines.join("\n")}\n`);
  }
  next.logged = logged;
  return next;
}

/**
 * Records a change of the pages `ids` in `manifest` itself, whose entries
 * for them become those of `next` (an id `next` lacks is removed): the log
 * gains a line per changed entry, as in `recordManifest`, without copying
 * the other entries. `manifest` is changed in place, so a caller that keeps
 * it must drop it when this throws (the files may then lag behind it).
 */
export function recordManifestChange(
  gen: GenerationPaths,
  manifest: Manifest,
  next: Manifest,
  ids: Iterable<string>,
): void {
  const lines: string[] = [];
  for (const id of new Set(ids)) {
    const entry = next.entries[id];
    if (entry === manifest.entries[id]) continue;
    lines.push(JSON.stringify(entry ? { id, entry } : { id, removed: true }));
    if (entry) manifest.entries[id] = entry;
    else delete manifest.entries[id];
  }
  const logged = (manifest.logged ?? 0) + lines.length;
  if (logged > MANIFEST_LOG_LIMIT) {
    writeManifest(gen, manifest);
    return;
  }
  if (lines.length > 0) {
    refuseLinkOnTheWay(gen.manifestLog);
    appendFileSync(gen.manifestLog, `${lines.join("\n")}\n`);
  }
  manifest.logged = logged;
}

/** The entries of `ids` alone, as a manifest of the same generation: what a change starts from. */
export function manifestPart(manifest: Manifest, ids: Iterable<string>): Manifest {
  const entries: Record<string, ManifestEntry> = {};
  for (const id of ids) {
    const entry = manifest.entries[id];
    if (entry) entries[id] = entry;
  }
  return {
    version: manifest.version,
    format: formatOf(manifest),
    shards: shardsOf(manifest),
    entries,
  };
}

/**
 * `manifest.mark.json` of a generation: the manifest's index mark (see
 * vault/registry-summary.ts) and counts, stamped with the manifest and log
 * files it was made from. A process that holds the registry's summary can
 * tell from it whether the index is up to date without reading a megabyte
 * of manifest; a mark whose stamps no longer match the files is not used.
 */
export interface ManifestMark {
  mark: string;
  documents: number;
  canonical: number;
  evidence: number;
  /** The manifest's collections per role (`shardsOf`). */
  shards: number;
  /** The manifest's INDEX_FORMAT (`formatOf`). */
  format: number;
}

const MARK_VERSION = 1;

function markPath(gen: GenerationPaths): string {
  return join(gen.dir, "manifest.mark.json");
}

function stampOf(path: string): string {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? `${st.size}:${st.mtimeMs}` : "";
  } catch {
    return "";
  }
}

/** The stamps of a generation's manifest and log now: take them before reading the manifest. */
export function manifestStamp(gen: GenerationPaths): string {
  return `${stampOf(gen.manifest)}|${stampOf(gen.manifestLog)}`;
}

/** The mark and counts of `manifest`. */
export function manifestMarkOf(manifest: Manifest): ManifestMark {
  const entries = Object.entries(manifest.entries);
  let canonical = 0;
  let evidence = 0;
  for (const [, entry] of entries) {
    if (entry.role === "canonical") canonical += 1;
    else if (entry.role === "evidence") evidence += 1;
  }
  return {
    mark: indexMark(entries.map(([id, e]) => [id, e.hash, e.role] as const)),
    documents: entries.length,
    canonical,
    evidence,
    shards: shardsOf(manifest),
    format: formatOf(manifest),
  };
}

/**
 * Writes the mark of `manifest`, read or written when the manifest files had
 * `stamp`, unless they changed since (a newer manifest's mark is its
 * writer's to make). `mark`, when the caller has it already (kept by
 * difference, `patchManifestMark`), spares a pass over every entry. Best
 * effort: an index folder that refuses the write only loses the shortcut.
 */
export function writeManifestMark(
  gen: GenerationPaths,
  manifest: Manifest,
  stamp: string,
  mark?: ManifestMark,
): void {
  if (manifestStamp(gen) !== stamp) return;
  try {
    const body = { version: MARK_VERSION, stamp, ...(mark ?? manifestMarkOf(manifest)) };
    writeFileAtomic(markPath(gen), `${JSON.stringify(body)}\n`);
  } catch {
    // Read-only or full: statuses read the manifest instead.
  }
}

/** The generation's manifest mark, if it was made from the manifest files as they are now. */
export function readManifestMark(gen: GenerationPaths): ManifestMark | undefined {
  try {
    const data = JSON.parse(readFileSync(markPath(gen), "utf8")) as Partial<ManifestMark> & {
      version?: unknown;
      stamp?: unknown;
    };
    if (
      data?.version !== MARK_VERSION ||
      typeof data.stamp !== "string" ||
      typeof data.mark !== "string" ||
      typeof data.documents !== "number" ||
      typeof data.canonical !== "number" ||
      typeof data.evidence !== "number" ||
      typeof data.shards !== "number" ||
      typeof data.format !== "number" ||
      data.shards !== shardsOf({ version: MANIFEST_VERSION, shards: data.shards, entries: {} }) ||
      data.stamp !== manifestStamp(gen)
    ) {
      return undefined;
    }
    const { mark, documents, canonical, evidence, shards, format } = data;
    return { mark, documents, canonical, evidence, shards, format };
  } catch {
    return undefined;
  }
}

/** A new generation's empty manifest, of the current INDEX_FORMAT. */
export function emptyManifest(shards: number = SHARDS_PER_ROLE): Manifest {
  return { version: MANIFEST_VERSION, format: INDEX_FORMAT, shards, entries: {} };
}

/** Pages to (re)write and remove so the mirror matches the registry. */
export interface MirrorPlan {
  write: string[];
  remove: Array<{ id: string; collection: string }>;
}

/** Compares the registry with a manifest; empty plan when the mirror is up to date. */
export function planMirror(registry: Registry, manifest: Manifest): MirrorPlan {
  const write: string[] = [];
  const remove: MirrorPlan["remove"] = [];
  for (const [id, meta] of registry.pages) {
    const entry = manifest.entries[id];
    if (entry && entry.hash === registry.hashes.get(id) && entry.role === meta.role) continue;
    write.push(id);
    // A page's collection depends only on its role within a generation: a new
    // role means a new collection, and the document in the old one goes.
    if (entry && entry.role !== meta.role) remove.push({ id, collection: entry.collection });
  }
  if (registry.pages.size - write.length !== Object.keys(manifest.entries).length) {
    for (const [id, entry] of Object.entries(manifest.entries)) {
      if (!registry.pages.has(id)) remove.push({ id, collection: entry.collection });
    }
  }
  return { write, remove };
}

/**
 * `planMirror` for a registry known to differ from the one the manifest
 * mirrors only in the pages `ids`: the same plan, from those pages alone.
 */
export function planMirrorOf(
  registry: Registry,
  manifest: Manifest,
  ids: Iterable<string>,
): MirrorPlan {
  const write: string[] = [];
  const remove: MirrorPlan["remove"] = [];
  const gone: MirrorPlan["remove"] = [];
  // In registry order, as the whole plan lists them.
  for (const id of [...new Set(ids)].sort(byId)) {
    const meta = registry.pages.get(id);
    const entry = manifest.entries[id];
    if (!meta) {
      if (entry) gone.push({ id, collection: entry.collection });
      continue;
    }
    if (entry && entry.hash === registry.hashes.get(id) && entry.role === meta.role) continue;
    write.push(id);
    if (entry && entry.role !== meta.role) remove.push({ id, collection: entry.collection });
  }
  return { write, remove: [...remove, ...gone] };
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The mark of `next`, a manifest that differs from `previous` (whose mark is
 * `mark`) only in the entries of `ids`: the set mark moves by those members
 * alone, so a change costs its own pages, not the vault's.
 */
export function patchManifestMark(
  mark: ManifestMark,
  previous: Manifest,
  next: Manifest,
  ids: Iterable<string>,
): ManifestMark {
  const acc = SetMark.from(mark.mark);
  const out = { ...mark };
  const count = (entry: ManifestEntry, by: number) => {
    out.documents += by;
    if (entry.role === "canonical") out.canonical += by;
    else if (entry.role === "evidence") out.evidence += by;
  };
  for (const id of new Set(ids)) {
    const before = previous.entries[id];
    const after = next.entries[id];
    if (before === after) continue;
    if (before) {
      acc.remove(indexMember(id, before.hash, before.role));
      count(before, -1);
    }
    if (after) {
      acc.add(indexMember(id, after.hash, after.role));
      count(after, 1);
    }
  }
  return { ...out, mark: acc.mark() };
}

/** One page as the registry knows it, for `mirrorDocument`. */
export interface MirrorSource {
  meta: PageMeta;
  /** The hash the registry recorded for the page's bytes. */
  hash: string | undefined;
  /** The registry's detector found a secret in those bytes. */
  secrets: boolean;
  /** Those very bytes (hashing to `hash`), when in hand; else the page file is read. */
  bytes?: Uint8Array;
  /** Collections per role of the generation. */
  shards: number;
}

/**
 * The document QMD indexes for one page and its manifest entry; `skipped`
 * when the page can no longer be read or parsed (changed or removed since
 * the registry read it: the next refresh catches up).
 */
export function mirrorDocument(
  vault: VaultPaths,
  source: MirrorSource,
): { entry: ManifestEntry; upsert: DocumentUpsert } | { skipped: Diagnostic } {
  const { meta } = source;
  const id = meta.id;
  let page: PageMeta & { body: string; hash: string };
  // The registry's detector verdict holds for these bytes only.
  let clean = false;
  try {
    const bytes = source.bytes ?? readFileSync(join(vault.dir, meta.path));
    // Bytes in hand are the ones the registry hashed: a second sha256 of every page is spared.
    const hash = source.bytes && source.hash !== undefined ? source.hash : hashContent(bytes);
    const body =
      hash === source.hash
        ? bodyAfterFrontmatter(
            Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
          )
        : undefined;
    if (body !== undefined) {
      // The registry parsed these very bytes: reuse its metadata, skip a second YAML parse.
      page = { ...meta, body, hash };
      clean = !source.secrets;
    } else {
      const parsed = parsePage(id, meta.path, bytes);
      if (!parsed.ok) throw new Error(parsed.diagnostics[0]?.message ?? "rejected");
      page = parsed.page;
    }
  } catch (error) {
    return {
      skipped: diagnostic("index_page_skipped", "warning", `${meta.path}: ${errorMessage(error)}`, {
        path: meta.path,
      }),
    };
  }
  const collection = collectionOf(id, page.role, source.shards);
  return {
    entry: { hash: page.hash, role: page.role, collection },
    upsert: { collection, path: `${id}.md`, text: mirrorText(page, clean) },
  };
}

/** What `applyMirror` changed: the new manifest and the documents QMD must take in. */
export interface MirrorChange {
  manifest: Manifest;
  /** Collections whose files changed. */
  changed: Set<string>;
  /** The documents QMD must index, with their text (document path `<id>.md`). */
  upserts: DocumentUpsert[];
  removals: DocumentRemoval[];
  diagnostics: Diagnostic[];
}

/**
 * Reads the pages of `plan` and returns the documents QMD must index and
 * remove, with the manifest after the change. Nothing is written here: the
 * caller hands the documents to the store and writes the manifest only after
 * QMD has indexed them.
 */
export function applyMirror(
  vault: VaultPaths,
  registry: Registry,
  manifest: Manifest,
  plan: MirrorPlan,
): MirrorChange {
  const entries = { ...manifest.entries };
  const changed = new Set<string>();
  const upserts: DocumentUpsert[] = [];
  const removals: DocumentRemoval[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const { id, collection } of plan.remove) {
    if (entries[id]?.collection === collection) delete entries[id];
    changed.add(collection);
    removals.push({ collection, path: `${id}.md` });
  }
  for (const id of plan.write) {
    const meta = registry.pages.get(id);
    if (!meta) continue;
    const doc = mirrorDocument(vault, {
      meta,
      hash: registry.hashes.get(id),
      secrets: registry.secretPages.has(id),
      shards: shardsOf(manifest),
    });
    if ("skipped" in doc) {
      diagnostics.push(doc.skipped);
      continue;
    }
    entries[id] = doc.entry;
    changed.add(doc.entry.collection);
    upserts.push(doc.upsert);
  }
  return {
    manifest: {
      version: manifest.version,
      format: formatOf(manifest),
      shards: shardsOf(manifest),
      entries,
    },
    changed,
    upserts,
    removals,
    diagnostics,
  };
}
