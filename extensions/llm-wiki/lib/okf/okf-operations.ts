/**
 * The OKF operations as every host calls them: the vault chosen like any
 * other operation's (`active` by default), a missing vault and any failure
 * turned into diagnostics, never an exception.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { vaultExists } from "../vault/paths.ts";
import { noVaultDiagnostic, type VaultSelector, type WikiService } from "../wiki-service.ts";
import { failureDiagnostic } from "../writing/input.ts";
import { exportOkf, type OkfExportInput, type OkfExportResult } from "./okf-export.ts";
import { importOkf, type OkfImportInput, type OkfImportResult } from "./okf-import.ts";

function noVault(): Diagnostic[] {
  return [noVaultDiagnostic()];
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

/** Exports the selected vault as an OKF v0.2 bundle (see okf-export.ts). */
export function okfExportOperation(
  service: WikiService,
  input: OkfExportInput & { vault?: VaultSelector },
): OkfExportResult {
  const [vault] = service.resolveVaults(input.vault ?? "active");
  if (!vault || !vaultExists(vault)) return failedExport(noVault());
  try {
    return exportOkf(service.handles.get(vault), input);
  } catch (error) {
    return failedExport([failureDiagnostic(error)]);
  }
}

/** Reviews (and with `apply`, imports) an OKF bundle into the selected vault (see okf-import.ts). */
export async function okfImportOperation(
  service: WikiService,
  input: OkfImportInput & { vault?: VaultSelector },
): Promise<OkfImportResult> {
  const [vault] = service.resolveVaults(input.vault ?? "active");
  if (!vault || !vaultExists(vault)) return failedImport(noVault());
  try {
    return await importOkf(service.handles.get(vault), input);
  } catch (error) {
    return failedImport([failureDiagnostic(error)]);
  }
}
