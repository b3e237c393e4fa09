/**
 * The OKF operations as the service runs them for every host: the vault
 * chosen like any other operation's (`active` by default), a bundle folder a
 * model chose confined to `roots` (see okf-confine.ts), a missing vault and
 * any failure turned into diagnostics, never an exception.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { VaultSelector } from "../vault/paths.ts";
import { type VaultPaths, vaultExists } from "../vault/paths.ts";
import type { VaultHandles } from "../vault-handles.ts";
import { failureDiagnostic } from "../writing/input.ts";
import { okfDirOutside } from "./okf-confine.ts";
import { exportOkf, type OkfExportInput, type OkfExportResult } from "./okf-export.ts";
import { importOkf, type OkfImportInput, type OkfImportResult } from "./okf-import.ts";

/** What an OKF operation needs of the service (a narrow view: no import cycle). */
export interface OkfHost {
  resolveVaults(selector?: VaultSelector): VaultPaths[];
  readonly handles: VaultHandles;
  /** The diagnostics of "no vault here" in the service's words. */
  missing(): Diagnostic[];
}

/** Which vault, and where the bundle may be: inside `roots` (a model chose `dir`), or anywhere when absent (the user did). */
export interface OkfPlacement {
  vault?: VaultSelector;
  roots?: readonly string[];
}

const failedExport = (diagnostics: Diagnostic[]): OkfExportResult => ({
  ok: false,
  pages: [],
  indexes: [],
  raw: [],
  removed: [],
  replacedPrevious: false,
  diagnostics,
});

const failedImport = (diagnostics: Diagnostic[]): OkfImportResult => ({
  ok: false,
  applied: false,
  creates: [],
  identical: [],
  conflicts: [],
  rejected: [],
  reserved: [],
  diagnostics,
});

/** A signal that cancels a long OKF operation (see sliced-work.ts). */
export interface OkfCancel {
  signal?: AbortSignal;
}

/**
 * Exports the selected vault as an OKF v0.2 bundle (see okf-export.ts), in
 * slices that `signal` can cancel; `input.dir` is absolute.
 */
export async function okfExportOperation(
  host: OkfHost,
  { vault: selector, roots, signal, ...input }: OkfExportInput & OkfPlacement & OkfCancel,
): Promise<OkfExportResult> {
  const [vault] = host.resolveVaults(selector ?? "active");
  if (!vault || !vaultExists(vault)) return failedExport(host.missing());
  const outside = roots && okfDirOutside(input.dir, roots, "export");
  if (outside) return failedExport([outside]);
  try {
    return await exportOkf(host.handles.get(vault), input, signal);
  } catch (error) {
    return failedExport([failureDiagnostic(error)]);
  }
}

/**
 * Reviews (and with `apply`, imports) an OKF bundle into the selected vault
 * (see okf-import.ts), in slices that `signal` can cancel; `input.dir` is absolute.
 */
export async function okfImportOperation(
  host: OkfHost,
  { vault: selector, roots, signal, ...input }: OkfImportInput & OkfPlacement & OkfCancel,
): Promise<OkfImportResult> {
  const [vault] = host.resolveVaults(selector ?? "active");
  if (!vault || !vaultExists(vault)) return failedImport(host.missing());
  const outside = roots && okfDirOutside(input.dir, roots, "import");
  if (outside) return failedImport([outside]);
  try {
    return await importOkf(host.handles.get(vault), input, signal);
  } catch (error) {
    return failedImport([failureDiagnostic(error)]);
  }
}
