/**
 * `llm-wiki bench vault [--mode M] [--json]`: runs the vault's own
 * evaluation set (its recall corrections) through explicit recall and
 * prints one row per case and `N cases, N pass`. Failing cases are the
 * report, not an error: the exit code is 1 only when recall itself failed.
 */
import {
  runVaultBench,
  type VaultBenchReport,
} from "../extensions/llm-wiki/lib/bench/vault-bench.ts";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { neutraliseLine } from "../extensions/llm-wiki/lib/safety/text.ts";
import type { RetrievalMode } from "../extensions/llm-wiki/lib/settings.ts";
import { vaultExists } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { noVaultDiagnostic, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";

/** The report as a table and a summary line. */
export function renderVaultBench(report: VaultBenchReport): string {
  const rank = (n: number | null) => (n === null ? "-" : String(n));
  const header = ["result", "correction rank", "corrected rank", "correction → corrected page"];
  const rows = report.cases.map((c) => [
    c.pass ? "pass" : c.failure === "corrected_outranks_correction" ? "FAIL (outranked)" : "FAIL",
    rank(c.correctionRank),
    rank(c.correctedRank),
    `${neutraliseLine(c.correction)} → ${neutraliseLine(c.correctedPage)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ");
  const summary = `${report.summary.cases} cases, ${report.summary.pass} pass`;
  const title = `bench vault (${report.vault.kind} vault ${neutraliseLine(report.vault.root)}): a case passes when its correction page is in the top ${report.top}, above the page it corrects`;
  if (report.cases.length === 0) {
    return `${title}\nno recall corrections in this vault yet (wiki_recall_feedback or llm-wiki feedback with --judgment corrected records them)\n${summary}`;
  }
  return [title, "", line(header), ...rows.map(line), "", summary].join("\n");
}

/** Runs `bench vault` on the active vault (or `--vault`). */
export async function benchVaultCommand(
  service: WikiService,
  mode: RetrievalMode | undefined,
  explicitVault?: string,
): Promise<{ ok: boolean; result: object; text: string; diagnostics: Diagnostic[] }> {
  const [vault] = service.resolveVaults("active");
  if (!vault || !vaultExists(vault)) {
    const diagnostics = [noVaultDiagnostic(explicitVault)];
    return { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics };
  }
  // A one-shot command has no background indexer: bring the index up to date first, as recall does.
  const index = service.status().vault?.index;
  if (index && index.state !== "ready") await service.reindex({ scope: "changed" });
  const report = await runVaultBench(vault, (input) => service.recall(input), mode);
  return {
    ok: report.ok,
    result: report,
    text: renderVaultBench(report),
    diagnostics: report.diagnostics,
  };
}
