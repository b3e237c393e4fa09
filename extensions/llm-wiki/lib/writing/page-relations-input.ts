/**
 * The `relations` and `sources` a writer hands `ensurePage`: checked the way
 * front matter `relations:` is read (vault/relations.ts `parseRelations`),
 * but strictly — where reading drops an entry with a warning, a writer is
 * refused with `page_invalid_relation` (or `invalid_input` for a source) and
 * nothing is written. An unknown type, which reading keeps inert, is refused
 * too: a writer that means a relation should get one recall honours.
 */
import { diagnostic, WikiError } from "../diagnostics.ts";
import { redactSecrets } from "../safety/redact.ts";
import { checkSingleLine } from "../safety/text.ts";
import {
  isKnownRelationType,
  normaliseScope,
  parseRelations,
  RELATION_TYPES,
  type Relation,
} from "../vault/relations.ts";

/** One relation as a writer gives it, in the shape of front matter `relations:`. */
export interface RelationInput {
  type: string;
  target: string;
  /** Required for `applies_under`, refused for every other type. */
  scope?: string;
}

/** Characters a target may not hold: they would break the `[[target]]` link written for it. */
const LINK_BREAKING = /[[\]|#\n\r]/;
const MAX_TARGET = 300;

/** Refuses the call; the message quotes what the writer gave, so its secrets are taken out first. */
function refuse(message: string): never {
  throw new WikiError(
    diagnostic("page_invalid_relation", "error", redactSecrets(message).text, {
      repair: `relations are {type, target, scope?}; type one of ${RELATION_TYPES.join(", ")}; target a page id such as concepts/other-page`,
    }),
  );
}

/**
 * `relations` checked and normalised (targets as page ids, as reading does),
 * repeats dropped. Throws `page_invalid_relation` for anything reading
 * would drop or keep inert.
 */
export function checkRelationsInput(relations: readonly unknown[]): Relation[] {
  relations.forEach((entry, i) => {
    const target = (entry as { target?: unknown } | null)?.target;
    if (typeof target !== "string") return; // parseRelations names it below
    checkSingleLine(target.trim(), `relations/${i}/target`);
    // A full `[[id]]` is accepted (reading strips it); a bracket or `#` inside an id is not.
    const bare = target.trim().replace(/^\[\[([^\]]*)\]\]$/, "$1");
    if (LINK_BREAKING.test(bare.replace(/\|.*$/, "")) || bare.length > MAX_TARGET) {
      refuse(
        `relation ${i + 1}: target "${redactSecrets(bare).text.slice(0, 80)}" is not a page id (no [ ] | # or line breaks, at most ${MAX_TARGET} characters)`,
      );
    }
  });
  const parsed = parseRelations([...relations], "relations");
  const [first] = parsed.diagnostics;
  if (first) refuse(first.message);
  const out: Relation[] = [];
  const seen = new Set<string>();
  parsed.relations.forEach((relation, i) => {
    if (!isKnownRelationType(relation.type)) {
      refuse(
        `relation ${i + 1}: unknown type "${relation.type}"; one of ${RELATION_TYPES.join(", ")}`,
      );
    }
    if (relation.scope !== undefined) checkSingleLine(relation.scope, `relations/${i}/scope`);
    const key = relationKey(relation);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(relation);
  });
  return out;
}

/** The identity of a relation, as lint judges a repeat: type, target and normalised scope. */
export function relationKey(relation: Relation): string {
  return JSON.stringify([
    relation.type,
    relation.target,
    relation.scope === undefined ? null : normaliseScope(relation.scope),
  ]);
}

/** `sources` trimmed, each one line, repeats dropped; throws `invalid_input` otherwise. */
export function checkSourcesInput(sources: readonly string[]): string[] {
  const out: string[] = [];
  sources.forEach((raw, i) => {
    const source = raw.trim();
    checkSingleLine(source, `sources/${i}`);
    if (source === "") {
      throw new WikiError(diagnostic("invalid_input", "error", `sources/${i}: is empty`));
    }
    if (!out.includes(source)) out.push(source);
  });
  return out;
}

/** The front-matter form of a relation: `{target, type, scope?}`, as the documented format writes it. */
export function relationEntry(relation: Relation): Record<string, string> {
  return relation.scope === undefined
    ? { target: relation.target, type: relation.type }
    : { target: relation.target, type: relation.type, scope: relation.scope };
}
