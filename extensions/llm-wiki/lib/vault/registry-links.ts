/**
 * The registry's link graph: outgoing links resolved against the page ids,
 * incoming links (backlinks) and the links that do not resolve. Built whole
 * when the set of pages changes; patched page by page when only some pages'
 * links changed, with the same result a whole build would give.
 */
import { runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { LinkResolver, type RawLink } from "./links.ts";
import { legacySlugPath, slugPath } from "./slug.ts";

/** A link that does not resolve to exactly one page. */
export interface LinkProblem {
  from: string;
  target: string;
  status: "missing" | "ambiguous";
  candidates?: string[];
}

/**
 * Which pages hold a link whose resolution a page id can change (see
 * `targetKeys`): kept with the graph once a page was added or removed, so
 * the next such change re-resolves those pages only.
 */
export interface TargetIndex {
  byKey: Map<string, Set<string>>;
  ofPage: Map<string, readonly string[]>;
}

export interface LinkGraph {
  /** Outgoing resolved links by page id, each list sorted. */
  links: Map<string, string[]>;
  /** Incoming links by page id, each list sorted. */
  backlinks: Map<string, string[]>;
  /** By linking page id, then in the page's link order. */
  linkProblems: LinkProblem[];
  /** Resolves against the ids the graph was built for. */
  resolver: LinkResolver;
  /** See `TargetIndex`; made on the first page added or removed. */
  targets?: TargetIndex;
}

function basename(path: string): string {
  return path.split("/").pop() ?? path;
}

/**
 * What `LinkResolver.resolve(target)` looks at: the exact, slugged and legacy
 * ids (`=`) and their basenames (`~`). A page whose id or basename is none
 * of these cannot change what the link resolves to.
 */
function targetKeys(target: string): string[] {
  const slugged = slugPath(target);
  const legacy = legacySlugPath(target);
  return [
    ...new Set([
      `=${target}`,
      `=${slugged}`,
      `=${legacy}`,
      `~${basename(slugged)}`,
      `~${basename(legacy)}`,
    ]),
  ];
}

/** The keys (see `targetKeys`) a page's id can change. */
function idKeys(id: string): string[] {
  return [`=${id}`, `~${basename(id)}`];
}

/** Records the keys of page `id`'s raw links (none: the page is gone). */
function indexPage(index: TargetIndex, id: string, raw: readonly RawLink[] | undefined): void {
  for (const key of index.ofPage.get(id) ?? []) {
    const pages = index.byKey.get(key);
    pages?.delete(id);
    if (pages?.size === 0) index.byKey.delete(key);
  }
  if (!raw) {
    index.ofPage.delete(id);
    return;
  }
  const keys = [...new Set(raw.flatMap((link) => targetKeys(link.target)))];
  index.ofPage.set(id, keys);
  for (const key of keys) {
    const pages = index.byKey.get(key);
    if (pages) pages.add(id);
    else index.byKey.set(key, new Set([id]));
  }
}

/** Keeps `graph`'s target index, if it has one, in step with changed raw links. */
export function indexChangedLinks(
  graph: LinkGraph,
  changed: ReadonlyMap<string, readonly RawLink[] | undefined>,
): void {
  if (!graph.targets) return;
  for (const [id, raw] of changed) indexPage(graph.targets, id, raw);
}

/**
 * `graph` brought to a new set of pages: `outgoing` holds every page's raw
 * links now; `added` and `removed` pages changed the set of ids, `edited`
 * pages only their links. Re-resolves the pages whose links a new or gone
 * id can change (found through the target index), not every page; takes
 * `graph` over as `patchLinkGraph` does. The same graph `buildLinkGraph`
 * gives (pinned by a spec against a cold build).
 */
export function patchLinkGraphIds(
  graph: LinkGraph,
  outgoing: ReadonlyMap<string, readonly RawLink[]>,
  added: readonly string[],
  removed: readonly string[],
  edited: readonly string[],
): { graph: LinkGraph; linksMoved: boolean } {
  let targets = graph.targets;
  if (targets) {
    for (const id of removed) indexPage(targets, id, undefined);
    for (const id of [...added, ...edited]) indexPage(targets, id, outgoing.get(id) ?? []);
  } else {
    targets = { byKey: new Map(), ofPage: new Map() };
    for (const [id, raw] of outgoing) indexPage(targets, id, raw);
  }
  const { resolver, links, backlinks } = graph;
  for (const id of removed) resolver.remove(id);
  for (const id of added) resolver.add(id);
  const affected = new Set<string>([...added, ...edited]);
  for (const id of [...added, ...removed]) {
    for (const key of idKeys(id))
      for (const page of targets.byKey.get(key) ?? []) affected.add(page);
  }
  let linksMoved = false;
  const drop = (from: string, to: string) => {
    linksMoved = true;
    const rest = (backlinks.get(to) ?? []).filter((id) => id !== from);
    if (rest.length > 0) backlinks.set(to, rest);
    else backlinks.delete(to);
  };
  for (const from of removed) {
    for (const to of links.get(from) ?? []) drop(from, to);
    links.delete(from);
    affected.delete(from);
  }
  const fresh: LinkProblem[] = [];
  for (const from of [...affected].sort(byId)) {
    const { targets: now, problems } = resolvePage(resolver, from, outgoing.get(from) ?? []);
    fresh.push(...problems);
    const before = links.get(from) ?? [];
    links.set(from, now);
    for (const to of before) if (!now.includes(to)) drop(from, to);
    for (const to of now) {
      if (before.includes(to)) continue;
      linksMoved = true;
      backlinks.set(to, insertSorted(backlinks.get(to) ?? [], from));
    }
  }
  const gone = new Set([...removed, ...affected]);
  const linkProblems = [...graph.linkProblems.filter((p) => !gone.has(p.from)), ...fresh].sort(
    (a, b) => byId(a.from, b.from),
  );
  return { graph: { links, backlinks, linkProblems, resolver, targets }, linksMoved };
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function resolvePage(
  resolver: LinkResolver,
  from: string,
  raw: readonly RawLink[],
): { targets: string[]; problems: LinkProblem[] } {
  const targets = new Set<string>();
  const problems: LinkProblem[] = [];
  for (const link of raw) {
    const res = resolver.resolve(link.target);
    if (res.status === "resolved") {
      if (res.id !== from) targets.add(res.id);
    } else if (res.status === "ambiguous") {
      problems.push({ from, target: link.target, status: "ambiguous", candidates: res.candidates });
    } else {
      problems.push({ from, target: link.target, status: "missing" });
    }
  }
  return { targets: [...targets].sort(), problems };
}

/** The whole graph of `outgoing` (raw links by page id; its keys are all the page ids). */
export function buildLinkGraph(outgoing: ReadonlyMap<string, readonly RawLink[]>): LinkGraph {
  return runWhole((clock) => buildLinkGraphSteps(outgoing, clock));
}

/** `buildLinkGraph` as sliced work: may yield between two pages. */
export function* buildLinkGraphSteps(
  outgoing: ReadonlyMap<string, readonly RawLink[]>,
  clock: SliceClock,
): Sliced<LinkGraph> {
  const resolver = new LinkResolver(outgoing.keys());
  const links = new Map<string, string[]>();
  const backlinks = new Map<string, string[]>();
  const linkProblems: LinkProblem[] = [];
  if (clock.due()) yield;
  for (const from of [...outgoing.keys()].sort(byId)) {
    if (clock.due()) yield;
    const { targets, problems } = resolvePage(resolver, from, outgoing.get(from) ?? []);
    linkProblems.push(...problems);
    links.set(from, targets);
    for (const to of targets) {
      const list = backlinks.get(to);
      if (list) list.push(from);
      else backlinks.set(to, [from]);
    }
  }
  return { links, backlinks, linkProblems, resolver };
}

function insertSorted(list: string[], id: string): string[] {
  const out = [...list];
  let i = out.length;
  while (i > 0 && byId(out[i - 1] ?? "", id) > 0) i -= 1;
  out.splice(i, 0, id);
  return out;
}

/**
 * `graph` with the raw links of `changed` pages replaced. The set of page ids
 * must be the one `graph` was built for (a new or removed page changes what
 * other pages' links resolve to: build the graph again). `graph`'s maps are
 * taken over and changed in place (a copy of each costs more than the change
 * at 100k pages); its lists are replaced, never changed, so a list read
 * before stays as it was. `linksMoved` tells whether any resolved link changed.
 */
export function patchLinkGraph(
  graph: LinkGraph,
  changed: ReadonlyMap<string, readonly RawLink[]>,
): { graph: LinkGraph; linksMoved: boolean } {
  const { links, backlinks } = graph;
  const fresh: LinkProblem[] = [];
  let linksMoved = false;
  for (const from of [...changed.keys()].sort(byId)) {
    const { targets, problems } = resolvePage(graph.resolver, from, changed.get(from) ?? []);
    fresh.push(...problems);
    const before = links.get(from) ?? [];
    links.set(from, targets);
    for (const to of before) {
      if (targets.includes(to)) continue;
      linksMoved = true;
      const rest = (backlinks.get(to) ?? []).filter((id) => id !== from);
      if (rest.length > 0) backlinks.set(to, rest);
      else backlinks.delete(to);
    }
    for (const to of targets) {
      if (before.includes(to)) continue;
      linksMoved = true;
      backlinks.set(to, insertSorted(backlinks.get(to) ?? [], from));
    }
  }
  // Stable: each page's problems keep their link order, pages sort by id.
  // Unchanged when no changed page had or has a problem (the common edit).
  const linkProblems =
    fresh.length === 0 && !graph.linkProblems.some((p) => changed.has(p.from))
      ? graph.linkProblems
      : [...graph.linkProblems.filter((p) => !changed.has(p.from)), ...fresh].sort((a, b) =>
          byId(a.from, b.from),
        );
  indexChangedLinks(graph, changed);
  return {
    graph: {
      links,
      backlinks,
      linkProblems,
      resolver: graph.resolver,
      ...(graph.targets ? { targets: graph.targets } : {}),
    },
    linksMoved,
  };
}
