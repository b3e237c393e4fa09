/**
 * Every diagnostic of a reindex in one list: the operation's own (e.g. an
 * embed model missing), then each vault's report's (a busy lock, a failed
 * build). A host that shows only the former hides why a vault was not updated.
 */
import type { Diagnostic } from "./diagnostics.ts";
import type { ReindexResult } from "./wiki-service.ts";

export function reindexDiagnostics(
  result: Pick<ReindexResult, "diagnostics" | "reports">,
): Diagnostic[] {
  return [...result.diagnostics, ...result.reports.flatMap((r) => r.diagnostics)];
}
