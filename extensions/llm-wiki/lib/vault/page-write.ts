/**
 * Creating pages: never overwriting. A title whose slug is taken by a page
 * with another title gets the next free slug; the same title again is
 * reported as an existing page.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { appendEvent } from "./events.ts";
import { createFileExclusive } from "./fs-safe.ts";
import { CANONICAL_TYPES, EVIDENCE_TYPES, parsePage } from "./page.ts";
import type { VaultPaths } from "./paths.ts";
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
  diagnostics: Diagnostic[];
}

const MAX_SLUG_ATTEMPTS = 50;
const knownTypes: ReadonlySet<string> = new Set([...CANONICAL_TYPES, ...EVIDENCE_TYPES]);

function sameTitle(a: string, b: string): boolean {
  const norm = (s: string) => s.normalize("NFKC").trim().toLowerCase();
  return norm(a) === norm(b);
}

function existingTitle(abs: string, id: string, rel: string): string | undefined {
  try {
    const parsed = parsePage(id, rel, readFileSync(abs));
    return parsed.ok ? parsed.page.title : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the page for `input` unless a page with that title exists; never overwrites. */
export function ensurePage(
  vault: VaultPaths,
  input: EnsurePageInput,
  now: Date = new Date(),
): EnsurePageResult {
  const diagnostics: Diagnostic[] = [];
  const type = input.type.trim().toLowerCase();
  const title = input.title.normalize("NFKC").trim();
  if (!knownTypes.has(type)) {
    throw new TypeError(`unknown page type "${input.type}"`);
  }
  if (title === "") throw new TypeError("a page needs a non-empty title");

  let body = input.content ?? "";
  let pasted: Record<string, unknown> = {};
  if (/^\uFEFF?---\r?\n/.test(body)) {
    let problem: string | undefined;
    try {
      const parsed = matter(body, { excerpt: false });
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
  // A file object, not a string: given a string, gray-matter would parse a
  // body that starts with `---` as frontmatter (and throw on a bad one).
  const text = matter.stringify(
    { content: body.endsWith("\n") || body === "" ? body : `${body}\n` },
    data,
  );

  const folder = folderOfType(type);
  const base = slugify(title);
  for (let n = 1; n <= MAX_SLUG_ATTEMPTS; n += 1) {
    const slug = n === 1 ? base : `${base}-${n}`;
    const id = `${folder}/${slug}`;
    const rel = `wiki/${id}.md`;
    const abs = join(vault.wiki, folder, `${slug}.md`);
    if (createFileExclusive(abs, text)) {
      appendEvent(vault, { kind: "page_created", id, type }, now);
      return { id, path: rel, created: true, diagnostics };
    }
    const there = existingTitle(abs, id, rel);
    if (there !== undefined && sameTitle(there, title)) {
      diagnostics.push(
        diagnostic(
          "page_exists",
          "info",
          `a page titled "${title}" already exists at ${rel}; left unchanged`,
          {
            path: rel,
          },
        ),
      );
      return { id, path: rel, created: false, diagnostics };
    }
  }
  throw new Error(`no free slug for "${title}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}
