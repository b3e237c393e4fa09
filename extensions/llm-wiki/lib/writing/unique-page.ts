/**
 * Creating a dated evidence page (an observation, a retro) that never
 * overwrites anything. The slug is `<prefix>-<day>-<title slug>`, so two
 * titles that differ only in non-Latin letters get two pages. A taken slug
 * whose page says something else gets the next suffix (`-2`, `-3`, …): the
 * same title recorded twice with different text is two records. A page with
 * the same title and the same body is the same record sent again (a retried
 * call): it is reported as `page_exists`, not written twice.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { appendEvent } from "../vault/events.ts";
import { createFileExclusive } from "../vault/fs-safe.ts";
import { parsePage } from "../vault/page.ts";
import { folderOfType } from "../vault/page-write.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { slugify } from "../vault/slug.ts";

const MAX_SLUG_ATTEMPTS = 100;

/** What an operation that writes one page returns, in every host. */
export interface WrittenPageResult {
  ok: boolean;
  /** Page id, e.g. `sources/obs-2026-11-30-cache-keys`. */
  id?: string;
  /** Vault-relative path, e.g. `wiki/sources/obs-2026-11-30-cache-keys.md`. */
  path?: string;
  /** False when an identical record already existed (nothing written). */
  created?: boolean;
  diagnostics: Diagnostic[];
}

export interface UniquePageSpec {
  /** Slug prefix naming the kind of record: `obs`, `retro`. */
  prefix: string;
  type: string;
  title: string;
  /** Frontmatter besides `type` and `title`; `undefined` values are left out. */
  fields: Record<string, unknown>;
  /** Markdown body; deterministic from the input, so a retried call compares equal. */
  body: string;
}

function norm(text: string): string {
  return text.normalize("NFKC").replace(/\r\n?/g, "\n").trim();
}

/** True when the page at `abs` has this title and this body (a repeat of the same record). */
function sameRecord(abs: string, id: string, rel: string, spec: UniquePageSpec): boolean {
  try {
    const parsed = parsePage(id, rel, readFileSync(abs));
    if (!parsed.ok) return false;
    return (
      norm(parsed.page.title).toLowerCase() === norm(spec.title).toLowerCase() &&
      norm(parsed.page.body) === norm(spec.body)
    );
  } catch {
    return false;
  }
}

/** Creates the page for `spec` under its type's folder; never replaces a file. */
export function createUniquePage(
  vault: VaultPaths,
  spec: UniquePageSpec,
  now: Date,
): { id: string; path: string; created: boolean; diagnostics: Diagnostic[] } {
  const defined = Object.entries(spec.fields).filter(([, value]) => value !== undefined);
  const data = { type: spec.type, title: spec.title, ...Object.fromEntries(defined) };
  const body = spec.body.endsWith("\n") ? spec.body : `${spec.body}\n`;
  // A file object, not a string: gray-matter would otherwise parse a body
  // that starts with `---` as frontmatter.
  const text = matter.stringify({ content: body }, data);
  const folder = folderOfType(spec.type);
  const base = `${spec.prefix}-${now.toISOString().slice(0, 10)}-${slugify(spec.title)}`;
  for (let n = 1; n <= MAX_SLUG_ATTEMPTS; n += 1) {
    const slug = n === 1 ? base : `${base}-${n}`;
    const id = `${folder}/${slug}`;
    const rel = `wiki/${id}.md`;
    const abs = join(vault.wiki, folder, `${slug}.md`);
    if (createFileExclusive(abs, text)) {
      appendEvent(vault, { kind: "page_created", id, type: spec.type }, now);
      return { id, path: rel, created: true, diagnostics: [] };
    }
    if (sameRecord(abs, id, rel, spec)) {
      const message = `the same ${spec.type} ("${spec.title}") is already recorded at ${rel}; nothing written`;
      return {
        id,
        path: rel,
        created: false,
        diagnostics: [diagnostic("page_exists", "info", message, { path: rel })],
      };
    }
  }
  throw new Error(`no free slug for "${spec.title}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}
