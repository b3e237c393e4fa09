/**
 * Creating pages: never overwriting. A title whose slug is taken by a page
 * with another title gets the next free slug; the same title again is
 * reported as an existing page.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { checkPageLines } from "../safety/text.ts";
import { recordEvents, type WikiEvent } from "./events.ts";
import { readFrontmatter } from "./frontmatter.ts";
import { createFileExclusive, vaultArea } from "./fs-safe.ts";
import { nameKey } from "./name-key.ts";
import { CANONICAL_TYPES, EVIDENCE_TYPES, type Page, parsePage } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
import {
  pageFormat,
  type RedactionCounts,
  redactionsField,
  redactRecord,
  redactText,
  redactValue,
  sumCounts,
} from "./redaction.ts";
import { slugify } from "./slug.ts";

const FOLDER_OF_TYPE: Record<string, string> = {
  entity: "entities",
  concept: "concepts",
  synthesis: "syntheses",
  analysis: "analyses",
  requirement: "requirements",
  skill: "skills",
  case: "cases",
};

/** Folder under `wiki/` where pages of `type` are created (evidence goes to `sources`). */
export function folderOfType(type: string): string {
  return FOLDER_OF_TYPE[type] ?? "sources";
}

export interface EnsurePageInput {
  type: string;
  title: string;
  /** Markdown body; a frontmatter block pasted at its top is merged, explicit fields winning. */
  content?: string;
  description?: string;
  tags?: string[];
  aliases?: string[];
  status?: string;
  sources?: string[];
  /** Further frontmatter keys, kept as given. */
  extra?: Record<string, unknown>;
}

export interface EnsurePageResult {
  id: string;
  path: string;
  created: boolean;
  /** Secrets redacted before writing, by kind; absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

const MAX_SLUG_ATTEMPTS = 50;
const knownTypes: ReadonlySet<string> = new Set([...CANONICAL_TYPES, ...EVIDENCE_TYPES]);

/** A new page and where it may go. */
export interface FreeSlugPage {
  /** Folder under `wiki/`, e.g. `concepts`. */
  folder: string;
  /** Slug tried first; when it is taken, `<base>-2`, `<base>-3`, … */
  base: string;
  /** Frontmatter, in the order it is written. */
  data: Record<string, unknown>;
  /** Markdown body; a final newline is added when missing. */
  body: string;
  maxAttempts: number;
  /**
   * True when the accepted page found at a taken slug is this same page: it
   * is returned (`created: false`) instead of trying the next slug. A file
   * that cannot be read or parsed is never the same page.
   */
  isSame: (existing: Page) => boolean;
  /** Secrets the caller already took out (of the title, before slugging): counted with the page's. */
  redacted?: RedactionCounts;
  /**
   * Events of this kind of record (`observation_recorded`), logged after
   * `page_created` in the same write when the page is new.
   */
  events?: (place: { id: string; redactions?: RedactionCounts }) => WikiEvent[];
}

/** Where `createPageAtFreeSlug` put the page. */
export interface FreeSlugPlace {
  id: string;
  path: string;
  created: boolean;
  redactions?: RedactionCounts;
  /** `event_not_recorded` when the page was written but the log could not take its events. */
  diagnostics: Diagnostic[];
}

/**
 * Creates the page of `spec` at its first free slug under `wiki/<folder>/`
 * and logs `page_created` (and `spec.events`); never replaces a file. Returns
 * the page's place, and `created: false` when `isSame` recognised the page at
 * a taken slug. Once the page is on disk it is the record: an event the log
 * cannot take is a warning on a created page (see `recordEvents`), never a
 * failure a retry would answer with `page_exists`.
 */
export function createPageAtFreeSlug(
  vault: VaultPaths,
  spec: FreeSlugPage,
  now: Date,
): FreeSlugPlace {
  // The last stop before the disk: whatever a caller missed is redacted here.
  const counts: RedactionCounts = sumCounts(spec.redacted);
  const data = redactValue(spec.data, counts);
  const given = redactText(spec.body, counts);
  const body = given.endsWith("\n") || given === "" ? given : `${given}\n`;
  // Redacted once more as written (a `password: …` field is a secret only next to its key).
  const text = redactRecord(data, pageFormat(body), counts);
  refuseUnreadable(spec, text);
  for (let n = 1; n <= spec.maxAttempts; n += 1) {
    const slug = n === 1 ? spec.base : `${spec.base}-${n}`;
    const id = `${spec.folder}/${slug}`;
    const rel = `wiki/${id}.md`;
    const abs = join(vault.wiki, spec.folder, `${slug}.md`);
    if (createFileExclusive(abs, text, vaultArea(vault))) {
      const redacted = redactionsField(counts);
      const logged = recordEvents(
        vault,
        [
          { kind: "page_created", id, type: data.type, ...redacted },
          ...(spec.events?.({ id, ...redacted }) ?? []),
        ],
        now,
      );
      return { id, path: rel, created: true, ...redacted, diagnostics: logged.diagnostics };
    }
    const existing = readPage(abs, id, rel);
    if (existing !== undefined && spec.isSame(existing)) {
      return { id, path: rel, created: false, diagnostics: [] };
    }
  }
  throw new WikiError(
    diagnostic(
      "page_no_free_slug",
      "error",
      `no free slug for "${String(data.title)}" after ${spec.maxAttempts} attempts under wiki/${spec.folder}/`,
      { path: `wiki/${spec.folder}/${spec.base}.md` },
    ),
  );
}

/**
 * Throws the parser's own error (`page_too_large`, `page_binary`, …) for a
 * page text the registry would refuse, before anything is written: such a
 * page must never be reported as created and then be missing from the wiki.
 */
function refuseUnreadable(spec: FreeSlugPage, text: string): void {
  const id = `${spec.folder}/${spec.base}`;
  const parsed = parsePage(id, `wiki/${id}.md`, Buffer.from(text, "utf8"));
  const refusal = parsed.ok ? undefined : parsed.diagnostics.find((d) => d.severity === "error");
  if (refusal) {
    throw new WikiError({ ...refusal, message: `not written: ${refusal.message}` });
  }
}

/** The page at `abs`, never read through a link (a link there is not the same page). */
function readPage(abs: string, id: string, rel: string): Page | undefined {
  try {
    if (lstatSync(abs).isSymbolicLink()) return undefined;
    const parsed = parsePage(id, rel, readFileSync(abs));
    return parsed.ok ? parsed.page : undefined;
  } catch {
    return undefined;
  }
}

function invalidInput(message: string): never {
  throw new WikiError(diagnostic("page_invalid_input", "error", message));
}

/**
 * Creates the page for `input` unless a page with that title (compared by
 * `nameKey`) exists; never overwrites. Throws `WikiError`: `page_invalid_input`
 * for an unknown type or an empty title, `page_no_free_slug` when every slug
 * tried is taken by another page.
 */
export function ensurePage(
  vault: VaultPaths,
  input: EnsurePageInput,
  now: Date = new Date(),
): EnsurePageResult {
  const diagnostics: Diagnostic[] = [];
  const type = input.type.trim().toLowerCase();
  // Redacted before slugging: the slug becomes the file name, never rewritten later.
  const redacted: RedactionCounts = {};
  const title = redactText(input.title.normalize("NFKC").trim(), redacted);
  if (!knownTypes.has(type)) invalidInput(`unknown page type "${input.type}"`);
  if (title === "") invalidInput("a page needs a non-empty title");

  let body = input.content ?? "";
  let pasted: Record<string, unknown> = {};
  if (/^\uFEFF?---\r?\n/.test(body)) {
    let problem: string | undefined;
    try {
      const parsed = readFrontmatter(body.replace(/^\uFEFF/, ""));
      const data: unknown = parsed.data;
      // A leading `---` rule around a paragraph parses as a YAML string, not fields.
      if (data !== null && typeof data === "object" && !Array.isArray(data)) {
        pasted = data as Record<string, unknown>;
        body = parsed.content.replace(/^\r?\n/, "");
      } else problem = "is not a mapping";
    } catch (error) {
      problem = `is not valid YAML (${(errorMessage(error).split("\n")[0] ?? "").replace(/:\s*$/, "")})`;
    }
    diagnostics.push(
      problem === undefined
        ? diagnostic(
            "page_frontmatter_merged",
            "info",
            "frontmatter found in the content was merged",
          )
        : diagnostic(
            "page_frontmatter_kept_as_text",
            "warning",
            `content starts like frontmatter but ${problem}; kept as text`,
          ),
    );
  }
  const today = now.toISOString().slice(0, 10);
  // Hosts pass absent optional fields as `undefined`, which YAML cannot dump.
  const extra = Object.entries(input.extra ?? {}).filter(([, value]) => value !== undefined);
  const data: Record<string, unknown> = { ...pasted, ...Object.fromEntries(extra) };
  Object.assign(data, { type, title });
  if (input.description !== undefined) data.description = input.description;
  if (input.tags !== undefined) data.tags = input.tags;
  if (input.aliases !== undefined) data.aliases = input.aliases;
  if (input.sources !== undefined) data.sources = input.sources;
  data.status = input.status ?? data.status ?? "draft";
  data.created ??= today;
  data.updated ??= today;
  // Title, description, aliases, tags: one line of visible text each (issue 10).
  checkPageLines(data);

  const place = createPageAtFreeSlug(
    vault,
    {
      folder: folderOfType(type),
      base: slugify(title),
      data,
      body,
      maxAttempts: MAX_SLUG_ATTEMPTS,
      isSame: (existing) => nameKey(existing.title) === nameKey(title),
      redacted,
    },
    now,
  );
  diagnostics.push(...place.diagnostics);
  if (!place.created) {
    diagnostics.push(
      diagnostic(
        "page_exists",
        "info",
        `a page titled "${title}" already exists at ${place.path}; left unchanged`,
        { path: place.path },
      ),
    );
  }
  return { ...place, diagnostics };
}
