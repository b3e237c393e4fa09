/**
 * Staleness findings: pages past their `stale_after` (vault/stale-after.ts
 * reads the value), and values that cannot be read.
 */
import type { PageMeta } from "../vault/page.ts";
import { staleDue } from "../vault/stale-after.ts";
import type { LintFinding } from "./types.ts";

export { type Due, staleDue } from "../vault/stale-after.ts";

/** Pages past their `stale_after`, and `stale_after` values that cannot be read. */
export function staleFindings(pages: Iterable<PageMeta>, now: Date): LintFinding[] {
  const out: LintFinding[] = [];
  for (const page of pages) {
    const due = staleDue(page);
    if (due === undefined) continue;
    if ("problem" in due) {
      out.push({
        check: "stale",
        code: "stale_after_invalid",
        severity: "warning",
        message: `${page.path}: ${due.problem}`,
        path: page.path,
      });
      continue;
    }
    if (now.getTime() < due.due.getTime()) continue;
    const since = due.due.toISOString().slice(0, 10);
    out.push({
      check: "stale",
      code: "page_stale",
      severity: "warning",
      message: `${page.path}: stale since ${since} (stale_after ${page.staleAfter}); review it and update \`updated\` or \`stale_after\``,
      path: page.path,
    });
  }
  return out;
}
