/**
 * `lint --fix`, conservative by design: it only creates stub pages for
 * knowledge gaps, through `ensurePage` (exclusive creation). It never
 * deletes, renames or rewrites a file, so it needs no backups; a gap whose
 * stub path is already taken (a malformed page, say) is skipped and reported.
 */
import { errorMessage } from "../diagnostics.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { ensurePage } from "../writing/ensure-page.ts";
import { planGapStub, stubBody } from "./gap-stub.ts";
import { type KnowledgeGap, occupied } from "./link-checks.ts";
import type { LintFix } from "./types.ts";

/** Creates a `stub` page for each gap that has a free, typed place. */
export function createGapStubs(
  vault: VaultPaths,
  gaps: KnowledgeGap[],
  now: Date,
): { fixed: LintFix[]; skipped: LintFix[] } {
  const fixed: LintFix[] = [];
  const skipped: LintFix[] = [];
  for (const gap of gaps) {
    const linkedFrom = gap.linkedFrom.map((id) => `wiki/${id}.md`);
    const plan = planGapStub(gap.target);
    const base = { target: gap.target, linkedFrom };
    if ("reason" in plan) {
      skipped.push({ ...base, code: "gap_stub_skipped", reason: plan.reason });
      continue;
    }
    const where = { id: plan.id, path: plan.path };
    // ensurePage would pick `<slug>-2` beside a file it cannot read as the
    // same title; a stub there would not close the gap, so leave it alone.
    if (occupied(vault, plan.path)) {
      skipped.push({
        ...base,
        ...where,
        code: "gap_stub_skipped",
        reason: `${plan.path} exists but is not an accepted page; left unchanged`,
      });
      continue;
    }
    try {
      const result = ensurePage(
        vault,
        {
          type: plan.type,
          title: plan.title,
          status: "stub",
          content: stubBody(plan.title, gap.linkedFrom),
        },
        now,
      );
      if (result.created) {
        // Only a file made between the check above and now moves the stub aside.
        fixed.push({
          ...base,
          id: result.id,
          path: result.path,
          code: "gap_stub_created",
          ...(result.id === plan.id
            ? {}
            : { reason: `${plan.path} appeared meanwhile; the stub went beside it` }),
        });
      } else {
        skipped.push({
          ...base,
          ...where,
          code: "gap_stub_skipped",
          reason: `${result.path} appeared meanwhile; left unchanged`,
        });
      }
    } catch (error) {
      skipped.push({ ...base, ...where, code: "gap_stub_skipped", reason: errorMessage(error) });
    }
  }
  return { fixed, skipped };
}
