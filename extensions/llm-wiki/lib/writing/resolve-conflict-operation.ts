/**
 * The service's `resolveConflict`: the user's choice between two claims
 * written as one immutable resolution page (record-resolution.ts), under
 * the vault's resolution lock, logged as `conflict_selected` feedback and
 * indexed at once.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { appendFeedback, INDEX_VERSION } from "../feedback/feedback-event.ts";
import { acquireLock, type LockHandle } from "../index/lock.ts";
import { readVaultConfig } from "../vault/config.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultSelector } from "../vault/paths.ts";
import { type VaultPaths, vaultExists } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import type { VaultHandles } from "../vault-handles.ts";
import { withIndexing } from "./index-written-page.ts";
import { failureDiagnostic } from "./input.ts";
import { type ResolveConflictResult, recordResolution } from "./record-resolution.ts";
import type { ResolveConflictInput } from "./resolve-conflict.ts";

/** The lock file under `meta/` that serialises conflict resolutions of a vault. */
const RESOLUTION_LOCK = "resolution.lock";
/** How long a resolution waits for another in progress (a write takes milliseconds). */
const RESOLUTION_LOCK_WAIT_MS = 5_000;

/** What the operation needs of the service. */
export interface ResolveConflictContext {
  handles: VaultHandles;
  resolveVaults(selector: VaultSelector): VaultPaths[];
  registry(vault: VaultPaths): Registry;
  /** Diagnostics for "no vault" (with the reason discovery found none). */
  missing(): Diagnostic[];
}

/** Records the user's resolution of a conflict in the selected vault. */
export async function resolveConflictOperation(
  ctx: ResolveConflictContext,
  input: ResolveConflictInput,
): Promise<ResolveConflictResult> {
  const [vault] = ctx.resolveVaults(input.vault ?? "active");
  if (!vault || !vaultExists(vault)) return { ok: false, diagnostics: ctx.missing() };
  // Two processes deciding the same pair differently at once: the lock
  // makes the second see the first's page (its registry is re-read
  // inside) and refuse, instead of leaving two active resolutions.
  let lock: LockHandle;
  try {
    mkdirSync(vault.meta, { recursive: true });
    lock = await acquireLock(join(vault.meta, RESOLUTION_LOCK), {
      op: "resolve-conflict",
      waitMs: RESOLUTION_LOCK_WAIT_MS,
    });
  } catch (error) {
    const cause = failureDiagnostic(error);
    return {
      ok: false,
      diagnostics: [
        diagnostic(
          "resolution_busy",
          "error",
          `another conflict resolution in this vault holds its lock (${cause.message}); nothing written, try again`,
        ),
      ],
    };
  }
  let written: ResolveConflictResult;
  try {
    // Read only to tell a page of the other vault from a missing one.
    const otherKind = vault.kind === "project" ? "personal" : "project";
    const other = ctx.resolveVaults(otherKind).find((v) => v.dir !== vault.dir && vaultExists(v));
    let otherPages: ReadonlyMap<string, PageMeta> | undefined;
    const vaultId = readVaultConfig(vault).config.vault_id;
    written = recordResolution(
      vault,
      {
        kind: vault.kind,
        ...(vaultId !== undefined ? { vaultId } : {}),
        pages: ctx.registry(vault).pages,
        otherVaultHas(id) {
          if (!other) return false;
          otherPages ??= ctx.registry(other).pages;
          return otherPages.has(id);
        },
      },
      input,
    );
    if (written.created && written.resolution) {
      // The user's choice is the strongest feedback there is; the page above is its record.
      try {
        appendFeedback(vault, [
          {
            vault_id: vaultId ?? "",
            page: written.resolution.selected,
            query_hash: null,
            action: "conflict_selected",
            rank: null,
            mode: "none",
            index_version: INDEX_VERSION,
            resolution: written.resolution.id,
          },
        ]);
      } catch {
        // Replayed from the resolution page (see feedback/vault-feedback.ts).
      }
    }
  } catch (error) {
    return { ok: false, diagnostics: [failureDiagnostic(error)] };
  } finally {
    lock.release();
  }
  if (!written.created || written.path === undefined) return written;
  return withIndexing(ctx.handles.get(vault), written.path, written);
}
