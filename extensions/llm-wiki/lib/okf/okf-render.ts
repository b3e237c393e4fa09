/**
 * Text of OKF export and import results, shared by the CLI and MCP: the
 * import review lists what would be created, what is identical and each
 * conflict with its reason, so a person can decide before `--apply`.
 */
import { neutraliseLine } from "../safety/text.ts";
import type { OkfExportResult } from "./okf-export.ts";
import type { ImportItem, OkfImportResult } from "./okf-import.ts";

/** At most this many paths are listed per group; the rest are counted. */
const LISTED = 50;

function list(title: string, items: readonly ImportItem[]): string[] {
  if (items.length === 0) return [];
  const lines = [`${title} (${items.length}):`];
  for (const item of items.slice(0, LISTED)) {
    const why = item.reason ? ` — ${neutraliseLine(item.reason)}` : "";
    lines.push(`  ${neutraliseLine(item.path)}${why}`);
  }
  if (items.length > LISTED) lines.push(`  … and ${items.length - LISTED} more (--json lists all)`);
  return lines;
}

/** The text of an OKF export. */
export function renderOkfExport(r: OkfExportResult): string {
  if (!r.ok) return "OKF export: nothing written";
  const lines = [
    `OKF v0.2 bundle written to ${neutraliseLine(r.dir ?? "")}${r.replacedPrevious ? " (replacing its previous export)" : ""}`,
    `  ${r.pages.length} page(s), ${r.indexes.length} index file(s)${r.raw.length > 0 ? `, ${r.raw.length} raw file(s)` : ""}`,
  ];
  if (r.removed.length > 0)
    lines.push(`  ${r.removed.length} file(s) of the previous export removed`);
  return lines.join("\n");
}

/**
 * The text of an OKF import review (dry run) or apply; `applyWith` is how
 * this host asks to apply (`--apply` on the command line, `apply: true` for a tool).
 */
export function renderOkfImport(r: OkfImportResult, applyWith = "--apply"): string {
  // Refused before the bundle was read (no vault, a folder outside the project).
  if (!r.ok && r.dir === undefined) return "OKF import: nothing read, nothing written";
  const head = r.applied
    ? `OKF import applied from ${neutraliseLine(r.dir ?? "")}`
    : `OKF import review of ${neutraliseLine(r.dir ?? "")} (dry run: nothing written)`;
  const lines = [
    head,
    ...list(r.applied ? "created" : "would create", r.creates),
    ...list("identical (skipped)", r.identical),
    ...list("conflicts (never overwritten)", r.conflicts),
    ...list("rejected (not pages)", r.rejected),
  ];
  if (r.reserved.length > 0)
    lines.push(`reserved index/log files not imported: ${r.reserved.length}`);
  if (r.creates.length + r.identical.length + r.conflicts.length + r.rejected.length === 0) {
    lines.push("no concept documents found");
  }
  if (!r.applied && r.creates.length > 0) lines.push(`run again with ${applyWith} to create them`);
  return lines.join("\n");
}
