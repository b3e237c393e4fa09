/**
 * Relation checks: typed relations that are malformed or do not count
 * (unknown type, no such page, the page itself, a repeat, no body link),
 * resolution pages recall does not honour (their record no longer matches
 * their id), supersessions of a reviewed page by an unreviewed one,
 * contradictions no user resolved, and cards that cite no evidence. Read
 * from the registry and its relation graph only; nothing here rewrites a
 * page (`lint --fix` leaves relations as written).
 */
import type { PageMeta } from "../vault/page.ts";
import type { Registry } from "../vault/registry.ts";
import { judgeRelations, type RelationProblem } from "../vault/relation-graph.ts";
import { pairKey, resolutionMismatch } from "../vault/resolutions.ts";
import {
  supersessionCycle,
  supersessionWithheld,
  unreviewedSupersession,
} from "../vault/supersession.ts";
import type { LintFinding } from "./types.ts";

/** Codes the page parser raises for relations and resolutions; lint shows them as relation findings. */
export const RELATION_PARSE_CODES: ReadonlySet<string> = new Set([
  "relation_invalid",
  "relation_bad_scope",
  "resolution_invalid",
]);

const pathOf = (id: string): string => `wiki/${id}.md`;

const PROBLEMS: Record<RelationProblem, { code: string; says: string }> = {
  unknown_type: {
    code: "relation_unknown_type",
    says: "has a type lint does not know; it is kept but ignored",
  },
  self: { code: "relation_self", says: "points at the page itself; ignored" },
  missing_target: { code: "relation_missing_target", says: "names no page; ignored" },
  missing_body_link: {
    code: "relation_missing_body_link",
    says: "is not linked in the page's body, so it does not count; link the target in the text",
  },
  duplicate: { code: "relation_duplicate", says: "repeats an earlier relation; ignored" },
};

/** The parser's relation and resolution diagnostics, as relation findings. */
function parseFindings(registry: Registry): LintFinding[] {
  return registry.diagnostics
    .filter((d) => RELATION_PARSE_CODES.has(d.code))
    .map((d) => ({ ...d, check: "relation" }));
}

/** One finding per declared relation that makes no edge. */
function declaredFindings(registry: Registry): LintFinding[] {
  const out: LintFinding[] = [];
  const exists = (id: string) => registry.pages.has(id);
  for (const page of registry.pages.values()) {
    if (!page.relations) continue;
    for (const judged of judgeRelations(page, exists, registry.links.get(page.id) ?? [])) {
      if (!judged.problem) continue;
      const { code, says } = PROBLEMS[judged.problem];
      const { type, target } = judged.relation;
      out.push({
        check: "relation",
        code,
        severity: "warning",
        message: `${page.path}: relation ${judged.index + 1} (${type} ${target}) ${says}`,
        path: page.path,
        target,
      });
    }
  }
  return out;
}

/**
 * Each resolution page whose record does not match the id it was recorded
 * under in this vault (`vault`, a `decisionVault` key): recall ignores it,
 * so the conflict it claims to settle is open again.
 */
function resolutionFindings(registry: Registry, vault: string): LintFinding[] {
  const out: LintFinding[] = [];
  for (const page of registry.pages.values()) {
    const r = page.resolution;
    if (!r) continue;
    const why = resolutionMismatch(page.id, r, vault);
    if (why === undefined) continue;
    out.push({
      check: "relation",
      code: "resolution_id_mismatch",
      severity: "warning",
      message: `${page.path}: resolution ${r.id} (${r.selected} ${r.relation} ${r.other}) is ignored by recall: ${why}`,
      path: page.path,
      pages: [pathOf(r.selected), pathOf(r.other)],
      repair: `llm-wiki resolve-conflict --selected ${r.selected} --other ${r.other} --relation ${r.relation}${r.scope !== undefined ? " --scope …" : ""} (records the decision anew), then remove ${page.path}`,
    });
  }
  return out;
}

/**
 * Each counted `supersedes` relation recall withholds (a less established
 * page, or a cycle of pages superseding each other), or by which a draft or
 * unverified page would retire a stable or human-reviewed one
 * (vault/supersession.ts), and no user resolution of the pair settles: a
 * person decides. The repair
 * records the decision either way (resolve-conflict), or the page is
 * reviewed (status: stable, a verified entry) or the relation removed.
 */
function supersessionFindings(registry: Registry): LintFinding[] {
  const out: LintFinding[] = [];
  for (const page of registry.pages.values()) {
    if (!page.relations) continue;
    for (const edge of registry.relations.outgoing(page.id)) {
      if (edge.type !== "supersedes" || edge.resolution !== undefined) continue;
      if (registry.relations.activeResolution(edge.from, edge.to)) continue;
      const target = registry.pages.get(edge.to);
      const cycle =
        !supersessionWithheld(page, target) &&
        supersessionCycle(edge.from, edge.to, (id) =>
          registry.relations
            .outgoing(id)
            .filter(
              (x) =>
                x.type === "supersedes" &&
                x.resolution === undefined &&
                registry.relations.activeResolution(x.from, x.to) === undefined &&
                !supersessionWithheld(registry.pages.get(x.from), registry.pages.get(x.to)),
            )
            .map((x) => x.to),
        );
      const seen = unreviewedSupersession(page, target, cycle);
      if (!seen) continue;
      const effect = cycle
        ? `${edge.to} also supersedes this page (directly or through others), so recall retires neither and shows each beside the other as a competing claim`
        : seen.withheld
          ? `recall keeps the ${seen.to} page current (it is more established) and shows this page beside it as a proposed replacement`
          : "recall shows that page as historical, labelled with this page as the declarer";
      const decide = (selected: string, other: string) =>
        `llm-wiki resolve-conflict --selected ${selected} --other ${other} --relation supersedes`;
      out.push({
        check: "relation",
        code: "supersedes_unreviewed",
        severity: "warning",
        message: `${page.path}: this ${seen.from} page declares it supersedes ${pathOf(edge.to)} (${seen.to}); ${effect}. A person decides: accept it (status: stable, a verified entry, or the first repair) or keep ${edge.to} (remove the relation, or the second repair)`,
        path: page.path,
        pages: [pathOf(edge.to)],
        target: edge.to,
        repair: `${decide(edge.from, edge.to)} (accept ${edge.from}) or ${decide(edge.to, edge.from)} (keep ${edge.to})`,
      });
    }
  }
  return out;
}

/**
 * Each pair of pages a counted `contradicts` relation joins and no active
 * resolution settles, once per pair, on the first declaring page in id order
 * (a conflict stated only as text is the contradiction check's).
 */
function unresolvedFindings(registry: Registry): LintFinding[] {
  const out: LintFinding[] = [];
  const seen = new Set<string>();
  for (const page of registry.pages.values()) {
    for (const edge of registry.relations.outgoing(page.id)) {
      if (edge.type !== "contradicts" || edge.resolution !== undefined) continue;
      // A conflict stated as text is reported with its line (contradictions.ts).
      if (edge.origin === "text") continue;
      const key = pairKey(edge.from, edge.to);
      if (seen.has(key)) continue;
      seen.add(key);
      if (registry.relations.activeResolution(edge.from, edge.to)) continue;
      out.push({
        check: "contradiction",
        code: "contradiction_unresolved",
        severity: "warning",
        message: `${page.path}: contradicts ${pathOf(edge.to)} and no resolution settles it; record which one holds (and under what scope) on a resolution page`,
        path: page.path,
        pages: [pathOf(edge.to)],
      });
    }
  }
  return out;
}

/** Whether a supports or derived_from relation joins `page` with an evidence page, either way. */
/** How far a chain of cards is followed to its evidence (a cycle stops sooner). */
const MAX_EVIDENCE_HOPS = 4;

/**
 * Whether a card rests on evidence: its own `sources`, or a supports /
 * derived_from relation to an evidence page or to a card that rests on
 * evidence in turn ("cache invalidation" derived from ADR-004, derived from
 * the protocol RFC).
 */
function hasEvidence(registry: Registry, page: PageMeta): boolean {
  const evidential = (type: string) => type === "supports" || type === "derived_from";
  const seen = new Set([page.id]);
  let frontier = [page.id];
  for (let hop = 0; hop < MAX_EVIDENCE_HOPS && frontier.length > 0; hop += 1) {
    const next: string[] = [];
    for (const id of frontier) {
      const ends = [
        ...registry.relations
          .outgoing(id)
          .filter((e) => evidential(e.type))
          .map((e) => e.to),
        ...registry.relations
          .incoming(id)
          .filter((e) => evidential(e.type))
          .map((e) => e.from),
      ];
      for (const end of ends) {
        if (seen.has(end)) continue;
        seen.add(end);
        const other = registry.pages.get(end);
        if (!other) continue;
        if (other.role === "evidence" || other.sources.length > 0) return true;
        next.push(end);
      }
    }
    frontier = next;
  }
  return false;
}

/** Types whose pages make claims that want evidence; entities, skills and cases describe or instruct. */
const CLAIM_TYPES: ReadonlySet<string> = new Set([
  "concept",
  "synthesis",
  "analysis",
  "requirement",
]);

/**
 * Cards making claims (concepts, syntheses, analyses, requirements; not
 * resolution pages, not deprecated ones kept for history) with no
 * `sources` and no supports/derived_from chain to evidence. Only in a vault
 * that declares relations at all: in one that never adopted them every
 * sourceless page would be reported, and the repair (declare a relation)
 * would be news to its owner.
 */
function cardFindings(registry: Registry): LintFinding[] {
  const pages = [...registry.pages.values()];
  if (!pages.some((p) => p.relations !== undefined || p.resolution !== undefined)) return [];
  return (
    pages
      // A resolution page (an analysis) records a user's decision, not a claim needing evidence.
      .filter(
        (p) =>
          p.role === "canonical" &&
          CLAIM_TYPES.has(p.type) &&
          p.status !== "deprecated" &&
          p.resolution === undefined &&
          p.sources.length === 0 &&
          !hasEvidence(registry, p),
      )
      .map((page) => ({
        check: "relation",
        code: "card_without_evidence",
        severity: "info",
        message: `${page.path}: this ${page.type} cites no sources and no evidence page supports it or is its origin (supports / derived_from)`,
        path: page.path,
      }))
  );
}

/**
 * Every relation finding of `registry`, the registry of the vault whose
 * `decisionVault` key is `vault` (which resolution records it honours).
 */
export function relationFindings(registry: Registry, vault: string): LintFinding[] {
  return [
    ...parseFindings(registry),
    ...declaredFindings(registry),
    ...resolutionFindings(registry, vault),
    ...supersessionFindings(registry),
    ...unresolvedFindings(registry),
    ...cardFindings(registry),
  ];
}
