/**
 * The vault's relation graph (see `RelationGraph` in relations.ts), derived
 * with the registry from its pages and resolved outgoing links. A declared
 * relation becomes an edge only when its type is known, its target is a
 * page, not the page itself, and the page's body links the target: a
 * relation nobody can follow in the text is not trusted. Active user
 * resolutions add an edge selected → other; only records that match the id
 * they were recorded under in this vault count (`resolutionMismatch`), so
 * the graph knows its vault's `decisionVault` key. Built whole when the set
 * of pages changes; patched page by page otherwise, with the same result.
 *
 * A conflict a page states as text (`> Contradiction: … [[page]]`, see
 * text-conflicts.ts) is an unresolved `contradicts` edge from that page to
 * each page it links (`origin: "text"`), unless the page declares that
 * relation itself. Where the other page declares `contradicts` back, or
 * states it as text too and comes first in id order, the pair already has
 * its edge: `outgoing` and `incoming` leave the text edge out, so a
 * conflict is one conflict whichever way it was written.
 */
import type { LinkResolver } from "./links.ts";
import type { PageMeta } from "./page.ts";
import {
  isKnownRelationType,
  normaliseScope,
  type Relation,
  type RelationEdge,
  type RelationGraph,
  type Resolution,
} from "./relations.ts";
import { activeResolutions, pairKey, type RecordedResolution } from "./resolutions.ts";

/** What the graph reads of a page. */
export type RelationPage = Pick<PageMeta, "id" | "relations" | "resolution" | "textConflicts">;

/** A link target as written, as the page id it resolves to (undefined: none, or ambiguous). */
export type TargetResolver = (target: string) => string | undefined;

/** `resolver` (a registry's, built for its page ids) as a `TargetResolver`. */
export function linkTargets(resolver: LinkResolver): TargetResolver {
  return (target) => {
    const r = resolver.resolve(target);
    return r.status === "resolved" ? r.id : undefined;
  };
}

/** Why a declared relation makes no edge (lint reports each). */
export type RelationProblem =
  | "unknown_type"
  | "self"
  | "missing_target"
  | "missing_body_link"
  | "duplicate";

/** One declared relation as judged: the edge it makes, or why it makes none. */
export interface JudgedRelation {
  relation: Relation;
  /** 0-based position in the page's `relations` list. */
  index: number;
  edge?: RelationEdge;
  problem?: RelationProblem;
}

/** Strings in code-unit order, the order every saved list of the graph keeps. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Order of one page's edges: by the other end, then type, scope and resolution. */
function edgeOrder(end: "to" | "from"): (a: RelationEdge, b: RelationEdge) => number {
  return (a, b) =>
    compareText(a[end], b[end]) ||
    compareText(a.type, b.type) ||
    compareText(a.scope ?? "", b.scope ?? "") ||
    compareText(a.resolution ?? "", b.resolution ?? "");
}
/** A page's outgoing edges in stable order: by target, then type, scope and resolution. */
export const byTo = edgeOrder("to");
/** A page's incoming edges in stable order: by source, then type, scope and resolution. */
export const byFrom = edgeOrder("from");

/**
 * Every declared relation of `page` judged against the pages that exist and
 * the page's resolved outgoing links (`links`). The first of several
 * equivalent relations (same target and type, scopes equal once
 * normalised) makes the edge; the others are duplicates.
 */
export function judgeRelations(
  page: RelationPage,
  exists: (id: string) => boolean,
  links: readonly string[],
): JudgedRelation[] {
  const seen = new Set<string>();
  return (page.relations ?? []).map((relation, index): JudgedRelation => {
    const { target, type, scope } = relation;
    const judged = (problem: RelationProblem): JudgedRelation => ({ relation, index, problem });
    if (!isKnownRelationType(type)) return judged("unknown_type");
    if (target === page.id) return judged("self");
    if (!exists(target)) return judged("missing_target");
    if (!links.includes(target)) return judged("missing_body_link");
    const key = `${target}\u0000${type}\u0000${normaliseScope(scope ?? "")}`;
    if (seen.has(key)) return judged("duplicate");
    seen.add(key);
    const edge: RelationEdge = { from: page.id, to: target, type };
    if (scope !== undefined) edge.scope = scope;
    return { relation, index, edge };
  });
}

/**
 * The `contradicts` edges of the conflicts `page` states as text: one per
 * page its markers link that exists and is not the page itself, none where
 * `declared` (the page's counted relations) already says `contradicts`.
 */
export function textConflictEdges(
  page: RelationPage,
  exists: (id: string) => boolean,
  resolve: TargetResolver,
  declared: readonly RelationEdge[] = [],
): RelationEdge[] {
  const seen = new Set(declared.filter((e) => e.type === "contradicts").map((e) => e.to));
  const out: RelationEdge[] = [];
  for (const raw of page.textConflicts ?? []) {
    const to = resolve(raw);
    if (to === undefined || to === page.id || !exists(to) || seen.has(to)) continue;
    seen.add(to);
    out.push({ from: page.id, to, type: "contradicts", origin: "text" });
  }
  return out;
}

/** The edges `page` declares that count, typed or as text, in stable order. */
function declaredEdges(
  page: RelationPage | undefined,
  exists: (id: string) => boolean,
  links: readonly string[],
  resolve: TargetResolver,
): RelationEdge[] {
  if (!page || (!page.relations && !page.textConflicts)) return [];
  const typed = page.relations
    ? judgeRelations(page, exists, links).flatMap((j) => (j.edge ? [j.edge] : []))
    : [];
  if (!page.textConflicts) return typed.sort(byTo);
  return [...typed, ...textConflictEdges(page, exists, resolve, typed)].sort(byTo);
}

/** Resolves a target only when it is a page id exactly (for callers without a link resolver). */
function exactIds(exists: (id: string) => boolean): TargetResolver {
  return (target) => (exists(target) ? target : undefined);
}

/** Appends `edge` to the list of `key` in `map`. */
export function addTo(map: Map<string, RelationEdge[]>, key: string, edge: RelationEdge): void {
  const list = map.get(key);
  if (list) list.push(edge);
  else map.set(key, [edge]);
}

/** The edges of the active resolutions whose two pages exist, by `from` and by `to`. */
function resolutionEdges(
  active: ReadonlyMap<string, RecordedResolution>,
  exists: (id: string) => boolean,
): { out: Map<string, RelationEdge[]>; in: Map<string, RelationEdge[]> } {
  const out = new Map<string, RelationEdge[]>();
  const incoming = new Map<string, RelationEdge[]>();
  for (const { page, resolution: r } of active.values()) {
    if (!exists(r.selected) || !exists(r.other)) continue;
    const edge: RelationEdge = {
      from: r.selected,
      to: r.other,
      type: r.relation,
      resolution: page,
    };
    if (r.scope !== undefined) edge.scope = r.scope;
    addTo(out, edge.from, edge);
    addTo(incoming, edge.to, edge);
  }
  for (const list of out.values()) list.sort(byTo);
  for (const list of incoming.values()) list.sort(byFrom);
  return { out, in: incoming };
}

/** Two sorted lists as one sorted list. */
function merged(
  a: readonly RelationEdge[] | undefined,
  b: readonly RelationEdge[] | undefined,
  order: (x: RelationEdge, y: RelationEdge) => number,
): readonly RelationEdge[] {
  if (!a || a.length === 0) return b ?? [];
  if (!b || b.length === 0) return a;
  return [...a, ...b].sort(order);
}

function sameResolution(a: Resolution | undefined, b: Resolution | undefined): boolean {
  if (!a || !b) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A relation graph as written to disk (see relation-graph-file.ts). */
export interface SavedRelations {
  /** Counted declared edges (never resolution edges). */
  edges: RelationEdge[];
  /** Resolution page id → its record. */
  resolutions: Array<[string, Resolution]>;
}

interface GraphParts {
  /** The vault's `decisionVault` key: which resolution records are honoured. */
  vault: string;
  /** Counted declared edges by declaring page (pages with none are absent). */
  declared: Map<string, RelationEdge[]>;
  /** The same edges by target. */
  declaredIn: Map<string, RelationEdge[]>;
  /** The resolution each resolution page records. */
  resolutions: Map<string, Resolution>;
  active: Map<string, RecordedResolution>;
  resolvedOut: Map<string, RelationEdge[]>;
  resolvedIn: Map<string, RelationEdge[]>;
}

/**
 * The relation graph as derived for one registry: answers `RelationGraph`
 * and patches into the graph of the next registry. Never changed once made
 * (a registry handed out stays as it was).
 */
export class DerivedRelationGraph implements RelationGraph {
  private readonly parts: GraphParts;
  private readonly lookup: DeclaredLookup;

  private constructor(parts: GraphParts) {
    this.parts = parts;
    this.lookup = { from: (id) => parts.declared.get(id), to: (id) => parts.declaredIn.get(id) };
  }

  /**
   * The graph of `pages` (every accepted page, by id) and their resolved
   * outgoing `links`, in the vault whose `decisionVault` key is `vault`;
   * `resolve` resolves the targets of text-form conflicts as links resolve.
   */
  static build(
    pages: ReadonlyMap<string, RelationPage>,
    links: ReadonlyMap<string, readonly string[]>,
    vault: string,
    resolve?: TargetResolver,
  ): DerivedRelationGraph {
    const exists = (id: string) => pages.has(id);
    const resolveTarget = resolve ?? exactIds(exists);
    const declared = new Map<string, RelationEdge[]>();
    const declaredIn = new Map<string, RelationEdge[]>();
    const resolutions = new Map<string, Resolution>();
    for (const page of pages.values()) {
      if (page.resolution) resolutions.set(page.id, page.resolution);
      const edges = declaredEdges(page, exists, links.get(page.id) ?? [], resolveTarget);
      if (edges.length === 0) continue;
      declared.set(page.id, edges);
      for (const edge of edges) addTo(declaredIn, edge.to, edge);
    }
    for (const list of declaredIn.values()) list.sort(byFrom);
    return DerivedRelationGraph.withResolutions(
      { vault, declared, declaredIn, resolutions },
      exists,
    );
  }

  private static withResolutions(
    parts: Pick<GraphParts, "vault" | "declared" | "declaredIn" | "resolutions">,
    exists: (id: string) => boolean,
  ): DerivedRelationGraph {
    const active = activeResolutions(
      [...parts.resolutions].map(([id, resolution]) => ({ id, resolution })),
      parts.vault,
    );
    const edges = resolutionEdges(active, exists);
    return new DerivedRelationGraph({
      ...parts,
      active,
      resolvedOut: edges.out,
      resolvedIn: edges.in,
    });
  }

  /**
   * This graph with the pages `changed` read anew from `pages` and `links`
   * (the next registry's). The set of page ids must be the one this graph
   * was built for: a page added or removed changes which targets exist,
   * so build anew then. Costs what the changed pages' edges cost, plus the
   * vault's resolution pages when one of the changed pages is one. Returns
   * this same graph when no edge and no resolution moved.
   */
  patch(
    pages: ReadonlyMap<string, RelationPage>,
    links: ReadonlyMap<string, readonly string[]>,
    changed: Iterable<string>,
    resolve?: TargetResolver,
  ): DerivedRelationGraph {
    const exists = (id: string) => pages.has(id);
    const resolveTarget = resolve ?? exactIds(exists);
    // Copied on the first change: an edit that moves no edge costs no copy.
    let declared = this.parts.declared;
    let declaredIn = this.parts.declaredIn;
    let resolutions = this.parts.resolutions;
    for (const id of changed) {
      const page = pages.get(id);
      if (!sameResolution(resolutions.get(id), page?.resolution)) {
        if (resolutions === this.parts.resolutions) resolutions = new Map(resolutions);
        if (page?.resolution) resolutions.set(id, page.resolution);
        else resolutions.delete(id);
      }
      const before = declared.get(id) ?? [];
      const after = declaredEdges(page, exists, links.get(id) ?? [], resolveTarget);
      if (JSON.stringify(before) === JSON.stringify(after)) continue;
      if (declared === this.parts.declared) {
        declared = new Map(declared);
        declaredIn = new Map(declaredIn);
      }
      if (after.length > 0) declared.set(id, after);
      else declared.delete(id);
      const targets = new Set([...before, ...after].map((e) => e.to));
      for (const to of targets) {
        const rest = (declaredIn.get(to) ?? []).filter((e) => e.from !== id);
        const list = [...rest, ...after.filter((e) => e.to === to)].sort(byFrom);
        if (list.length > 0) declaredIn.set(to, list);
        else declaredIn.delete(to);
      }
    }
    if (resolutions === this.parts.resolutions) {
      if (declared === this.parts.declared) return this;
      return new DerivedRelationGraph({ ...this.parts, declared, declaredIn });
    }
    return DerivedRelationGraph.withResolutions(
      { vault: this.parts.vault, declared, declaredIn, resolutions },
      exists,
    );
  }

  /** The `decisionVault` key this graph honours resolutions for. */
  get vault(): string {
    return this.parts.vault;
  }

  /**
   * What `savedRelationGraph` needs to answer as this graph does: the counted declared
   * edges (by page, then target) and each resolution page's record.
   */
  toSaved(): SavedRelations {
    const edges = [...this.parts.declared.keys()]
      .sort(compareText)
      .flatMap((id) => this.parts.declared.get(id) ?? []);
    const resolutions = [...this.parts.resolutions].sort((a, b) => compareText(a[0], b[0]));
    return { edges, resolutions };
  }

  outgoing(id: string): readonly RelationEdge[] {
    return outgoingOf(this.lookup, this.parts.resolvedOut, id);
  }

  incoming(id: string): readonly RelationEdge[] {
    return incomingOf(this.lookup, this.parts.resolvedIn, id);
  }

  activeResolution(a: string, b: string): RecordedResolution | undefined {
    return this.parts.active.get(pairKey(a, b));
  }
}

/** Counted declared edges by page, however held: maps in a derived graph, a file's lines in a saved one. */
export interface DeclaredLookup {
  /** The edges page `id` declares, in `byTo` order. */
  from(id: string): readonly RelationEdge[] | undefined;
  /** The edges declared towards page `id`, in `byFrom` order. */
  to(id: string): readonly RelationEdge[] | undefined;
}

function outgoingOf(
  declared: DeclaredLookup,
  resolved: ReadonlyMap<string, RelationEdge[]>,
  id: string,
): readonly RelationEdge[] {
  return merged(standing(declared, declared.from(id)), resolved.get(id), byTo);
}

function incomingOf(
  declared: DeclaredLookup,
  resolved: ReadonlyMap<string, RelationEdge[]>,
  id: string,
): readonly RelationEdge[] {
  return merged(standing(declared, declared.to(id)), resolved.get(id), byFrom);
}

/**
 * `edges` without the text edges whose pair already has its conflict edge
 * the other way round: a typed `contradicts`, or a text one from the page
 * first in id order.
 */
function standing(
  declared: DeclaredLookup,
  edges: readonly RelationEdge[] | undefined,
): readonly RelationEdge[] | undefined {
  if (!edges?.some((e) => e.origin === "text")) return edges;
  return edges.filter(
    (e) =>
      e.origin !== "text" ||
      !(declared.from(e.to) ?? []).some(
        (back) =>
          back.to === e.from &&
          back.type === "contradicts" &&
          (back.origin !== "text" || e.to < e.from),
      ),
  );
}

/**
 * The graph `DerivedRelationGraph.toSaved` described, answering from
 * `declared` as it is asked (a saved file's lines, read per page) for the
 * pages `exists` says exist (the same pages it was saved for) in vault
 * `vault`. Resolution edges are derived again (every record is kept,
 * honoured or not); there are few, and deriving them reads no edge.
 */
export function savedRelationGraph(
  declared: DeclaredLookup,
  resolutions: Iterable<[string, Resolution]>,
  exists: (id: string) => boolean,
  vault: string,
): RelationGraph {
  const active = activeResolutions(
    [...resolutions].map(([id, resolution]) => ({ id, resolution })),
    vault,
  );
  const edges = resolutionEdges(active, exists);
  return {
    outgoing: (id) => outgoingOf(declared, edges.out, id),
    incoming: (id) => incomingOf(declared, edges.in, id),
    activeResolution: (a, b) => active.get(pairKey(a, b)),
  };
}

/**
 * A graph built by `build` on its first question, for a view that should not
 * pay for it unless asked (the registry as last saved).
 */
export function lazyRelationGraph(build: () => RelationGraph): RelationGraph {
  let graph: RelationGraph | undefined;
  const get = () => {
    graph ??= build();
    return graph;
  };
  return {
    outgoing: (id) => get().outgoing(id),
    incoming: (id) => get().incoming(id),
    activeResolution: (a, b) => get().activeResolution(a, b),
  };
}
