/**
 * `ensurePage`: creates the page for a type and a title unless a page with
 * that title (compared by `nameKey`) exists; never overwrites. Its input is
 * checked by ensure-page-input.ts, then the page goes down the shared write
 * path (write-page-pipeline.ts).
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { nameKey } from "../vault/name-key.ts";
import { folderOfType } from "../vault/page-folders.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { RedactionCounts } from "../vault/redaction.ts";
import { slugify } from "../vault/slug.ts";
import { type EnsurePageInput, validateEnsurePage } from "./ensure-page-input.ts";
import { writePage } from "./write-page-pipeline.ts";

export type { EnsurePageInput } from "./ensure-page-input.ts";

export interface EnsurePageResult {
  id: string;
  path: string;
  created: boolean;
  /** Secrets redacted before writing, by kind; absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

const MAX_SLUG_ATTEMPTS = 50;

/**
 * Creates the page for `input`. Throws `WikiError`: `page_invalid_input`
 * for an unknown type or an empty title, `page_no_free_slug` when every
 * slug tried is taken by another page.
 */
export function ensurePage(
  vault: VaultPaths,
  input: EnsurePageInput,
  now: Date = new Date(),
): EnsurePageResult {
  const page = validateEnsurePage(input, now);
  const written = writePage(
    vault,
    {
      folder: folderOfType(page.type),
      base: slugify(page.title),
      data: page.data,
      body: page.body,
      maxAttempts: MAX_SLUG_ATTEMPTS,
      isSame: (existing) => nameKey(existing.title) === nameKey(page.title),
      redacted: page.redacted,
    },
    now,
  );
  const diagnostics = [...page.diagnostics, ...written.diagnostics];
  if (!written.created) {
    diagnostics.push(
      diagnostic(
        "page_exists",
        "info",
        `a page titled "${page.title}" already exists at ${written.path}; left unchanged`,
        { path: written.path },
      ),
    );
  }
  return { ...written, diagnostics };
}
