/**
 * Writing a user's conflict resolution: the checks of `resolve-conflict.ts`,
 * then one page created by the shared write path (write-page-pipeline.ts):
 * atomically (a temporary file hard-linked into place, so a reader sees the whole page or none, and an existing file is
 * never replaced), then its events. The claim pages are only read.
 */
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import type { VaultKind, VaultPaths } from "../vault/paths.ts";
import type { RedactionCounts } from "../vault/redaction.ts";
import type { Resolution } from "../vault/relations.ts";
import { decisionVault, resolutionMismatch } from "../vault/resolutions.ts";
import {
  cleanResolveInput,
  planResolution,
  RESOLUTION_FOLDER,
  type ResolutionView,
  type ResolveConflictInput,
  resolutionPage,
  unchangedDiagnostic,
} from "./resolve-conflict.ts";
import { type PageWrite, writePage } from "./write-page-pipeline.ts";

/** What `resolveConflict` returns in every host (Pi `details`, MCP `structuredContent`, CLI `--json`). */
export interface ResolveConflictResult {
  ok: boolean;
  /** The vault the resolution was recorded in. */
  vault?: VaultKind;
  /** The resolution page's id, `analyses/conflict-resolution-<16 hex>`. */
  id?: string;
  /** Vault-relative path, `wiki/analyses/conflict-resolution-<16 hex>.md`. */
  path?: string;
  /** False when this same decision was already recorded and in force (nothing written). */
  created?: boolean;
  /** The record, as its page's front matter reads back. */
  resolution?: Resolution;
  /**
   * Whether the search index holds the page. False when the update after the
   * write failed (the page stays; an `index_stale` warning says so) or the
   * vault has no index yet.
   */
  indexed?: boolean;
  /** Secrets redacted from the scope or rationale before writing, by kind; absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

/**
 * Checks `input` against `view` (the vault's current pages) and writes the
 * resolution page unless the same decision is already in force. Throws
 * `WikiError` with the refusal's diagnostic; nothing is written then.
 */
export function recordResolution(
  vault: VaultPaths,
  view: ResolutionView,
  input: ResolveConflictInput,
  now: Date = new Date(),
): ResolveConflictResult & { ok: true } {
  const clean = cleanResolveInput(input);
  const plan = planResolution(clean, view);
  const path = `wiki/${plan.page}.md`;
  if (plan.kind === "existing") {
    return {
      ok: true,
      vault: view.kind,
      id: plan.page,
      path,
      created: false,
      resolution: plan.resolution,
      diagnostics: [unchangedDiagnostic(plan.page)],
    };
  }
  const title = (id: string) => view.pages.get(id)?.title ?? id;
  const page = resolutionPage(
    plan,
    {
      selected: title(plan.resolution.selected),
      other: title(plan.resolution.other),
      ...(plan.replacedPage ? { replaced: title(plan.replacedPage) } : {}),
    },
    clean.rationale,
    now,
  );
  const slug = plan.page.slice(RESOLUTION_FOLDER.length + 1);
  const resolution: Resolution = { ...plan.resolution, decidedAt: now.toISOString() };
  let place: PageWrite;
  try {
    place = writePage(
      vault,
      {
        folder: RESOLUTION_FOLDER,
        base: slug,
        data: page.data,
        body: page.body,
        // One place only: the file name is the decision's hash.
        maxAttempts: 1,
        // Written meanwhile by another process making the same decision.
        isSame: (existing) =>
          existing.resolution?.id === plan.resolution.id &&
          resolutionMismatch(
            plan.page,
            existing.resolution,
            decisionVault(view.kind, view.vaultId),
          ) === undefined,
        redacted: clean.redacted,
        events: ({ id, redactions }) => [
          {
            kind: "conflict_resolved",
            id,
            resolution: resolution.id,
            selected: resolution.selected,
            other: resolution.other,
            relation: resolution.relation,
            ...(resolution.scope !== undefined ? { scope: resolution.scope } : {}),
            ...(resolution.replaces !== undefined ? { replaces: resolution.replaces } : {}),
            ...(redactions ? { redactions } : {}),
          },
        ],
      },
      now,
    );
  } catch (error) {
    if (error instanceof WikiError && error.diagnostic.code === "page_no_free_slug") {
      throw new WikiError(
        diagnostic(
          "resolution_path_taken",
          "error",
          `${path} exists but is not the resolution ${plan.resolution.id}; move it aside and try again`,
          { path },
        ),
      );
    }
    throw error;
  }
  if (!place.created) {
    return {
      ok: true,
      vault: view.kind,
      id: place.id,
      path: place.path,
      created: false,
      resolution,
      diagnostics: [unchangedDiagnostic(plan.page)],
    };
  }
  return {
    ok: true,
    vault: view.kind,
    id: place.id,
    path: place.path,
    created: true,
    resolution,
    ...(place.redactions ? { redactions: place.redactions } : {}),
    diagnostics: place.diagnostics,
  };
}
