/**
 * Stage place of the page write path: the rendered text written at the
 * first free slug under `wiki/<folder>/`, never over a file. The write is
 * the exclusive, atomic creation of `fs-safe.ts` (a temporary file
 * hard-linked into place, refused through a link), so finding a free slug
 * and claiming it are one step: two writers racing for a slug cannot both
 * get it. A taken slug holding this same page (`isSame`) is that page, not
 * a reason to try the next one.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import { createFileExclusive, vaultArea } from "../vault/fs-safe.ts";
import { type Page, parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { PageDraft } from "./page-draft.ts";

/** Where a page may go, from its draft; `title` names it in a refusal. */
export type PlaceRequest = Pick<PageDraft, "folder" | "base" | "maxAttempts" | "isSame"> & {
  title: string;
};

/** Where the page is: written there now (`created`), or found there already. */
export interface PlacedPage {
  id: string;
  /** Vault-relative path, `wiki/<id>.md`. */
  path: string;
  created: boolean;
}

/**
 * Writes `text` at `<base>`, `<base>-2`, … (at most `maxAttempts` slugs).
 * Throws `WikiError`: `page_no_free_slug` when every slug is another page's,
 * `write_through_link` for a link on the way (see `createFileExclusive`).
 */
export function placePage(vault: VaultPaths, request: PlaceRequest, text: string): PlacedPage {
  for (let n = 1; n <= request.maxAttempts; n += 1) {
    const slug = n === 1 ? request.base : `${request.base}-${n}`;
    const id = `${request.folder}/${slug}`;
    const path = `wiki/${id}.md`;
    const abs = join(vault.wiki, request.folder, `${slug}.md`);
    if (createFileExclusive(abs, text, vaultArea(vault))) return { id, path, created: true };
    const existing = readPage(abs, id, path);
    if (existing !== undefined && request.isSame(existing)) return { id, path, created: false };
  }
  throw new WikiError(
    diagnostic(
      "page_no_free_slug",
      "error",
      `no free slug for "${request.title}" after ${request.maxAttempts} attempts under wiki/${request.folder}/`,
      { path: `wiki/${request.folder}/${request.base}.md` },
    ),
  );
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
