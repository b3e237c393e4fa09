/**
 * The derived page registry and backlinks (`meta/backlinks.json`), refreshed
 * incrementally: a page whose size and mtime are unchanged is not read, one
 * whose bytes hash the same is not re-parsed, and a host that knows which
 * files changed (its own writes, Pi's write and edit tools) has only those
 * looked at instead of the whole `wiki/` folder. What is known about each
 * file is cached under `meta/cache/registry/` (see registry-cache.ts). All
 * of it is derived; deleting it loses nothing.
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { adoptNameTable, buildNameTable, pageNames } from "../name-match.ts";
import { countTotal, redactSecrets } from "../safety/redact.ts";
import { runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { decisionVaultOf } from "./config.ts";
import { detachedStrings } from "./detached-strings.ts";
import { writeFileAtomic } from "./fs-safe.ts";
import type { RawLink } from "./links.ts";
import { extractLinks } from "./links.ts";
import { hashContent, type Page, type PageMeta, pageMeta, parsePage } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
import { redactValue } from "./redaction.ts";
import { backlinksText } from "./registry-backlinks.ts";
import {
  type CacheSnapshot,
  loadCacheSteps,
  type RegistryRecord,
  removeLegacyCache,
  type ShardRecords,
  saveCache,
  shardOf,
} from "./registry-cache.ts";
import {
  buildLinkGraphSteps,
  type LinkGraph,
  type LinkProblem,
  patchLinkGraph,
  patchLinkGraphIds,
} from "./registry-links.ts";
import { savedNameTable } from "./registry-names.ts";
import type { SummaryState } from "./registry-summary.ts";
import { type RecordChange, syncSummary } from "./registry-summary-sync.ts";
import { DerivedRelationGraph, linkTargets } from "./relation-graph.ts";
import { saveRelations } from "./relation-graph-file.ts";
import type { RelationGraph } from "./relations.ts";
import { isReservedWikiFile } from "./reserved-names.ts";
import { type FolderStamp, idOf, type WikiFile, walkWikiSteps } from "./wiki-walk.ts";

export type { LinkProblem } from "./registry-links.ts";

/** The registry in memory. */
export interface Registry {
  /** Accepted pages by id, in id order. */
  pages: Map<string, PageMeta>;
  /** sha256 of each accepted page's bytes, by id. */
  hashes: Map<string, string>;
  /**
   * Ids of accepted pages whose text holds a secret, as the detector found
   * when the page was parsed: whoever copies a page's text (the index
   * mirror) redacts these and may copy every other page as it is.
   */
  secretPages: Set<string>;
  /** Outgoing resolved links by page id. */
  links: Map<string, string[]>;
  /** Incoming links by page id. */
  backlinks: Map<string, string[]>;
  linkProblems: LinkProblem[];
  /**
   * Typed relations that count (declared and linked in the body) and the
   * edges of active user resolutions, derived with the link graph.
   */
  relations: RelationGraph;
  /** Malformed pages and soft page warnings. */
  diagnostics: Diagnostic[];
  stats: { files: number; parsed: number; reread: number; reused: number; removed: number };
  /**
   * The same object for as long as no page id, title or alias changed: name
   * lookups built for one registry stay valid for the next.
   */
  names: object;
  /** This registry's identity: what a later registry's `delta` names as its base. */
  revision: object;
  /**
   * The pages whose record this refresh changed (parsed anew, removed, or
   * added), when it started from the registry whose `revision` is `from`:
   * every other page's id, hash and role are as they were there. Lets the
   * index plan only these pages' mirror files after a change.
   */
  delta?: RegistryDelta;
  /**
   * What this refresh read and wrote: passing the registry to the next
   * refresh of the same vault lets it skip re-reading cache files still as
   * written here, and patch the link graph instead of rebuilding it.
   */
  snapshot: {
    cache: CacheSnapshot;
    graph: LinkGraph;
    /** `relations`, patchable into the next registry's graph. */
    relationGraph: DerivedRelationGraph;
    /** Stamp of `relations.json` as saved for `relationGraph` ("" when unwritten). */
    relationsStamp: string;
    summary?: SummaryState;
  };
}

/** See `Registry.delta`. */
export interface RegistryDelta {
  from: object;
  ids: ReadonlySet<string>;
}

export interface RefreshOptions {
  /**
   * Build the registry without writing any derived file (cache, summary,
   * names, relations, backlinks): for a folder that is not yet the vault's
   * own, e.g. the outer `.llm-wiki/` of a doubled layout before `migrate`.
   */
  readOnly?: boolean;
  /**
   * Files known to have changed since `last` (absolute, or relative to the
   * vault's `.llm-wiki/` folder). While `last` is current (nobody else wrote
   * the cache since), only these are looked at instead of walking `wiki/`;
   * a page changed by anyone else is then seen by the next full refresh.
   */
  changed?: readonly string[];
  /**
   * Called for each accepted page as a refresh that walks every page looks
   * at it, in id order (the order of `Registry.pages`): a rebuild indexes
   * the page then, with the bytes this refresh read, instead of reading
   * every page again after it. Not called by a refresh of `changed` files.
   */
  onPage?: (page: WalkedPage) => void;
  /**
   * Called once a refresh that walks every page has looked at the last one,
   * before it builds the link graph and writes its cache (seconds of this
   * thread at 100k pages): a rebuild fed by `onPage` finishes its index
   * meanwhile. Not called by a refresh of `changed` files.
   */
  onPagesRead?: () => void;
}

/** An accepted page as a full refresh found it (see `RefreshOptions.onPage`). */
export interface WalkedPage {
  id: string;
  meta: PageMeta;
  /** sha256 of the page's bytes as the registry records it. */
  hash: string;
  /** The detector found a secret in the page's text (see `Registry.secretPages`). */
  secrets: boolean;
  /** The bytes this refresh read and hashed to `hash`; absent when its cache knew the page. */
  bytes?: Uint8Array;
  /** Files the walk found: at least the number of pages the registry will hold. */
  files: number;
}

/**
 * A page's metadata as the registry keeps and every host shows it: a secret
 * in a hand-written page's title, aliases or tags reaches neither the cache
 * under `meta/` nor a reader (the page file itself is left as it is).
 */
function shownMeta(page: Page, secrets: boolean): PageMeta {
  const meta = pageMeta(page);
  if (!secrets) return meta;
  const { id, path, ...rest } = meta;
  return { id, path, ...redactValue(rest, {}) };
}

function record(file: WikiFile, bytes: Uint8Array, hash: string): RegistryRecord {
  const id = idOf(file.rel);
  const result = parsePage(id, file.rel, bytes);
  const base = { size: file.size, mtimeMs: file.mtimeMs, hash };
  if (!result.ok) return detachedStrings({ ...base, diagnostics: result.diagnostics });
  // One detector pass over the whole text, here where every changed page
  // passes once: its verdict travels with the record, so the mirror copies
  // clean pages without a pass of its own.
  // Decoded through a view of the bytes: a copy of every page was garbage at once.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const secrets = countTotal(redactSecrets(text).counts) > 0;
  const rec: RegistryRecord = {
    ...base,
    meta: shownMeta(result.page, secrets),
    links: extractLinks(id, result.page.body),
  };
  if (secrets) rec.secrets = true;
  if (result.diagnostics.length > 0) rec.diagnostics = result.diagnostics;
  // The registry keeps this record for the whole build: nothing in it may pin the page's text.
  return detachedStrings(rec);
}

/** `abs` relative to the vault's folder when it lies under `wiki/` (directly or through symlinks). */
function relInVault(paths: VaultPaths, abs: string): string | undefined {
  const direct = relative(paths.dir, abs).split(sep).join("/");
  if (direct.startsWith("wiki/")) return direct;
  try {
    const real = relative(realpathSync(paths.dir), realpathSync(abs)).split(sep).join("/");
    return real.startsWith("wiki/") ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The vault-relative paths of `changed` that may be pages, or undefined when
 * one of them needs the full walk (a symbolic link, a folder).
 */
function targetsOf(paths: VaultPaths, changed: readonly string[]): WikiFile[] | undefined {
  const out: WikiFile[] = [];
  for (const given of changed) {
    const abs = isAbsolute(given) ? given : join(paths.dir, given);
    const rel = relInVault(paths, abs);
    if (rel === undefined || rel.split("/").some((part) => part.startsWith("."))) continue;
    if (isReservedWikiFile(rel)) continue;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(abs);
    } catch {
      if (rel.endsWith(".md")) out.push({ rel, abs, size: -1, mtimeMs: -1 });
      continue;
    }
    if (st.isSymbolicLink() || st.isDirectory()) return undefined;
    if (st.isFile() && rel.endsWith(".md"))
      out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
  }
  return out;
}

/**
 * Brings the registry up to date with `wiki/` and returns it. Writes the
 * derived files only when they changed; a read-only vault still answers.
 * `last` is taken over: its maps may be patched in place into the new
 * registry's, so read nothing from it afterwards.
 */
export function refreshRegistry(
  paths: VaultPaths,
  last?: Registry,
  options: RefreshOptions = {},
): Registry {
  return runWhole((clock) => refreshRegistrySteps(paths, last, options, clock));
}

/**
 * `refreshRegistry` as sliced work (sliced-work.ts): it may yield while it
 * reads the cache, walks `wiki/`, looks at each page and builds the link
 * graph, so a server stays responsive through a refresh of 100k pages.
 * Nothing of `last` is changed before the last yield; the cache files may
 * be written before it (a run dropped there leaves a summary that no longer
 * matches them, so the next process walks again).
 */
export function* refreshRegistrySteps(
  paths: VaultPaths,
  last: Registry | undefined,
  options: RefreshOptions,
  clock: SliceClock,
): Sliced<Registry> {
  const diagnostics: Diagnostic[] = [];
  const loaded = yield* loadCacheSteps(paths, last?.snapshot.cache, clock);
  const previous = loaded.snapshot;
  const current = loaded.own && last !== undefined ? last : undefined;
  const targets =
    current && options.changed !== undefined ? targetsOf(paths, options.changed) : undefined;
  const shards = [...previous.shards];
  const dirty = new Set<number>();
  const writable = (shard: number): ShardRecords => {
    if (!dirty.has(shard)) {
      shards[shard] = { ...shards[shard] };
      dirty.add(shard);
    }
    return shards[shard] as ShardRecords;
  };
  const stats = { files: 0, parsed: 0, reread: 0, reused: 0, removed: 0 };
  /** Records whose page was parsed, re-read or removed here, by path. */
  const touched = new Map<string, RecordChange>();
  /** Records whose file was touched but holds the same bytes (new size or mtime only). */
  const restamped = new Map<string, RecordChange>();
  /** The folders' stamps, when this refresh walks every page. */
  let folders: FolderStamp[] | undefined;

  /** The bytes the last `visitFile` read, for `options.onPage`. */
  let lastRead: Uint8Array | undefined;
  const visitFile = (file: WikiFile): void => {
    const shard = shardOf(file.rel);
    const prev = shards[shard]?.[file.rel];
    if (prev && prev.size === file.size && prev.mtimeMs === file.mtimeMs) {
      stats.reused += 1;
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file.abs);
      if (options.onPage) lastRead = bytes;
    } catch (error) {
      diagnostics.push(
        diagnostic("page_unreadable", "error", `${file.rel}: ${errorMessage(error)}`, {
          path: file.rel,
        }),
      );
      if (prev) {
        delete writable(shard)[file.rel];
        touched.set(file.rel, { before: prev });
      }
      return;
    }
    const hash = hashContent(bytes);
    if (prev && prev.hash === hash) {
      const next = { ...prev, size: file.size, mtimeMs: file.mtimeMs };
      writable(shard)[file.rel] = next;
      restamped.set(file.rel, { before: prev, after: next });
      stats.reread += 1;
      return;
    }
    const next = record(file, bytes, hash);
    writable(shard)[file.rel] = next;
    touched.set(file.rel, prev ? { before: prev, after: next } : { after: next });
    stats.parsed += 1;
  };

  if (targets && current) {
    for (const file of targets) {
      if (file.size >= 0) {
        visitFile(file);
        continue;
      }
      const shard = shardOf(file.rel);
      const prev = shards[shard]?.[file.rel];
      if (prev) {
        delete writable(shard)[file.rel];
        touched.set(file.rel, { before: prev });
        stats.removed += 1;
      }
    }
    stats.files = current.stats.files + countNew(touched) - stats.removed;
    stats.reused = stats.files - stats.parsed - stats.reread;
  } else {
    folders = [];
    const files = yield* walkWikiSteps(paths, diagnostics, folders, clock);
    stats.files = files.length;
    const seen = new Set<string>();
    const onPage = options.onPage;
    for (const file of files) {
      if (clock.due()) yield;
      seen.add(file.rel);
      visitFile(file);
      if (!onPage) continue;
      const rec = shards[shardOf(file.rel)]?.[file.rel];
      const bytes = lastRead;
      lastRead = undefined;
      if (!rec?.meta) continue;
      onPage({
        id: rec.meta.id,
        meta: rec.meta,
        hash: rec.hash,
        secrets: rec.secrets === true,
        ...(bytes ? { bytes } : {}),
        files: files.length,
      });
    }
    options.onPagesRead?.();
    for (const [shard, records] of shards.entries()) {
      if (clock.due()) yield;
      for (const rel of Object.keys(records)) {
        if (seen.has(rel)) continue;
        const before = records[rel];
        delete writable(shard)[rel];
        if (before) touched.set(rel, { before });
        stats.removed += 1;
      }
    }
  }

  const changed = dirty.size > 0;
  const write = options.readOnly !== true;
  const cacheSnapshot =
    changed && write ? saveCache(paths, shards, dirty, previous, diagnostics) : previous;
  if (changed && write && previous.stamps.every((stamp) => stamp === "")) removeLegacyCache(paths);
  /**
   * Brings the summary and the name table on disk in step with `registry`
   * (see registry-summary-sync.ts) and, when its `names` object is new,
   * answers name lookups from that table instead of building one from
   * every page.
   */
  const withSummary = (registry: Registry, newNames: boolean): Registry => {
    if (!write) return registry;
    const summary = syncSummary({
      paths,
      shards,
      stamps: cacheSnapshot.stamps,
      previousStamps: previous.stamps,
      changes: new Map([...touched, ...restamped]),
      pages: registry.pages,
      ...(folders ? { folders } : {}),
      ...(last?.snapshot.summary ? { known: last.snapshot.summary } : {}),
      relations: registry.snapshot.relationsStamp,
    });
    if (!summary) return registry;
    if (newNames) {
      const table = savedNameTable(paths, summary.summary.names, () =>
        buildNameTable(registry.pages),
      );
      if (table) adoptNameTable(registry.names, table);
    }
    return { ...registry, snapshot: { ...registry.snapshot, summary } };
  };
  // The vault's kind and id decide which resolution records count: a changed
  // `vault_id` derives the relation graph anew instead of reusing the last.
  const vaultKey = decisionVaultOf(paths);
  const sameVault = current?.snapshot.relationGraph.vault === vaultKey;
  if (current && touched.size === 0 && sameVault) {
    // No page moved since the last refresh: same pages, links and names.
    collectDiagnostics(shards, diagnostics);
    return withSummary(
      {
        ...current,
        diagnostics,
        stats,
        snapshot: {
          cache: cacheSnapshot,
          graph: current.snapshot.graph,
          relationGraph: current.snapshot.relationGraph,
          relationsStamp: current.snapshot.relationsStamp,
        },
      },
      false,
    );
  }
  // Pages, hashes and roles moved only where a record did: what the index plans from.
  const delta: RegistryDelta | undefined = current
    ? { from: current.revision, ids: new Set([...touched.keys()].map(idOf)) }
    : undefined;
  const patched = current && sameVault ? patchRegistry(current, touched) : undefined;
  if (patched) {
    collectDiagnostics(shards, diagnostics);
    if (patched.linksMoved && write)
      writeBacklinks(paths, patched.graph.backlinks, diagnostics, true);
    return withSummary(
      {
        ...patched.registry,
        revision: {},
        ...(delta ? { delta } : {}),
        diagnostics,
        stats,
        snapshot: {
          cache: cacheSnapshot,
          graph: patched.graph,
          relationGraph: patched.relationGraph,
          // Saved again only when an edge or a resolution moved.
          relationsStamp:
            current && patched.relationGraph === current.snapshot.relationGraph
              ? current.snapshot.relationsStamp
              : write
                ? saveRelations(paths, patched.relationGraph.toSaved())
                : "",
        },
      },
      patched.registry.names !== current?.names,
    );
  }

  const records = shards
    .flatMap((recs) => Object.entries(recs))
    .map(([rel, rec]) => ({ id: idOf(rel), rec }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const pages = new Map<string, PageMeta>();
  const hashes = new Map<string, string>();
  const secretPages = new Set<string>();
  const outgoing = new Map<string, RawLink[]>();
  for (const { rec } of records) {
    if (clock.due()) yield;
    if (rec.diagnostics) diagnostics.push(...rec.diagnostics);
    if (rec.meta) {
      pages.set(rec.meta.id, rec.meta);
      hashes.set(rec.meta.id, rec.hash);
      if (rec.secrets) secretPages.add(rec.meta.id);
      outgoing.set(rec.meta.id, rec.links ?? []);
    }
  }
  // A page added or removed re-resolves the links its id can change, when
  // the graph of the registry in hand can be taken over; else a whole build.
  const { graph, linksMoved } =
    current && sameVault
      ? patchLinkGraphIds(current.snapshot.graph, outgoing, ...idChanges(touched))
      : { graph: yield* buildLinkGraphSteps(outgoing, clock), linksMoved: false };
  const relationGraph = DerivedRelationGraph.build(
    pages,
    graph.links,
    vaultKey,
    linkTargets(graph.resolver),
  );
  // A cache that was complete and unchanged was written with its backlinks:
  // a fresh process reading it need not compare megabytes to find that out.
  if (write && (changed || touched.size > 0 || !existsSync(paths.backlinks))) {
    writeBacklinks(paths, graph.backlinks, diagnostics, linksMoved);
  }
  return withSummary(
    {
      pages,
      hashes,
      secretPages,
      links: graph.links,
      backlinks: graph.backlinks,
      linkProblems: graph.linkProblems,
      relations: relationGraph,
      diagnostics,
      stats,
      names: {},
      revision: {},
      ...(delta ? { delta } : {}),
      snapshot: {
        cache: cacheSnapshot,
        graph,
        relationGraph,
        relationsStamp: write ? saveRelations(paths, relationGraph.toSaved()) : "",
      },
    },
    true,
  );
}

/** The pages `touched` added, removed and edited (accepted before and after), by id. */
function idChanges(touched: Map<string, RecordChange>): [string[], string[], string[]] {
  const added: string[] = [];
  const removed: string[] = [];
  const edited: string[] = [];
  for (const { before, after } of touched.values()) {
    const was = before?.meta?.id;
    const now = after?.meta?.id;
    if (was !== undefined && now !== undefined) edited.push(now);
    else if (now !== undefined) added.push(now);
    else if (was !== undefined) removed.push(was);
  }
  return [added, removed, edited];
}

function countNew(touched: Map<string, RecordChange>): number {
  let n = 0;
  for (const change of touched.values()) if (!change.before) n += 1;
  return n;
}

/**
 * Each shard's record diagnostics, by the shard's records object: a refresh
 * copies only the shards it changes, so the others' lists are reused, not
 * gathered again from every record.
 */
const shardDiagnostics = new WeakMap<ShardRecords, Diagnostic[]>();

function collectDiagnostics(shards: ShardRecords[], into: Diagnostic[]): void {
  for (const records of shards) {
    let found = shardDiagnostics.get(records);
    if (!found) {
      found = [];
      for (const rec of Object.values(records)) if (rec.diagnostics) found.push(...rec.diagnostics);
      shardDiagnostics.set(records, found);
    }
    into.push(...found);
  }
}

function sameNames(a: PageMeta, b: PageMeta): boolean {
  const x = pageNames(a);
  const y = pageNames(b);
  return x.length === y.length && x.every((name, i) => name === y[i]);
}

/**
 * `last` with the touched pages' metadata and links replaced, when the set of
 * accepted page ids is unchanged (a page added, removed, or turned malformed
 * or valid changes what every link resolves to: the caller builds anew).
 * `last`'s maps are taken over and changed in place: copying them cost more
 * than the change itself (tens of milliseconds each at 100k pages), and the
 * registry passed to a refresh is the one it replaces.
 */
function patchRegistry(
  last: Registry,
  touched: Map<string, RecordChange>,
):
  | {
      registry: Omit<Registry, "diagnostics" | "stats" | "snapshot" | "revision" | "delta">;
      graph: LinkGraph;
      relationGraph: DerivedRelationGraph;
      linksMoved: boolean;
    }
  | undefined {
  for (const { before, after } of touched.values()) {
    if (!before?.meta || !after?.meta) return undefined;
  }
  const { pages, hashes, secretPages } = last;
  const changedLinks = new Map<string, readonly RawLink[]>();
  let names = last.names;
  for (const { before, after } of touched.values()) {
    if (!before?.meta || !after?.meta) continue;
    pages.set(after.meta.id, after.meta);
    hashes.set(after.meta.id, after.hash);
    if (after.secrets) secretPages.add(after.meta.id);
    else secretPages.delete(after.meta.id);
    changedLinks.set(after.meta.id, after.links ?? []);
    if (!sameNames(before.meta, after.meta)) names = {};
  }
  const { graph, linksMoved } = patchLinkGraph(last.snapshot.graph, changedLinks);
  // Only the changed pages' own relations can move: a relation counts by its
  // page's body links, and no target came or went.
  const relationGraph = last.snapshot.relationGraph.patch(
    pages,
    graph.links,
    changedLinks.keys(),
    linkTargets(graph.resolver),
  );
  return {
    registry: {
      pages,
      hashes,
      secretPages,
      links: graph.links,
      backlinks: graph.backlinks,
      linkProblems: graph.linkProblems,
      relations: relationGraph,
      names,
    },
    graph,
    relationGraph,
    linksMoved,
  };
}

/**
 * Writes `meta/backlinks.json` (keys sorted) unless it already reads the
 * same; `moved`: a resolved link is known to have moved, so it cannot.
 */
function writeBacklinks(
  paths: VaultPaths,
  backlinks: Map<string, string[]>,
  diagnostics: Diagnostic[],
  moved = false,
): void {
  const text = backlinksText(backlinks);
  try {
    if (!moved && readFileSync(paths.backlinks, "utf8") === text) return;
  } catch {
    // Absent: write it.
  }
  try {
    writeFileAtomic(paths.backlinks, text);
  } catch (error) {
    diagnostics.push(
      diagnostic(
        "registry_write_failed",
        "warning",
        `could not write ${paths.backlinks}: ${errorMessage(error)}`,
      ),
    );
  }
}
