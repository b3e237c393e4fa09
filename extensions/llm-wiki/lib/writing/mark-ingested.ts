/**
 * Marks a source page as ingested: its frontmatter `status: skeleton` line
 * becomes `status: ingested` and not one other byte of the page changes.
 * The page is copied under `meta/backups/` first, the new text replaces the
 * old atomically, and a page that changed while this ran is left alone.
 */
import { join } from "node:path";
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { recordEvents } from "../vault/events.ts";
import { createFileExclusive } from "../vault/fs-safe.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { commitEdit, openFrontmatter } from "./frontmatter-edit.ts";
import type { SourceRef } from "./ingest-sources.ts";

/** A top-level `status:` line; the value may be quoted and followed by a comment. */
const STATUS_LINE = /^status:[ \t]*(["']?)([^"'\r\n#]*?)\1[ \t]*(?:#[^\r\n]*)?$/gm;

/** What marking did. */
export interface MarkOutcome {
  /** False when the page already said `ingested`. */
  changed: boolean;
  /** Vault-relative path of the copy taken before the rewrite. */
  backup?: string;
  diagnostics: Diagnostic[];
}

function fail(code: string, message: string, path?: string): never {
  throw new WikiError(diagnostic(code, "error", message, path ? { path } : {}));
}

/** Copies `bytes` to a fresh `meta/backups/<time>[-n]/<rel>`; never replaces an earlier backup. */
function backup(vault: VaultPaths, rel: string, bytes: Buffer, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  for (let n = 1; n <= 100; n += 1) {
    const folder = `meta/backups/${stamp}${n === 1 ? "" : `-${n}`}`;
    if (createFileExclusive(join(vault.dir, folder, rel), bytes)) return `${folder}/${rel}`;
  }
  return fail("ingest_backup_failed", `could not create a backup of ${rel}`, rel);
}

/** Flips the page of `ref` from `skeleton` to `ingested`. Throws `WikiError` when it cannot. */
export function markIngested(
  vault: VaultPaths,
  ref: SourceRef,
  now: Date = new Date(),
): MarkOutcome {
  const rel = ref.pagePath;
  const name = ref.sourceId ?? ref.page ?? ref.title;
  if (!rel || !ref.page) {
    return fail(
      "ingest_no_page",
      `${name} has no source page to mark; create one with wiki_ensure_page (type source) first`,
    );
  }
  const site = openFrontmatter(vault, rel);
  if (site === "unsafe") {
    return fail(
      "ingest_page_unsafe",
      `${rel} is not a plain file under wiki/; left unchanged`,
      rel,
    );
  }
  if (site === "no_frontmatter") {
    return fail("ingest_status_not_found", `${rel} has no frontmatter; left unchanged`, rel);
  }
  const { text, start, block } = site;
  const lines = [...block.matchAll(STATUS_LINE)];
  if (lines.length !== 1 || !lines[0]) {
    return fail(
      "ingest_status_not_found",
      `${rel} has ${lines.length === 0 ? "no" : "more than one"} top-level status line; left unchanged`,
      rel,
    );
  }
  const line = lines[0];
  const status = (line[2] ?? "").trim().toLowerCase();
  if (status === "ingested") {
    return {
      changed: false,
      diagnostics: [
        diagnostic("ingest_already_marked", "info", `${rel} is already marked ingested`, {
          path: rel,
        }),
      ],
    };
  }
  if (status !== "skeleton") {
    return fail(
      "ingest_not_skeleton",
      `${rel} has status "${status}", not "skeleton"; only a skeleton is marked ingested`,
      rel,
    );
  }
  const at = start + line.index;
  const after = `${text.slice(0, at)}status: ingested${text.slice(at + line[0].length)}`;
  const parsed = parsePage(ref.page, rel, Buffer.from(after, "utf8"));
  if (!parsed.ok || parsed.page.status !== "ingested") {
    return fail(
      "ingest_status_not_found",
      `${rel}: the status line could not be rewritten safely`,
      rel,
    );
  }
  const saved = backup(vault, rel, site.before, now);
  // A concurrent editor may have saved since the read: their change wins, nothing is lost.
  if (!commitEdit(site, after)) {
    return fail(
      "ingest_page_changed",
      `${rel} changed while being marked; left unchanged, try again`,
      rel,
    );
  }
  // The page is marked; a log that cannot take the event is a warning.
  const logged = recordEvents(
    vault,
    [
      {
        kind: "source_ingested",
        ...(ref.sourceId ? { id: ref.sourceId } : {}),
        page: ref.page,
        backup: saved,
      },
    ],
    now,
  );
  return { changed: true, backup: saved, diagnostics: logged.diagnostics };
}
