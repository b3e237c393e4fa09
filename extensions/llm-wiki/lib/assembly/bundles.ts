/**
 * Memory assembly after retrieval: the ranked pages become bundles. Each
 * bundle is a card (a canonical page, the current one when the page found
 * was superseded) with what one typed hop admits: the drafts proposing to
 * replace it, at most two pieces of evidence, then qualifiers, the claims
 * it superseded and the claims that contradict it. Only `supports`,
 * `contradicts`, `qualifies`, `supersedes`, `applies_under` and
 * `derived_from` admit a page; a plain link or `related_to` never does. A
 * contradiction neighbour is always kept with its seed, whatever its score;
 * a draft's supersession of a stable page retires nothing until a person
 * accepts it, so the stable page stays the card and the draft is shown
 * beside it (a draft found without that page answers as its own card).
 * The pages a card lists in its `sources:` are its evidence too, after the
 * declared relations' and within the same cap.
 * Pages never repeat. No graph database: the
 * registry's relation graph answers each hop with a map lookup.
 */

import { sourcePages } from "../source-refs.ts";
import type { PageMeta } from "../vault/page.ts";
import type { RelationEdge, RelationGraph, RelationType } from "../vault/relations.ts";
import { staleDue } from "../vault/stale-after.ts";
import { supersessionCycle, supersessionWithheld } from "../vault/supersession.ts";

/** An item's place in its bundle (see `RecallItem.part`). */
export type BundlePart =
  | "card"
  | "evidence"
  | "qualifier"
  | "superseded"
  | "competing"
  | "unpromoted"
  | "proposed";

/** How an item relates to its bundle's card. */
export interface ItemRelation {
  type: RelationType;
  /** "out": the card declares the relation to this item; "in": this item declares it to the card. */
  direction: "out" | "in";
  /** Set when the relation is a user's resolution: the resolution page's id. */
  resolution?: string;
  /**
   * "text": a conflict the page states as text (`> Contradiction: …`), not a
   * typed relation. "sources": a page the card lists in its `sources:`.
   */
  origin?: "text" | "sources";
  /**
   * A declared relation recall does not honour until a person accepts it: a
   * draft's `supersedes` of a stable page (vault/supersession.ts).
   */
  pending?: true;
}

/** One vault as assembly sees it. */
export interface AssemblyVault {
  kind: "project" | "personal";
  pages: ReadonlyMap<string, PageMeta>;
  /** Undefined for a vault whose relation graph is not available: pages stay flat. */
  relations?: RelationGraph;
  /** The registry's `names` object, under which the name table `sources:` resolve through is cached. */
  names?: object;
}

/** A ranked page from retrieval (only what assembly reads). */
export interface Seed {
  id: string;
  vault: "project" | "personal";
  role: "canonical" | "evidence";
}

export interface AssemblyOptions {
  /** Most bundles to return. */
  maxBundles: number;
  /**
   * Automatic recall: at most two cards of one type, and unpromoted evidence
   * only when no card ranked above it. Explicit recall keeps every card and
   * the ranked evidence in its place.
   */
  automatic: boolean;
  /** False: the ranked list as retrieved, each page its own bundle (labels only, no packing rule). */
  expand: boolean;
  now: Date;
  /**
   * False: a card's `sources:` are not brought in as its evidence. Priming
   * orients a session with several cards in a small block; a card's sources
   * there pushed the other cards out.
   */
  listedSources?: boolean;
}

export interface AssembledItem {
  id: string;
  vault: "project" | "personal";
  bundle: number;
  part: BundlePart;
  /** Index of the seed in the ranked list, when retrieval found this page. */
  seed?: number;
  /**
   * On a bundle's head and card: the index of the seed that opened the
   * bundle (the card may be that seed's successor, or the card its evidence backs).
   */
  opener?: number;
  relation?: ItemRelation;
  freshness: "current" | "stale" | "historical";
  /** For a historical item: the page that supersedes it. */
  successor?: string;
  /**
   * Who said so: for a historical item, the page that declared the
   * supersession (its successor, or a resolution page); for an item a
   * resolution admitted, that resolution page. With the page's date.
   */
  declaredBy?: Declaration;
  /** The scope of the relation that admitted it (`applies_under`), or of its own declared scope. */
  scope?: string;
  /**
   * For a draft that declares it supersedes stable pages: those pages. It
   * is their proposed replacement; they stay current until a person decides.
   */
  proposes?: string[];
}

/** A page that declared a supersession or recorded a resolution, and its date. */
export interface Declaration {
  page: string;
  /** The page's `updated`, else `created` date (a resolution's decision date when it has neither). */
  date?: string;
}

export interface AssembledConflict {
  vault: "project" | "personal";
  a: string;
  b: string;
}

export interface Assembly {
  items: AssembledItem[];
  conflicts: AssembledConflict[];
}

/** Most superseding steps followed from a page to the current claim (a cycle stops earlier). */
const MAX_SUCCESSION = 8;
/** Most pieces of evidence under one card. */
export const MAX_EVIDENCE = 2;
/** Most qualifiers under one card. */
export const MAX_QUALIFIERS = 2;
/** Most proposed replacements (drafts that would supersede the card) under one card. */
export const MAX_PROPOSALS = 2;
/** Automatic recall: most cards of one page type. */
export const AUTOMATIC_TYPE_CAP = 2;
/** Relations whose meaning between a pair an active user resolution replaces. */
const RESOLVED_KINDS: ReadonlySet<string> = new Set([
  "supersedes",
  "contradicts",
  "qualifies",
  "applies_under",
]);

/**
 * Whether the declared supersession `e` waits for a person: its declarer is
 * less established than the page it would retire, or the two supersede each
 * other through a cycle (vault/supersession.ts).
 */
function withheld(v: AssemblyVault, e: RelationEdge): boolean {
  const graph = v.relations;
  if (!graph) return false;
  if (supersessionWithheld(v.pages.get(e.from), v.pages.get(e.to))) return true;
  return supersessionCycle(e.from, e.to, (id) =>
    graph
      .outgoing(id)
      .filter(
        (x) =>
          x.type === "supersedes" &&
          x.resolution === undefined &&
          graph.activeResolution(x.from, x.to) === undefined &&
          !supersessionWithheld(v.pages.get(x.from), v.pages.get(x.to)),
      )
      .map((x) => x.to),
  );
}

/**
 * Edges as they stand: a declared claim between a pair a user resolved
 * gives way to the resolution, and a supersession by a less established
 * page, or within a cycle, waits for a person (vault/supersession.ts).
 */
function standing(v: AssemblyVault, edges: readonly RelationEdge[]): RelationEdge[] {
  const graph = v.relations;
  if (!graph) return [];
  return edges.filter((e) => {
    if (e.resolution !== undefined) return true;
    if (graph.activeResolution(e.from, e.to) !== undefined && RESOLVED_KINDS.has(e.type))
      return false;
    return !(e.type === "supersedes" && withheld(v, e));
  });
}

/**
 * Declared supersessions that wait for a person (withheld, see above)
 * between two pages of the vault, with no user resolution of the pair in
 * force (a decision settles the pair).
 */
function pending(v: AssemblyVault, edges: readonly RelationEdge[]): RelationEdge[] {
  const graph = v.relations;
  if (!graph) return [];
  return edges.filter(
    (e) =>
      e.type === "supersedes" &&
      e.resolution === undefined &&
      v.pages.has(e.from) &&
      v.pages.has(e.to) &&
      graph.activeResolution(e.from, e.to) === undefined &&
      withheld(v, e),
  );
}

/** The pages `id` proposes to replace (its withheld supersessions), in id order. */
function proposedFor(v: AssemblyVault, id: string): string[] {
  const graph = v.relations;
  if (!graph) return [];
  return [...new Set(pending(v, graph.outgoing(id)).map((e) => e.to))].sort();
}

/** The pages proposing to replace `id` (withheld supersessions of it), in id order. */
function proposalsOf(v: AssemblyVault, id: string): string[] {
  const graph = v.relations;
  if (!graph) return [];
  return [...new Set(pending(v, graph.incoming(id)).map((e) => e.from))].sort();
}

/** The edge by which `id` is superseded (a resolution first, then the latest claim), if any. */
function supersedingEdge(v: AssemblyVault, id: string): RelationEdge | undefined {
  const graph = v.relations;
  if (!graph) return undefined;
  const by = standing(v, graph.incoming(id)).filter(
    (e) => e.type === "supersedes" && v.pages.has(e.from),
  );
  if (by.length === 0) return undefined;
  const date = (pid: string) => pageDate(v.pages.get(pid)) ?? "";
  by.sort(
    (x, y) =>
      Number(y.resolution !== undefined) - Number(x.resolution !== undefined) ||
      (date(y.from) > date(x.from) ? 1 : date(y.from) < date(x.from) ? -1 : 0) ||
      (x.from < y.from ? -1 : 1),
  );
  return by[0];
}

/** The page that supersedes `id`, if any. */
function successorOf(v: AssemblyVault, id: string): string | undefined {
  return supersedingEdge(v, id)?.from;
}

/** `page` as the declarer of a supersession or resolution, with its date. */
function declaration(v: AssemblyVault, page: string): Declaration {
  const meta = v.pages.get(page);
  const date = pageDate(meta) ?? meta?.resolution?.decidedAt.slice(0, 10);
  return date ? { page, date } : { page };
}

/** `id` and the claims that superseded it in turn, ending with the current one. */
function successionOf(v: AssemblyVault, id: string): string[] {
  const chain = [id];
  const seen = new Set(chain);
  for (let i = 0; i < MAX_SUCCESSION; i += 1) {
    const next = successorOf(v, chain[chain.length - 1] as string);
    if (next === undefined || seen.has(next)) break;
    chain.push(next);
    seen.add(next);
  }
  return chain;
}

/** A page's date for labels and tie-breaks: `updated`, else `created`. */
export function pageDate(page: PageMeta | undefined): string | undefined {
  return page?.updated ?? page?.created;
}

/** Whether a page is past its `stale_after`. */
function isStale(page: PageMeta | undefined, now: Date): boolean {
  const due = page ? staleDue(page) : undefined;
  return due !== undefined && "due" in due && now.getTime() >= due.due.getTime();
}

/**
 * A page's freshness as recall labels it: superseded by a standing claim →
 * historical, past its `stale_after` → stale, else current (status counts
 * pages by it).
 */
export function pageFreshness(v: AssemblyVault, id: string, now: Date): AssembledItem["freshness"] {
  if (successorOf(v, id) !== undefined) return "historical";
  return isStale(v.pages.get(id), now) ? "stale" : "current";
}

/** A neighbour of the card over one standing edge, with the relation as the card sees it. */
interface Neighbour {
  id: string;
  relation: ItemRelation;
  scope?: string;
}

function neighbours(v: AssemblyVault, card: string): Neighbour[] {
  const graph = v.relations;
  if (!graph) return [];
  const out: Neighbour[] = [];
  const push = (e: RelationEdge, id: string, direction: "out" | "in") => {
    if (!v.pages.has(id) || id === card) return;
    const relation: ItemRelation = { type: e.type, direction };
    if (e.resolution !== undefined) relation.resolution = e.resolution;
    if (e.origin !== undefined) relation.origin = e.origin;
    const n: Neighbour = { id, relation };
    if (e.scope !== undefined) n.scope = e.scope;
    out.push(n);
  };
  for (const e of standing(v, graph.outgoing(card))) push(e, e.to, "out");
  for (const e of standing(v, graph.incoming(card))) push(e, e.from, "in");
  return out;
}

/**
 * The pages `card` lists in its `sources:` that name one page of its vault,
 * in the order listed, as evidence the card is derived from.
 */
function listedSources(v: AssemblyVault, card: string): Neighbour[] {
  const listed = v.pages.get(card)?.sources ?? [];
  const out: Neighbour[] = [];
  for (const ref of listed) {
    const [id, other] = sourcePages(v.pages, ref, v.names ?? v.pages);
    if (id === undefined || other !== undefined || id === card) continue;
    if (out.some((n) => n.id === id)) continue;
    out.push({ id, relation: { type: "derived_from", direction: "out", origin: "sources" } });
  }
  return out;
}

const isEvidenceEdge = (n: Neighbour) =>
  (n.relation.type === "supports" && n.relation.direction === "in") ||
  (n.relation.type === "derived_from" && n.relation.direction === "out");
const isQualifierEdge = (n: Neighbour) =>
  n.relation.type === "qualifies" || n.relation.type === "applies_under";
const isConflictEdge = (n: Neighbour) => n.relation.type === "contradicts";

/**
 * The canonical card an evidence page backs (it `supports` the card, or the
 * card is `derived_from` it), best ranked first; undefined when none.
 */
function cardBackedBy(
  v: AssemblyVault,
  evidence: string,
  rank: (id: string) => number,
): Neighbour | undefined {
  const backed = neighbours(v, evidence).filter(
    (n) =>
      v.pages.get(n.id)?.role === "canonical" &&
      ((n.relation.type === "supports" && n.relation.direction === "out") ||
        (n.relation.type === "derived_from" && n.relation.direction === "in")),
  );
  backed.sort((a, b) => rank(a.id) - rank(b.id) || (a.id < b.id ? -1 : 1));
  return backed[0];
}

/** Assembles the ranked `seeds` into bundles. */
export function assemble(
  seeds: readonly Seed[],
  vaults: ReadonlyMap<string, AssemblyVault>,
  opts: AssemblyOptions,
): Assembly {
  const key = (vault: string, id: string) => `${vault}\u0000${id}`;
  const rankOf = new Map<string, number>();
  seeds.forEach((s, i) => {
    if (!rankOf.has(key(s.vault, s.id))) rankOf.set(key(s.vault, s.id), i);
  });
  const placed = new Set<string>();
  const bundles: AssembledItem[][] = [];
  let hasCard = false;
  const conflicts: AssembledConflict[] = [];
  const cardsOfType = new Map<string, number>();

  const labelled = (
    v: AssemblyVault,
    id: string,
    part: BundlePart,
    extra: Partial<AssembledItem> = {},
  ): AssembledItem => {
    const superseding = opts.expand ? supersedingEdge(v, id) : undefined;
    const successor = superseding?.from;
    const page = v.pages.get(id);
    const item: AssembledItem = {
      id,
      vault: v.kind,
      bundle: 0,
      part,
      freshness:
        successor !== undefined ? "historical" : isStale(page, opts.now) ? "stale" : "current",
      ...extra,
    };
    const seed = rankOf.get(key(v.kind, id));
    if (seed !== undefined) item.seed = seed;
    const proposes = proposedFor(v, id);
    if (proposes.length > 0) item.proposes = proposes;
    if (superseding !== undefined) {
      item.successor = superseding.from;
      // A declared supersession is declared by the successor itself.
      item.declaredBy = declaration(v, superseding.resolution ?? superseding.from);
    } else if (item.relation?.resolution !== undefined) {
      item.declaredBy = declaration(v, item.relation.resolution);
    }
    return item;
  };

  for (const seed of seeds) {
    if (bundles.length >= opts.maxBundles) break;
    if (placed.has(key(seed.vault, seed.id))) continue;
    const v = vaults.get(seed.vault);
    if (!v) continue;
    const items: AssembledItem[] = [];
    const take = (item: AssembledItem) => {
      placed.add(key(item.vault, item.id));
      items.push(item);
    };
    if (!opts.expand) {
      take(
        labelled(v, seed.id, seed.role === "canonical" ? "card" : "unpromoted", {
          opener: rankOf.get(key(seed.vault, seed.id)) ?? 0,
        }),
      );
    } else {
      const rank = (id: string) => rankOf.get(key(v.kind, id)) ?? Number.MAX_SAFE_INTEGER;
      // A draft proposing to replace a current page the query found too
      // answers beside it: the established page stays the card. A draft
      // the query found alone answers as its own card.
      const replaced = proposedFor(v, seed.id)
        .filter(
          (id) =>
            rankOf.has(key(v.kind, id)) &&
            !placed.has(key(v.kind, id)) &&
            v.pages.get(id)?.role === "canonical" &&
            successorOf(v, id) === undefined,
        )
        .sort((a, b) => rank(a) - rank(b))[0];
      const proposer = replaced === undefined ? undefined : seed.id;
      // A superseded page answers through the claim that replaced it.
      const chain = successionOf(v, replaced ?? seed.id).filter(
        (id) => !placed.has(key(v.kind, id)),
      );
      let card = chain[chain.length - 1] ?? seed.id;
      let viaEvidence: Neighbour | undefined;
      if (v.pages.get(card)?.role === "evidence") {
        const backed = cardBackedBy(v, card, rank);
        const current = backed ? successionOf(v, backed.id).pop() : undefined;
        if (backed && current !== undefined && !placed.has(key(v.kind, current))) {
          viaEvidence = {
            id: card,
            relation: {
              ...backed.relation,
              direction: backed.relation.direction === "out" ? "in" : "out",
            },
          };
          card = current;
        }
      }
      const opener = rankOf.get(key(seed.vault, seed.id)) ?? 0;
      // Evidence the query found itself leads its bundle (the question may be
      // about the source: "RFC-007"), followed by the card it backs.
      if (viaEvidence) {
        take(labelled(v, viaEvidence.id, "evidence", { relation: viaEvidence.relation, opener }));
      }
      const cardRole = v.pages.get(card)?.role ?? seed.role;
      take(labelled(v, card, cardRole === "canonical" ? "card" : "unpromoted", { opener }));
      // Drafts that would replace the card, beside it: the draft that
      // opened the bundle always, then the best ranked, the newest first.
      const date = (id: string) => pageDate(v.pages.get(id)) ?? "";
      const proposals = proposalsOf(v, card)
        .filter((id) => id !== proposer && !placed.has(key(v.kind, id)))
        .sort(
          (a, b) =>
            rank(a) - rank(b) ||
            (date(b) > date(a) ? 1 : date(b) < date(a) ? -1 : 0) ||
            (a < b ? -1 : 1),
        );
      if (proposer !== undefined && !placed.has(key(v.kind, proposer))) proposals.unshift(proposer);
      for (const id of proposals.slice(0, MAX_PROPOSALS)) {
        take(
          labelled(v, id, "proposed", {
            relation: { type: "supersedes", direction: "in", pending: true },
          }),
        );
      }
      const around = neighbours(v, card).filter((n) => !placed.has(key(v.kind, n.id)));
      const byRank = (a: Neighbour, b: Neighbour) =>
        rank(a.id) - rank(b.id) ||
        Number(v.pages.get(b.id)?.role === "evidence") -
          Number(v.pages.get(a.id)?.role === "evidence") ||
        (a.relation.type < b.relation.type ? -1 : a.relation.type > b.relation.type ? 1 : 0) ||
        (a.id < b.id ? -1 : 1);
      // A card the query found itself gets its own bundle (and its own hop),
      // rather than being spent as another card's evidence.
      const ownCard = (n: Neighbour) =>
        v.pages.get(n.id)?.role === "canonical" && rankOf.has(key(v.kind, n.id));
      const declared = around.filter((n) => isEvidenceEdge(n) && !ownCard(n)).sort(byRank);
      // A page both declared and listed keeps its declared relation; a listed
      // page the query found ranks with the declared ones, the rest follow as listed.
      const listed = (opts.listedSources === false ? [] : listedSources(v, card)).filter(
        (n) =>
          !placed.has(key(v.kind, n.id)) && !ownCard(n) && !declared.some((d) => d.id === n.id),
      );
      const evidence = [...declared, ...listed]
        .map((n, order) => ({ n, order }))
        .sort((a, b) => rank(a.n.id) - rank(b.n.id) || a.order - b.order)
        .map(({ n }) => n);
      for (const n of evidence.slice(0, MAX_EVIDENCE - (viaEvidence ? 1 : 0))) {
        if (placed.has(key(v.kind, n.id))) continue;
        take(labelled(v, n.id, "evidence", { relation: n.relation }));
      }
      for (const n of around.filter(isQualifierEdge).sort(byRank).slice(0, MAX_QUALIFIERS)) {
        if (placed.has(key(v.kind, n.id))) continue;
        const item = labelled(v, n.id, "qualifier", { relation: n.relation });
        if (n.scope !== undefined) item.scope = n.scope;
        take(item);
      }
      // The claims the card replaced on the way here, newest first.
      for (const id of chain.slice(0, -1).reverse()) {
        if (placed.has(key(v.kind, id)) || id === card) continue;
        take(labelled(v, id, "superseded", { relation: { type: "supersedes", direction: "out" } }));
      }
      // Both sides of an unresolved conflict, always; a pair that declares
      // it both ways is still one conflict.
      for (const n of around.filter(isConflictEdge).sort(byRank)) {
        if (!placed.has(key(v.kind, n.id)))
          take(labelled(v, n.id, "competing", { relation: n.relation }));
        if (!conflicts.some((c) => c.vault === v.kind && c.a === card && c.b === n.id))
          conflicts.push({ vault: v.kind, a: card, b: n.id });
      }
    }
    const first = items[0] as AssembledItem;
    const type = v.pages.get((items.find((i) => i.part === "card") ?? first).id)?.type ?? "";
    // The packing rules are assembly's: without it the list stays as retrieved.
    const packing = opts.automatic && opts.expand;
    const capped = packing && (cardsOfType.get(type) ?? 0) >= AUTOMATIC_TYPE_CAP;
    if (capped) {
      // Dropped, not shown: its pages may still come in through another card.
      for (const item of items) placed.delete(key(item.vault, item.id));
      continue;
    }
    // Automatic recall shows evidence nobody promoted only where no card
    // answers better: below a card that ranked above it, it is left out.
    if (packing && first.part === "unpromoted" && hasCard) {
      for (const item of items) placed.delete(key(item.vault, item.id));
      continue;
    }
    hasCard ||= items.some((i) => i.part === "card");
    cardsOfType.set(type, (cardsOfType.get(type) ?? 0) + 1);
    bundles.push(items);
  }
  const items = bundles.flatMap((bundle, b) => bundle.map((item) => ({ ...item, bundle: b })));
  const shown = new Set(items.map((i) => key(i.vault, i.id)));
  return {
    items,
    conflicts: conflicts.filter(
      (c) => shown.has(key(c.vault, c.a)) && shown.has(key(c.vault, c.b)),
    ),
  };
}
