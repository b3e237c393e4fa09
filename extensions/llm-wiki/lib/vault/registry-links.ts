/**
 * The registry's link graph: outgoing links resolved against the page ids,
 * incoming links (backlinks) and the links that do not resolve. Built whole
 * when the set of pages changes; patched page by page when only some pages'
 * links changed, with the same result a whole build would give.
 */
import { LinkResolver, type RawLink } from "./links.ts";

/** A link that does not resolve to exactly one page. */
export interface LinkProblem {
  from: string;
  target: string;
  status: "missing" | "ambiguous";
  candidates?: string[];
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
  const resolver = new LinkResolver(outgoing.keys());
  const links = new Map<string, string[]>();
  const backlinks = new Map<string, string[]>();
  const linkProblems: LinkProblem[] = [];
  for (const from of [...outgoing.keys()].sort(byId)) {
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
  return { graph: { links, backlinks, linkProblems, resolver: graph.resolver }, linksMoved };
}
