/**
 * The text every host shows for `rebuildMeta`: per vault, what was
 * rewritten, what was already current, and whether the index was updated.
 */
import { neutraliseLine } from "../safety/text.ts";
import type { RebuildMetaResult } from "./rebuild-meta.ts";

/** One block per vault; paths are relative to the vault's `.llm-wiki/`. */
export function renderRebuildMeta(result: RebuildMetaResult): string {
  const lines: string[] = [];
  for (const v of result.vaults) {
    lines.push(
      `${v.kind} vault (${v.format ?? "unknown format"}): ${v.pages} pages, ${v.events} events; index ${v.indexed ? "updated" : "not updated"}`,
    );
    const list = (label: string, paths: string[]) => {
      if (paths.length > 0) lines.push(`  ${label} ${paths.map(neutraliseLine).join(", ")}`);
    };
    list("written  ", v.written);
    list("unchanged", v.unchanged);
    list("removed  ", v.removed);
    const redacted = Object.entries(v.redactions ?? {});
    if (redacted.length > 0) {
      lines.push(`  redacted ${redacted.map(([kind, n]) => `${n} ${kind}`).join(", ")}`);
    }
  }
  return lines.join("\n");
}
