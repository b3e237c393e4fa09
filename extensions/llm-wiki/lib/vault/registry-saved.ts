/**
 * The registry as last saved, read lazily: what a fresh process needs for
 * its first recall without walking `wiki/` or parsing the whole cache. It
 * opens only while `summary.json` still describes every shard and name file
 * on disk, and every `wiki/` folder is as the last walk of every page found
 * it (no page added, removed or renamed since; a stat of each). A page's
 * record is then found in its shard file on first use (a bisection of its
 * sorted keys, registry-shard-seek.ts), and names come
 * from the name table kept on disk. Anything that iterates the pages loads every
 * shard, so every answer is the one the full registry as last saved gives.
 * A page edited in place since is not seen: only a walk of every page
 * (`refreshRegistry`) finds that.
 *
 * The relation graph is read on its first question from `relations.json`,
 * which the last refresh saved and the summary stamps (a few kilobytes,
 * not every shard: the MCP server's first recalls stay fast). Should that
 * file not be as stamped, the graph is derived from every shard's records
 * instead (their raw links resolved as the full registry resolves them),
 * which costs what iterating the pages costs. Either way opening pays
 * nothing for it.
 */
import { join } from "node:path";
import { adoptNameTable, buildNameTable } from "../name-match.ts";
import { decisionVaultOf } from "./config.ts";
import type { RawLink } from "./links.ts";
import type { PageMeta } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
import {
  fileStamp,
  REGISTRY_SHARDS,
  type RegistryRecord,
  readShardAt,
  recordInShardFile,
  type ShardRecords,
  shardStamp,
} from "./registry-cache.ts";
import { buildLinkGraph } from "./registry-links.ts";
import { nameStampsNow, savedNameTable } from "./registry-names.ts";
import { type RegistrySummary, readSummary } from "./registry-summary.ts";
import {
  DerivedRelationGraph,
  lazyRelationGraph,
  linkTargets,
  savedRelationGraph,
} from "./relation-graph.ts";
import { openSavedRelations, SavedRelationsInvalid } from "./relation-graph-file.ts";
import type { RelationGraph } from "./relations.ts";
import { idOf } from "./wiki-walk.ts";

/** What a recall reads of a registry; a full `Registry` is one too. */
export interface RecallRegistry {
  pages: ReadonlyMap<string, PageMeta>;
  hashes: ReadonlyMap<string, string>;
  secretPages: ReadonlySet<string>;
  /** Identifies the set of names (see name-match.ts). */
  names: object;
  /** Typed relations that count and the edges of active resolutions (relation-graph.ts). */
  relations: RelationGraph;
}

/** The registry as last saved, and the summary it was opened by. */
export interface SavedRegistry extends RecallRegistry {
  summary: RegistrySummary;
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A read-only map that answers single lookups from `one` and anything else from `all`. */
class LazyMap<V> implements ReadonlyMap<string, V> {
  readonly size: number;
  private readonly one: (key: string) => V | undefined;
  private readonly all: () => ReadonlyMap<string, V>;

  constructor(
    size: number,
    one: (key: string) => V | undefined,
    all: () => ReadonlyMap<string, V>,
  ) {
    this.size = size;
    this.one = one;
    this.all = all;
  }

  get(key: string): V | undefined {
    return this.one(key);
  }

  has(key: string): boolean {
    return this.one(key) !== undefined;
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.all()) fn(value, key, this);
  }

  entries(): MapIterator<[string, V]> {
    return this.all().entries();
  }

  keys(): MapIterator<string> {
    return this.all().keys();
  }

  values(): MapIterator<V> {
    return this.all().values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.all()[Symbol.iterator]();
  }
}

/** A read-only set that answers `has` from `one` and anything else from `all`. */
class LazySet implements ReadonlySet<string> {
  private readonly one: (key: string) => boolean;
  private readonly all: () => ReadonlySet<string>;

  constructor(one: (key: string) => boolean, all: () => ReadonlySet<string>) {
    this.one = one;
    this.all = all;
  }

  get size(): number {
    return this.all().size;
  }

  has(key: string): boolean {
    return this.one(key);
  }

  forEach(fn: (value: string, key: string, set: ReadonlySet<string>) => void): void {
    for (const value of this.all()) fn(value, value, this);
  }

  entries(): SetIterator<[string, string]> {
    return this.all().entries();
  }

  keys(): SetIterator<string> {
    return this.all().keys();
  }

  values(): SetIterator<string> {
    return this.all().values();
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.all()[Symbol.iterator]();
  }
}

/**
 * Opens the registry as last saved, or undefined when there is no summary
 * or a shard or name file is no longer as it describes (another process,
 * or an older llm-wiki, wrote the cache since): refresh the registry then.
 */
export function openSavedRegistry(paths: VaultPaths): SavedRegistry | undefined {
  const state = readSummary(paths);
  if (!state) return undefined;
  const { summary } = state;
  if (summary.folders === null || summary.folders.length === 0) return undefined;
  for (const [rel, stamp] of summary.folders) {
    if (fileStamp(join(paths.dir, rel)) !== stamp) return undefined;
  }
  for (let i = 0; i < REGISTRY_SHARDS; i += 1) {
    if (shardStamp(paths, i) !== summary.shards[i]) return undefined;
  }
  const names = nameStampsNow(paths, summary.names.length - 1);
  if (names.some((stamp, i) => stamp !== summary.names[i])) return undefined;

  const found = new Map<string, RegistryRecord | undefined>();
  /** The accepted page `id`'s record, sought in its shard file on first use. */
  const recordOf = (id: string): RegistryRecord | undefined => {
    if (found.has(id)) return found.get(id);
    const rel = `wiki/${id}.md`;
    const rec = recordInShardFile(paths, rel);
    const accepted = rec?.meta?.path === rel ? rec : undefined;
    found.set(id, accepted);
    return accepted;
  };
  let full:
    | {
        pages: Map<string, PageMeta>;
        hashes: Map<string, string>;
        secrets: Set<string>;
        /** Raw links of the pages that declare relations or state conflicts (only theirs make edges). */
        relationLinks: Map<string, readonly RawLink[]>;
      }
    | undefined;
  /** Every page, as the full registry lists them (id order). */
  const everything = () => {
    if (full) return full;
    const all: Array<[string, RegistryRecord]> = [];
    for (let i = 0; i < REGISTRY_SHARDS; i += 1) {
      const records: ShardRecords = readShardAt(paths, i);
      for (const [rel, rec] of Object.entries(records)) {
        if (rec.meta) all.push([idOf(rel), rec]);
      }
    }
    all.sort((a, b) => byId(a[0], b[0]));
    full = { pages: new Map(), hashes: new Map(), secrets: new Set(), relationLinks: new Map() };
    for (const [id, rec] of all) {
      full.pages.set(id, rec.meta as PageMeta);
      full.hashes.set(id, rec.hash);
      if (rec.secrets) full.secrets.add(id);
      if (rec.meta?.relations || rec.meta?.textConflicts)
        full.relationLinks.set(id, rec.links ?? []);
    }
    return full;
  };
  /** The relation graph the full registry as last saved has. */
  const relations = (): RelationGraph => {
    const saved = openSavedRelations(paths, summary.relations);
    const vault = decisionVaultOf(paths);
    if (!saved) return derived(vault);
    const graph = savedRelationGraph(
      saved.declared,
      saved.resolutions,
      (id) => recordOf(id) !== undefined,
      vault,
    );
    return trustedUntilInvalid(graph, () => derived(vault));
  };
  /** The relation graph derived from every shard's records, as the full registry derives it. */
  const derived = (vault: string): RelationGraph => {
    const { pages, relationLinks } = everything();
    // Every id resolves links; only pages with relations need theirs resolved.
    const outgoing = new Map<string, readonly RawLink[]>();
    for (const id of pages.keys()) outgoing.set(id, relationLinks.get(id) ?? []);
    const graph = buildLinkGraph(outgoing);
    return DerivedRelationGraph.build(pages, graph.links, vault, linkTargets(graph.resolver));
  };

  const pages = new LazyMap<PageMeta>(
    summary.pages,
    (id) => recordOf(id)?.meta,
    () => everything().pages,
  );
  const view: SavedRegistry = {
    summary,
    pages,
    hashes: new LazyMap<string>(
      summary.pages,
      (id) => recordOf(id)?.hash,
      () => everything().hashes,
    ),
    secretPages: new LazySet(
      (id) => recordOf(id)?.secrets === true,
      () => everything().secrets,
    ),
    names: {},
    relations: lazyRelationGraph(relations),
  };
  const table = savedNameTable(paths, summary.names, () => buildNameTable(everything().pages));
  if (!table) return undefined;
  adoptNameTable(view.names, table);
  return view;
}

/**
 * `graph` (read from the saved file as asked) until a line of that file is
 * found malformed; from then on, and for the question that found it, the
 * graph `derive` builds from the records.
 */
function trustedUntilInvalid(graph: RelationGraph, derive: () => RelationGraph): RelationGraph {
  let current = graph;
  const ask = <T>(question: (g: RelationGraph) => T): T => {
    try {
      return question(current);
    } catch (error) {
      if (!(error instanceof SavedRelationsInvalid) || current !== graph) throw error;
      current = derive();
      return question(current);
    }
  };
  return {
    outgoing: (id) => ask((g) => g.outgoing(id)),
    incoming: (id) => ask((g) => g.incoming(id)),
    activeResolution: (a, b) => ask((g) => g.activeResolution(a, b)),
  };
}
