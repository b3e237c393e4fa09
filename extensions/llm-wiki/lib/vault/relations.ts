/**
 * Typed relations between pages (front matter `relations:`) and user
 * conflict resolutions (front matter `resolution:` on a resolution page),
 * in the format of pi-llm-wiki's retrieval design so vaults stay
 * interchangeable:
 *
 * ```yaml
 * relations:
 *   - target: concepts/other-card
 *     type: applies_under
 *     scope: mobile clients
 * ```
 *
 * Parsing never throws: a malformed entry is dropped with a diagnostic, an
 * unknown type is kept (so writers preserve it) but is inert.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";

/** Relation types that mean something to recall and lint. */
export const RELATION_TYPES = [
  "supports",
  "contradicts",
  "qualifies",
  "supersedes",
  "applies_under",
  "derived_from",
  "related_to",
] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/** Types that can admit a page into a recall bundle; `related_to` and plain links never do. */
export const ADMITTING_TYPES: ReadonlySet<string> = new Set<RelationType>([
  "supports",
  "contradicts",
  "qualifies",
  "supersedes",
  "applies_under",
  "derived_from",
]);

/** Relations a user may choose when resolving a conflict (selected → other). */
export const RESOLUTION_RELATIONS = ["supersedes", "qualifies", "applies_under"] as const;
export type ResolutionRelation = (typeof RESOLUTION_RELATIONS)[number];

/** One declared relation, as written (target normalised to a page id). */
export interface Relation {
  target: string;
  /** A known `RelationType`, or an imported unknown type kept but inert. */
  type: string;
  scope?: string;
}

/** A user's resolution of a conflict, as recorded on its resolution page. */
export interface Resolution {
  id: string;
  selected: string;
  other: string;
  relation: ResolutionRelation;
  scope?: string;
  decidedBy: string;
  decidedAt: string;
  replaces?: string;
}

const knownTypes: ReadonlySet<string> = new Set(RELATION_TYPES);
const resolutionRelations: ReadonlySet<string> = new Set(RESOLUTION_RELATIONS);

/** Whether `type` is one of the known relation types. */
export function isKnownRelationType(type: string): type is RelationType {
  return knownTypes.has(type);
}

function text(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const t = String(value).trim();
  return t === "" ? undefined : t;
}

/**
 * A target as a page id: `[[concepts/x|label]]`, `concepts/x.md`,
 * `wiki/concepts/x`, `./concepts/x` all read `concepts/x`. A heading or
 * block fragment is dropped (relationship identity is page-level).
 */
export function relationTargetId(raw: string): string {
  let t = raw.trim();
  const wiki = /^\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]$/.exec(t);
  if (wiki?.[1]) t = wiki[1];
  t = t.replace(/#.*$/, "").replace(/^\.\//, "").replace(/^\/+/, "");
  t = t.replace(/^(?:\.llm-wiki\/)?wiki\//, "").replace(/\.md$/i, "");
  return t.trim();
}

/** The normalised form of a scope: trimmed, inner spaces collapsed, lower case. */
export function normaliseScope(scope: string): string {
  return scope.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * The valid-shaped relations of a page's front matter value, and a
 * diagnostic for each entry that is not (`relation_invalid`), each
 * `applies_under` without a scope and each other type with one
 * (`relation_bad_scope`). Duplicates and self links are kept here and
 * reported by lint; unknown types are kept, reported by lint, and inert.
 */
export function parseRelations(
  value: unknown,
  path: string,
): { relations: Relation[]; diagnostics: Diagnostic[] } {
  const relations: Relation[] = [];
  const diagnostics: Diagnostic[] = [];
  if (value === undefined || value === null) return { relations, diagnostics };
  const bad = (code: string, message: string) =>
    diagnostics.push(diagnostic(code, "warning", `${path}: ${message}`, { path }));
  if (!Array.isArray(value)) {
    bad("relation_invalid", "`relations` is not a list of {target, type, scope?}");
    return { relations, diagnostics };
  }
  value.forEach((entry, i) => {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      bad("relation_invalid", `relation ${i + 1} is not a mapping of {target, type, scope?}`);
      return;
    }
    const record = entry as Record<string, unknown>;
    const rawTarget = text(record.target);
    const type = text(record.type)?.toLowerCase();
    if (rawTarget === undefined || type === undefined) {
      bad("relation_invalid", `relation ${i + 1} needs both \`target\` and \`type\``);
      return;
    }
    const extra = Object.keys(record).filter((k) => !["target", "type", "scope"].includes(k));
    if (extra.length > 0) {
      bad("relation_invalid", `relation ${i + 1} has unknown keys (${extra.join(", ")}); ignored`);
    }
    const target = relationTargetId(rawTarget);
    if (target === "") {
      bad("relation_invalid", `relation ${i + 1} has an empty target`);
      return;
    }
    const scope = text(record.scope);
    if (type === "applies_under" && scope === undefined) {
      bad("relation_bad_scope", `relation ${i + 1} (applies_under ${target}) needs a \`scope\``);
      return;
    }
    if (isKnownRelationType(type) && type !== "applies_under" && scope !== undefined) {
      bad("relation_bad_scope", `relation ${i + 1} (${type} ${target}) may not have a \`scope\``);
      return;
    }
    const relation: Relation = { target, type };
    if (scope !== undefined) relation.scope = scope;
    relations.push(relation);
  });
  return { relations, diagnostics };
}

/**
 * The resolution recorded in a page's front matter `resolution:`, or a
 * diagnostic (`resolution_invalid`) when it is present but malformed.
 */
export function parseResolution(
  value: unknown,
  path: string,
): { resolution?: Resolution; diagnostics: Diagnostic[] } {
  if (value === undefined || value === null) return { diagnostics: [] };
  const bad = (message: string) => ({
    diagnostics: [diagnostic("resolution_invalid", "warning", `${path}: ${message}`, { path })],
  });
  if (typeof value !== "object" || Array.isArray(value))
    return bad("`resolution` is not a mapping");
  const r = value as Record<string, unknown>;
  const id = text(r.id);
  const selected = text(r.selected);
  const other = text(r.other);
  const relation = text(r.relation)?.toLowerCase();
  if (!id || !selected || !other || !relation) {
    return bad("`resolution` needs id, selected, other and relation");
  }
  if (!resolutionRelations.has(relation)) {
    return bad(
      `resolution relation "${relation}" is not one of ${RESOLUTION_RELATIONS.join(", ")}`,
    );
  }
  const scope = text(r.scope);
  if (relation === "applies_under" && scope === undefined) {
    return bad("an applies_under resolution needs a scope");
  }
  const decidedAt =
    r.decided_at instanceof Date ? r.decided_at.toISOString() : (text(r.decided_at) ?? "");
  const resolution: Resolution = {
    id,
    selected: relationTargetId(selected),
    other: relationTargetId(other),
    relation: relation as ResolutionRelation,
    decidedBy: text(r.decided_by) ?? "user",
    decidedAt,
  };
  if (scope !== undefined && relation === "applies_under") resolution.scope = scope;
  const replaces = text(r.replaces);
  if (replaces !== undefined) resolution.replaces = replaces;
  return { resolution, diagnostics: [] };
}

/** One derived edge of the relation graph. */
export interface RelationEdge {
  from: string;
  to: string;
  type: RelationType;
  scope?: string;
  /** Set when the edge comes from a user's resolution: that resolution page's id. */
  resolution?: string;
  /**
   * "text": an unresolved `contradicts` the page states as text (a
   * `> Contradiction:` line, see text-conflicts.ts), not as a typed relation.
   */
  origin?: "text";
}

/**
 * The vault's relation graph, derived with the registry: declared relations
 * whose page body also links the target (known types only, target present,
 * no self links), the `contradicts` edges of conflicts written as text,
 * and the edges of active user resolutions. Both directions
 * are queryable; lists are in a stable order.
 */
export interface RelationGraph {
  /** Edges declared by (or resolved with `from` =) page `id`. */
  outgoing(id: string): readonly RelationEdge[];
  /** Edges pointing at page `id`. */
  incoming(id: string): readonly RelationEdge[];
  /**
   * The active resolution (not replaced by another) of the unordered pair,
   * as the resolution page's id and record.
   */
  activeResolution(a: string, b: string): { page: string; resolution: Resolution } | undefined;
}
