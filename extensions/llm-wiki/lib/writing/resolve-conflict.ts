/**
 * `resolveConflict`: a user's choice between two conflicting claims, recorded
 * as one immutable resolution page under `wiki/analyses/` in the format of
 * pi-llm-wiki's retrieval design (see `vault/relations.ts`). The two claim
 * pages are never edited. This module is pure: it cleans the input, checks
 * it against the vault's pages and their active resolutions, and builds the
 * page; the service writes it and updates the index.
 *
 * The record's id (and file name) is a hash of the decision itself: vault,
 * selected → other, relation, normalised scope and the replaced resolution.
 * The same decision twice is therefore the same page (a no-op), and a
 * changed choice is a new page that must name the active one in `replaces`.
 */
import { posix } from "node:path";
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { checkSingleLine, neutraliseLine } from "../safety/text.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultKind } from "../vault/paths.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";
import {
  RESOLUTION_RELATIONS,
  type Resolution,
  type ResolutionRelation,
  relationTargetId,
} from "../vault/relations.ts";
import {
  activeResolutions,
  decisionVault,
  pairKey,
  RESOLUTION_FOLDER,
  type RecordedResolution,
  resolutionId,
  resolutionMismatch,
} from "../vault/resolutions.ts";
import { cleanText, cleanTitle, invalid } from "./input.ts";

export {
  type DecisionKey,
  RESOLUTION_FOLDER,
  RESOLUTION_PREFIX,
  resolutionId,
} from "../vault/resolutions.ts";

/** Longest page id or resolution id accepted; far above any real one. */
export const MAX_ID_CHARS = 300;
/** Longest claim title quoted in the resolution page's title. */
const TITLE_QUOTE_CHARS = 120;

/** What the Pi and MCP tools take (one shared schema) and the service receives. */
export interface ResolveConflictInput {
  /** The vault holding both claims; default: the active one (project, else personal). */
  vault?: VaultKind;
  /** The claim the user endorsed (page id, e.g. `concepts/selected`). */
  selected_page_id: string;
  /** The claim it is weighed against. */
  other_page_id: string;
  relation: ResolutionRelation;
  /** Required for `applies_under`, refused for the other relations. */
  scope?: string;
  /** Why, in the user's words; redacted and stripped of control characters. */
  rationale?: string;
  /** The active resolution of the same pair this one replaces (its id or page id). */
  replaces?: string;
}

/** The input after cleaning: ids normalised, scope and rationale checked. */
export interface CleanResolveInput {
  selected: string;
  other: string;
  relation: ResolutionRelation;
  scope?: string;
  rationale: string;
  replaces?: string;
  /** Secrets taken out of the scope and rationale, by kind. */
  redacted: RedactionCounts;
}

function refuse(code: string, message: string, repair?: string): never {
  throw new WikiError(diagnostic(code, "error", message, repair ? { repair } : {}));
}

/**
 * A page id as given (`concepts/x`, `concepts/x.md`, `[[concepts/x]]`,
 * `wiki/concepts/x`), normalised; an id that is not one line of visible
 * text, is absolute, or climbs out of `wiki/` is refused with
 * `invalid_input` naming the field.
 */
export function cleanPageId(value: unknown, field: string): string {
  if (typeof value !== "string") invalid(field, "must be a string");
  const trimmed = value.trim();
  if (trimmed === "") invalid(field, "must not be empty");
  if (trimmed.length > MAX_ID_CHARS) invalid(field, `is longer than ${MAX_ID_CHARS} characters`);
  checkSingleLine(trimmed, field);
  if (trimmed.startsWith("/") || /^[a-z]:/i.test(trimmed) || trimmed.includes("\\")) {
    invalid(field, "must be a page id under wiki/ (e.g. concepts/rag), not a file path");
  }
  const id = relationTargetId(trimmed);
  const segments = id.split("/");
  if (id === "" || segments.some((s) => s === "" || s === "." || s === "..")) {
    invalid(field, "must be a page id under wiki/ (e.g. concepts/rag), without . or .. parts");
  }
  return id;
}

/** Control characters but tab and line feed, DEL, C1, bidi controls and Unicode tag characters. */
const UNSAFE_IN_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/gu;

/**
 * A rationale as it lands in the page body: line breaks kept (Markdown),
 * every other control character, bidi control and tag character removed, so
 * nothing in it can steer a terminal or hide text from a reader.
 */
export function neutraliseRationale(text: string): string {
  return text
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, "\n")
    .replace(UNSAFE_IN_TEXT, "")
    .trim();
}

/**
 * Checks the input's own shape: ids, relation, scope rules, rationale.
 * Throws `WikiError`: `invalid_input`, `resolution_same_page`,
 * `resolution_scope_required`, `resolution_scope_not_allowed`.
 */
export function cleanResolveInput(input: ResolveConflictInput): CleanResolveInput {
  const selected = cleanPageId(input.selected_page_id, "selected_page_id");
  const other = cleanPageId(input.other_page_id, "other_page_id");
  const relation = input.relation as string;
  if (!(RESOLUTION_RELATIONS as readonly string[]).includes(relation)) {
    invalid("relation", `must be one of ${RESOLUTION_RELATIONS.join(", ")}`);
  }
  if (selected === other) {
    refuse(
      "resolution_same_page",
      `selected_page_id and other_page_id are the same page (${selected}); a conflict needs two pages`,
    );
  }
  const rawScope = typeof input.scope === "string" ? input.scope : undefined;
  if (input.scope !== undefined && rawScope === undefined) invalid("scope", "must be a string");
  const scope = rawScope === undefined || rawScope.trim() === "" ? undefined : rawScope;
  if (relation === "applies_under" && scope === undefined) {
    refuse(
      "resolution_scope_required",
      "relation applies_under needs a scope: the condition under which the selected claim applies",
    );
  }
  if (relation !== "applies_under" && scope !== undefined) {
    refuse(
      "resolution_scope_not_allowed",
      `relation ${relation} takes no scope; use applies_under for a claim that holds only under a condition`,
    );
  }
  // Redacted before the scope is hashed: the record's id is what was written.
  const redacted: RedactionCounts = {};
  const rationale = neutraliseRationale(cleanText(input.rationale, "rationale", false));
  const clean: CleanResolveInput = {
    selected,
    other,
    relation: relation as ResolutionRelation,
    rationale: redactText(rationale, redacted),
    redacted,
  };
  if (scope !== undefined) clean.scope = redactText(cleanTitle(scope, "scope"), redacted);
  if (input.replaces !== undefined && input.replaces.trim() !== "") {
    clean.replaces = cleanPageId(input.replaces, "replaces");
  }
  return clean;
}

/** The vault as the validation sees it: this vault's pages, and which ids the other vault has. */
export interface ResolutionView {
  kind: VaultKind;
  /** The vault's config `vault_id`, when it has one. */
  vaultId?: string;
  pages: ReadonlyMap<string, PageMeta>;
  /** True when the other vault (project ↔ personal) has a page with this id. */
  otherVaultHas(id: string): boolean;
}

/** What the checks decided: write this record, or answer with the one already there. */
export type ResolutionPlan =
  | { kind: "existing"; page: string; resolution: Resolution }
  | {
      kind: "new";
      page: string;
      resolution: Omit<Resolution, "decidedAt">;
      /** The resolution page being replaced, when there is one. */
      replacedPage?: string;
    };

function pageOf(view: ResolutionView, id: string, field: string): PageMeta {
  const page = view.pages.get(id);
  if (page) return page;
  const other = view.kind === "project" ? "personal" : "project";
  if (view.otherVaultHas(id)) {
    refuse(
      "resolution_cross_vault",
      `${field} ${id} is a page of the ${other} vault, not the ${view.kind} vault; both claims must be in one vault`,
    );
  }
  refuse("resolution_page_missing", `${field} ${id} is not a page of the ${view.kind} vault`);
}

/** The recorded resolution named by `ref` (its id, or its page's id), if any. */
function findResolution(
  pages: ReadonlyMap<string, PageMeta>,
  ref: string,
): RecordedResolution | undefined {
  const byPage = pages.get(ref) ?? pages.get(`${RESOLUTION_FOLDER}/${ref}`);
  if (byPage?.resolution) return { page: byPage.id, resolution: byPage.resolution };
  for (const page of pages.values()) {
    if (page.resolution?.id === ref) return { page: page.id, resolution: page.resolution };
  }
  return undefined;
}

/** How the resolution error tells the caller to replace the active one. */
function replaceHint(active: RecordedResolution): string {
  return `pass replaces "${active.resolution.id}"`;
}

/**
 * Checks the cleaned input against the vault and decides what to do.
 * Throws `WikiError`: `resolution_page_missing`, `resolution_cross_vault`,
 * `resolution_replaces_unknown`, `resolution_replaces_stale`,
 * `resolution_exists`, `resolution_path_taken`.
 */
export function planResolution(input: CleanResolveInput, view: ResolutionView): ResolutionPlan {
  pageOf(view, input.selected, "selected_page_id");
  pageOf(view, input.other, "other_page_id");
  const key = pairKey(input.selected, input.other);
  let replaced: RecordedResolution | undefined;
  if (input.replaces !== undefined) {
    replaced = findResolution(view.pages, input.replaces);
    if (!replaced) {
      refuse(
        "resolution_replaces_unknown",
        `replaces: no resolution "${input.replaces}" in the ${view.kind} vault`,
      );
    }
    const r = replaced.resolution;
    if (pairKey(r.selected, r.other) !== key) {
      refuse(
        "resolution_replaces_unknown",
        `replaces: resolution "${r.id}" resolves ${r.selected} and ${r.other}, not ${input.selected} and ${input.other}`,
      );
    }
  }
  const vault = decisionVault(view.kind, view.vaultId);
  const id = resolutionId({
    vault,
    selected: input.selected,
    other: input.other,
    relation: input.relation,
    ...(input.scope !== undefined ? { scope: input.scope } : {}),
    ...(replaced ? { replaces: replaced.resolution.id } : {}),
  });
  const page = `${RESOLUTION_FOLDER}/${id}`;
  const active = activeResolutions(view.pages.values(), vault).get(key);
  const existing = view.pages.get(page);
  // A page at this path that does not record this very decision (another
  // record, or one edited since) is never taken for it.
  if (
    existing !== undefined &&
    (existing.resolution?.id !== id || resolutionMismatch(page, existing.resolution, vault))
  ) {
    refuse(
      "resolution_path_taken",
      `wiki/${page}.md exists but does not record resolution ${id}; move it aside and try again`,
    );
  }
  if (existing?.resolution) {
    // The same decision again: a no-op while it is the one in force.
    if (active?.resolution.id === id) {
      return { kind: "existing", page, resolution: existing.resolution };
    }
  }
  if (active && active.resolution.id !== id) {
    if (replaced === undefined) {
      refuse(
        "resolution_exists",
        `${input.selected} and ${input.other} already have an active resolution, ${active.resolution.id} (${active.resolution.selected} ${active.resolution.relation} ${active.resolution.other}); to change it, ${replaceHint(active)}`,
        `--replaces ${active.resolution.id}`,
      );
    }
    if (replaced.resolution.id !== active.resolution.id) {
      refuse(
        "resolution_replaces_stale",
        `replaces: "${replaced.resolution.id}" is not the active resolution of ${input.selected} and ${input.other}; ${replaceHint(active)}`,
        `--replaces ${active.resolution.id}`,
      );
    }
  } else if (active === undefined && replaced !== undefined) {
    // Only when every record of the pair is in a replacement cycle; nothing to replace.
    refuse(
      "resolution_replaces_stale",
      `replaces: "${replaced.resolution.id}" is not the active resolution of ${input.selected} and ${input.other}`,
    );
  }
  const resolution: Omit<Resolution, "decidedAt"> = {
    id,
    selected: input.selected,
    other: input.other,
    relation: input.relation,
    decidedBy: "user",
  };
  if (input.scope !== undefined) resolution.scope = input.scope;
  if (replaced) resolution.replaces = replaced.resolution.id;
  return {
    kind: "new",
    page,
    resolution,
    ...(replaced ? { replacedPage: replaced.page } : {}),
  };
}

/** A Markdown link from a resolution page to page `id`, labelled with its title. */
function linkTo(id: string, title: string): string {
  const href = encodeURI(`${posix.relative(RESOLUTION_FOLDER, id)}.md`)
    .replace(/\(/g, "%28")
    .replace(/\)/g, "%29");
  const label = neutraliseLine(title).replace(/[\\[\]]/g, (c) => `\\${c}`);
  return `[${label}](${href})`;
}

function quoted(title: string): string {
  const line = neutraliseLine(title);
  return line.length > TITLE_QUOTE_CHARS ? `${line.slice(0, TITLE_QUOTE_CHARS - 1)}…` : line;
}

/** What the relation means, selected → other, in one sentence of the body. */
function meaning(r: Omit<Resolution, "decidedAt">, selected: string, other: string): string {
  switch (r.relation) {
    case "supersedes":
      return `${selected} is current; ${other} is historical.`;
    case "qualifies":
      return `Both claims stand; ${selected} narrows ${other}.`;
    case "applies_under":
      return `${selected} applies under: ${neutraliseLine(r.scope ?? "")}; ${other} holds otherwise.`;
  }
}

/** The page recording `plan`: front matter (pi-llm-wiki's layout) and a body linking both claims. */
export function resolutionPage(
  plan: Extract<ResolutionPlan, { kind: "new" }>,
  titles: { selected: string; other: string; replaced?: string },
  rationale: string,
  now: Date,
): { title: string; data: Record<string, unknown>; body: string } {
  const r = plan.resolution;
  const decidedAt = now.toISOString();
  const title =
    r.relation === "applies_under"
      ? `Resolution: ${quoted(titles.selected)} applies under ${quoted(r.scope ?? "")}, not ${quoted(titles.other)}`
      : `Resolution: ${quoted(titles.selected)} ${r.relation} ${quoted(titles.other)}`;
  const selected = linkTo(r.selected, titles.selected);
  const other = linkTo(r.other, titles.other);
  const lines = [
    `# ${title}`,
    "",
    `The user resolved the conflict between ${selected} and ${other}: ${meaning(r, selected, other)}`,
    "",
    `- Selected: ${selected}`,
    `- Other: ${other}`,
    `- Relation: ${r.relation}`,
    ...(r.scope !== undefined ? [`- Scope: ${neutraliseLine(r.scope)}`] : []),
    ...(plan.replacedPage !== undefined
      ? [`- Replaces: ${linkTo(plan.replacedPage, titles.replaced ?? plan.replacedPage)}`]
      : []),
    `- Decided by the user at ${decidedAt}`,
    "",
    "## Rationale",
    "",
    rationale === "" ? "_None given._" : rationale,
    "",
  ];
  const today = decidedAt.slice(0, 10);
  const data: Record<string, unknown> = {
    type: "analysis",
    title,
    category: "conflict-resolution",
    status: "stable",
    resolution: {
      id: r.id,
      selected: r.selected,
      other: r.other,
      relation: r.relation,
      scope: r.scope ?? null,
      decided_by: r.decidedBy,
      decided_at: decidedAt,
      replaces: r.replaces ?? null,
    },
    created: today,
    updated: today,
  };
  return { title, data, body: lines.join("\n") };
}

/** The diagnostic saying a repeated decision changed nothing. */
export function unchangedDiagnostic(page: string): Diagnostic {
  return diagnostic(
    "page_exists",
    "info",
    `this resolution is already recorded and in force at wiki/${page}.md; nothing written`,
    { path: `wiki/${page}.md` },
  );
}
