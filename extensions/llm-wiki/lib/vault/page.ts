/**
 * Parsing one wiki page: gray-matter frontmatter, type and role, the fields
 * every host reads, and a diagnostic (never an exception) for a page that
 * cannot be accepted.
 */
import { createHash } from "node:crypto";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { type FolderKind, folderKind } from "./folder-kinds.ts";
import {
  type Frontmatter,
  FrontmatterLanguageError,
  FrontmatterTooComplexError,
  readFrontmatter,
} from "./frontmatter.ts";
import {
  bothSides,
  conflictSide,
  countMergeConflicts,
  MERGE_CONFLICT_CODE,
} from "./merge-conflicts.ts";
import { type Provenance, parseProvenance } from "./provenance.ts";
import { parseRelations, parseResolution, type Relation, type Resolution } from "./relations.ts";
import { textConflictTargets } from "./text-conflicts.ts";

/** Types whose pages are the vault's curated knowledge. */
export const CANONICAL_TYPES = [
  "entity",
  "concept",
  "synthesis",
  "analysis",
  "requirement",
  "skill",
  "case",
] as const;

/** Types whose pages are evidence: captured sources and what was observed. */
export const EVIDENCE_TYPES = [
  "source",
  "observation",
  "insight",
  "retro",
  "decision",
  "note",
  "event",
  "trajectory",
  "reference",
] as const;

export const PAGE_STATUSES = [
  "draft",
  "stable",
  "deprecated",
  "skeleton",
  "ingested",
  "insight",
  "observation",
  "stub",
] as const;

export type PageRole = "canonical" | "evidence";
export type PageStatus = (typeof PAGE_STATUSES)[number];

/** Pages above this size are refused: a wiki page is notes, not a data dump. */
export const MAX_PAGE_BYTES = 1024 * 1024;

/** What every host needs to know about a page, without its body. */
export interface PageMeta {
  /** Path under `wiki/` without `.md`, e.g. `concepts/rag`. */
  id: string;
  /** Vault-relative path, e.g. `wiki/concepts/rag.md`. */
  path: string;
  type: string;
  role: PageRole;
  title: string;
  description?: string;
  summary?: string;
  aliases: string[];
  tags: string[];
  status?: PageStatus;
  sources: string[];
  created?: string;
  updated?: string;
  /**
   * The date of what the page records, when it says: front matter `date`,
   * else `published` (a source's own date), else `captured`, else the older
   * system's `ingested` (its source template's only date).
   */
  date?: string;
  staleAfter?: string;
  /** OKF `generated` / `verified`, when the page declares either. */
  provenance?: Provenance;
  recallTriggers: string[];
  /** Typed relations declared in front matter (valid-shaped; unknown types kept, inert). */
  relations?: Relation[];
  /** On a conflict-resolution page: the user's recorded choice. */
  resolution?: Resolution;
  /**
   * Link targets (as written, unresolved) of the conflicts the page states
   * as text: a `> Contradiction:` line and the other forms of
   * text-conflicts.ts. Each becomes an unresolved `contradicts` edge.
   */
  textConflicts?: string[];
  /**
   * Regions git left unmerged (conflict markers) in the page: its metadata
   * is one side's, its text shows both (merge-conflicts.ts) until a person
   * resolves it.
   */
  mergeConflicts?: number;
}

/** A parsed page: its metadata, all frontmatter (unknown keys kept) and body. */
export interface Page extends PageMeta {
  frontmatter: Record<string, unknown>;
  body: string;
  /** sha256 of the file's bytes. */
  hash: string;
}

export type ParseResult =
  | { ok: true; page: Page; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

const canonicalSet: ReadonlySet<string> = new Set(CANONICAL_TYPES);
const knownTypes: ReadonlySet<string> = new Set([...CANONICAL_TYPES, ...EVIDENCE_TYPES]);
const statusSet: ReadonlySet<string> = new Set(PAGE_STATUSES);

/** Longest unknown (foreign) type name accepted, in characters. */
const MAX_UNKNOWN_TYPE_CHARS = 64;
/**
 * What a foreign type may look like: a short printable name such as
 * `Attested Computation` or `bigquery/table`. Anything else (controls, markup,
 * a paragraph) is a malformed page, not a type.
 */
const UNKNOWN_TYPE = new RegExp(
  `^[\\p{L}\\p{N}][\\p{L}\\p{N} ._/-]{0,${MAX_UNKNOWN_TYPE_CHARS - 1}}$`,
  "u",
);

/** Role of a page type: canonical for curated knowledge, evidence otherwise. */
export function roleOf(type: string): PageRole {
  return canonicalSet.has(type) ? "canonical" : "evidence";
}

/** sha256 hex of bytes or text. */
export function hashContent(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Date && !Number.isNaN(value.getTime()))
    return value.toISOString().slice(0, 10);
  return undefined;
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) {
    return value.map(asText).filter((v): v is string => v !== undefined);
  }
  const one = asText(value);
  if (one === undefined) return [];
  // `tags: a, b` is a common hand-written shorthand for a list.
  return one.includes(",")
    ? one
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [one];
}

/** A front matter `sources:` value as its entries: strings, or the `id` / `page` / `path` of an object. */
export function asSources(value: unknown): string[] {
  if (!Array.isArray(value)) return asList(value);
  const out: string[] = [];
  for (const item of value) {
    if (item && typeof item === "object" && !Array.isArray(item)) {
      const record = item as Record<string, unknown>;
      const ref = asText(record.id) ?? asText(record.page) ?? asText(record.path);
      if (ref) out.push(ref);
    } else {
      const ref = asText(item);
      if (ref) out.push(ref);
    }
  }
  return out;
}

function firstHeading(body: string): string | undefined {
  const match = /^#\s+(.+?)\s*#*\s*$/m.exec(body);
  return match?.[1];
}

/** A name from a page, short and printable, for a one-line diagnostic. */
function printable(name: string): string {
  const chars = [...name];
  const shown = chars
    .slice(0, 40)
    .join("")
    .replace(/[^\x20-\x7e]/g, "?");
  return chars.length > 40 ? `${shown}…` : shown;
}

function isBinary(bytes: Uint8Array): boolean {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** llm-wiki's own folders whose singular is not their type. */
const PLURALS: ReadonlyMap<string, string> = new Map([
  ["entities", "entity"],
  ["syntheses", "synthesis"],
  ["analyses", "analysis"],
]);

/** What an untyped page's type is read as, from a folder that says its kind (folder-kinds.ts). */
const KIND_TYPES: Readonly<Record<FolderKind, string>> = {
  decision: "decision",
  incident: "analysis",
  howto: "skill",
};

/**
 * The type a folder's name says: `entities/` an entity, `runbooks/` a
 * skill, `postmortems/` an analysis, `adrs/` a decision; any other folder
 * its name in the singular, top-level pages notes.
 */
function typeFromFolder(id: string): string {
  const slash = id.indexOf("/");
  if (slash < 0) return "note";
  const folder = id.slice(0, slash).toLowerCase();
  const kind = folderKind(id);
  const known = kind ? KIND_TYPES[kind] : PLURALS.get(folder);
  if (known) return known;
  const singular = folder.replace(/ies$/, "y").replace(/(?<!s)s$/, "");
  return UNKNOWN_TYPE.test(singular) ? singular : "note";
}

/**
 * Parses the bytes of the page at vault-relative `path` with id `id`.
 * A page that cannot be accepted yields `ok: false` and an error diagnostic
 * naming the path and the reason; soft problems are warnings on an accepted page.
 */
export function parsePage(id: string, path: string, bytes: Uint8Array): ParseResult {
  const fail = (code: string, message: string): ParseResult => ({
    ok: false,
    diagnostics: [diagnostic(code, "error", `${path}: ${message}`, { path })],
  });
  if (bytes.byteLength > MAX_PAGE_BYTES) {
    return fail(
      "page_too_large",
      `page is ${bytes.byteLength} bytes; the limit is ${MAX_PAGE_BYTES}`,
    );
  }
  if (isBinary(bytes)) return fail("page_binary", "page is not UTF-8 text");

  const text = Buffer.from(bytes)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  // A page git could not merge is read from one side (its front matter may
  // hold the conflict) and shown with both; the file is left to a person.
  const mergeConflicts = countMergeConflicts(text);
  let parsed: Frontmatter;
  try {
    parsed = readFrontmatter(mergeConflicts > 0 ? conflictSide(text, "ours") : text);
  } catch (error) {
    if (error instanceof FrontmatterLanguageError) {
      return fail(
        "frontmatter_language_refused",
        `front matter in "${printable(error.language)}" is never read (only YAML or JSON); write it as YAML`,
      );
    }
    if (error instanceof FrontmatterTooComplexError) {
      return fail("frontmatter_too_complex", `${error.message}; the page is not read`);
    }
    // YAML errors carry a multi-line source excerpt; a diagnostic is one line.
    const reason = (errorMessage(error).split("\n")[0] ?? "").replace(/:\s*$/, "");
    return fail("frontmatter_parse_error", `frontmatter is not valid YAML (${reason})`);
  }
  const data = parsed.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return fail("frontmatter_parse_error", "frontmatter is not a mapping");
  }
  const fm = data as Record<string, unknown>;
  const written = asText(fm.type);
  const diagnostics: Diagnostic[] = [];
  // A note written by hand, with no front matter or no `type`, is still
  // memory: read as its folder says, and lint asks for the type.
  const inferred =
    written === undefined && parsed.content.trim() !== "" ? typeFromFolder(id) : undefined;
  const givenType = written ?? inferred;
  if (givenType === undefined) {
    return fail("page_missing_type", "frontmatter has no `type` and the page has no text");
  }
  if (inferred !== undefined) {
    diagnostics.push(
      diagnostic(
        "page_missing_type",
        "warning",
        `${path}: frontmatter has no \`type\`; read as "${printable(inferred)}" from its folder`,
        { path, repair: `add \`type: ${inferred}\` to the front matter of ${path}` },
      ),
    );
  }
  const lowerType = givenType.toLowerCase();
  let rawType = lowerType;
  if (!knownTypes.has(lowerType) && inferred === undefined) {
    // OKF v0.2: consumers tolerate unknown types. The page is kept as
    // evidence (recallable, no card semantics); its file is never rewritten.
    if (!UNKNOWN_TYPE.test(givenType)) {
      return fail(
        "page_invalid_type",
        `type "${printable(givenType)}" is not a short single-line name (letters, digits, spaces, . _ - /, at most ${MAX_UNKNOWN_TYPE_CHARS} characters)`,
      );
    }
    rawType = givenType;
    diagnostics.push(
      diagnostic(
        "page_unknown_type",
        "info",
        `${path}: type "${printable(givenType)}" is not one of llm-wiki's; kept as evidence`,
        { path },
      ),
    );
  }

  const statusText = asText(fm.status)?.toLowerCase();
  let status: PageStatus | undefined;
  if (statusText !== undefined) {
    if (statusSet.has(statusText)) status = statusText as PageStatus;
    else {
      diagnostics.push(
        diagnostic("page_unknown_status", "warning", `${path}: unknown status "${statusText}"`, {
          path,
        }),
      );
    }
  }
  const body =
    mergeConflicts > 0 ? bothSides(bodyAfterRaw(text) ?? parsed.content) : parsed.content;
  if (mergeConflicts > 0) {
    diagnostics.push(
      diagnostic(
        MERGE_CONFLICT_CODE,
        "error",
        `${path}: ${mergeConflicts} unresolved git merge conflict(s); recall shows both versions until someone resolves it`,
        {
          path,
          repair: `edit ${path}: keep what both versions meant, remove the conflict marker lines, then commit`,
        },
      ),
    );
  }
  const page: Page = {
    id,
    path,
    type: rawType,
    role: roleOf(rawType),
    title: asText(fm.title) ?? firstHeading(body) ?? id.split("/").pop() ?? id,
    aliases: asList(fm.aliases),
    tags: asList(fm.tags),
    sources: asSources(fm.sources),
    recallTriggers: asList(fm.recall_triggers),
    frontmatter: fm,
    body,
    hash: hashContent(bytes),
  };
  const optional: Array<[keyof PageMeta, unknown]> = [
    ["description", fm.description],
    ["summary", fm.summary],
    ["created", fm.created],
    ["updated", fm.updated],
    ["date", fm.date ?? fm.published ?? fm.captured ?? fm.ingested],
    ["staleAfter", fm.stale_after],
  ];
  for (const [key, value] of optional) {
    const text = asText(value);
    if (text !== undefined) Object.assign(page, { [key]: text });
  }
  if (status !== undefined) page.status = status;
  const provenance = parseProvenance(fm.generated, fm.verified);
  if (provenance !== undefined) page.provenance = provenance;
  const relations = parseRelations(fm.relations, path);
  diagnostics.push(...relations.diagnostics);
  if (relations.relations.length > 0) page.relations = relations.relations;
  const resolution = parseResolution(fm.resolution, path);
  diagnostics.push(...resolution.diagnostics);
  if (resolution.resolution) page.resolution = resolution.resolution;
  const conflicts = textConflictTargets(id, body, fm.contradicts);
  if (conflicts.length > 0) page.textConflicts = conflicts;
  if (mergeConflicts > 0) page.mergeConflicts = mergeConflicts;
  return { ok: true, page, diagnostics };
}

/** The metadata part of a page, as stored in the registry. */
export function pageMeta(page: Page): PageMeta {
  const { frontmatter: _fm, body: _body, hash: _hash, ...meta } = page;
  return meta;
}

const FRONTMATTER_BLOCK = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The body after a page's frontmatter block, without parsing the YAML: for
 * pages the registry already accepted, where a second parse is wasted work.
 * Undefined when the text has no frontmatter block. A region git left
 * unmerged comes back as both versions, labelled (merge-conflicts.ts).
 */
export function bodyAfterFrontmatter(text: string): string | undefined {
  const body = bodyAfterRaw(text);
  // A region git left unmerged reads as both versions, never as its markers.
  return body === undefined ? undefined : bothSides(body);
}

function bodyAfterRaw(text: string): string | undefined {
  const match = FRONTMATTER_BLOCK.exec(text);
  return match ? text.slice(match[0].length) : undefined;
}
