/**
 * The service's `digest` operation: refreshes the vault's registry, lints it
 * and writes the digest (digest.ts). A missing vault or a failed write is a
 * result with a diagnostic, never a throw.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { lintVaults } from "../lint/lint.ts";
import { type VaultPaths, vaultExists } from "../vault/paths.ts";
import type { VaultHandles } from "../vault-handles.ts";
import { failureDiagnostic } from "../writing/input.ts";
import { type DigestInput, type DigestResult, writeDigest } from "./digest.ts";

/** Writes the digest of `vault` (the caller's selection); `missing` says why there is none. */
export function digestOperation(
  handles: VaultHandles,
  vault: VaultPaths | undefined,
  input: DigestInput,
  missing: () => Diagnostic[],
): DigestResult {
  if (!vault || !vaultExists(vault)) return { ok: false, diagnostics: missing() };
  try {
    const handle = handles.get(vault);
    const registry = handle.refresh();
    const index = handle.index.status(registry);
    const lint = lintVaults(handles, [vault], input.now ? { now: input.now } : {}).counts;
    return writeDigest(vault, { registry, index, lint }, input);
  } catch (error) {
    return { ok: false, diagnostics: [failureDiagnostic(error)] };
  }
}
