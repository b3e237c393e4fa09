/**
 * Creating a dated evidence page (an observation, a retro) that never
 * overwrites anything. The slug is `<prefix>-<day>-<title slug>`, so two
 * titles that differ only in non-Latin letters get two pages. A taken slug
 * whose page says something else gets the next suffix (`-2`, `-3`, …): the
 * same title recorded twice with different text is two records. A page with
 * the same title and the same body is the same record sent again (a retried
 * call): it is reported as `page_exists`, not written twice. The page goes
 * down the shared write path (write-page-pipeline.ts).
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import type { WikiEvent } from "../vault/events.ts";
import { nameKey } from "../vault/name-key.ts";
import { folderOfType } from "../vault/page-folders.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactText, sumCounts } from "../vault/redaction.ts";
import { slugify } from "../vault/slug.ts";
import { writePage } from "./write-page-pipeline.ts";

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
  /** Secrets redacted before writing, by kind (never their values); absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

export interface UniquePageSpec {
  /** Slug prefix naming the kind of record: `obs`, `retro`. */
  prefix: string;
  type: string;
  title: string;
  status: string;
  /** Cleaned tags and sources (see `cleanList`); an empty list is left out of the frontmatter. */
  tags: string[];
  sources: string[];
  /**
   * Frontmatter of this kind of record, written after `status`, `tags` and
   * `sources` and before `created` and `updated`; `undefined` values are left out.
   */
  fields?: Record<string, unknown>;
  /** Markdown body; deterministic from the input, so a retried call compares equal. */
  body: string;
  /** Secrets the caller took out of fields before formatting them into the body, by kind. */
  redacted?: RedactionCounts;
  /** Logged after `page_created` when the page is new, with the page's `id` and `title` added. */
  recorded: WikiEvent;
}

function norm(text: string): string {
  return text.normalize("NFKC").replace(/\r\n?/g, "\n").trim();
}

/**
 * Creates the page for `spec` under its type's folder, never replacing a
 * file, and logs `spec.recorded` when it is new (with `page_created`, in
 * one write: a log that cannot take them leaves an `event_not_recorded`
 * warning on the created page, see page-record.ts).
 */
export function createUniquePage(
  vault: VaultPaths,
  spec: UniquePageSpec,
  now: Date,
): WrittenPageResult & { ok: true } {
  const day = now.toISOString().slice(0, 10);
  // The title is redacted before it becomes the slug (the file name), and
  // the body before it is compared with a page already there; the rest of
  // the page is redacted where every page is written.
  const redacted: RedactionCounts = sumCounts(spec.redacted);
  const title = redactText(spec.title, redacted);
  const body = redactText(spec.body, redacted);
  const fields = {
    status: spec.status,
    tags: spec.tags.length > 0 ? spec.tags : undefined,
    sources: spec.sources.length > 0 ? spec.sources : undefined,
    ...spec.fields,
    created: day,
    updated: day,
  };
  const defined = Object.entries(fields).filter(([, value]) => value !== undefined);
  const place = writePage(
    vault,
    {
      folder: folderOfType(spec.type),
      base: `${spec.prefix}-${day}-${slugify(title)}`,
      data: { type: spec.type, title, ...Object.fromEntries(defined) },
      body,
      maxAttempts: MAX_SLUG_ATTEMPTS,
      // The same title and the same body: this record, sent again.
      isSame: (existing) =>
        nameKey(existing.title) === nameKey(title) && norm(existing.body) === norm(body),
      redacted,
      events: ({ id, redactions }) => {
        const { kind, ...detail } = spec.recorded;
        return [{ kind, id, title, ...detail, ...(redactions ? { redactions } : {}) }];
      },
    },
    now,
  );
  if (!place.created) {
    const message = `the same ${spec.type} ("${title}") is already recorded at ${place.path}; nothing written`;
    return {
      ok: true,
      ...place,
      diagnostics: [diagnostic("page_exists", "info", message, { path: place.path })],
    };
  }
  return { ok: true, ...place };
}
