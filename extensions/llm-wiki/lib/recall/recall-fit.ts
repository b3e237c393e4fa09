/**
 * Stage 7, fit: the assembled bundles rendered as the `<wiki-recall>` block
 * within the character budget (bundle by bundle: whole, then the card's
 * excerpt only, then headings, then dropped), which pages the block
 * holds, and a `recall_chars_cut` warning when the budget cut anything, as
 * the turn budget's cut is one (`recall_budget_exceeded`).
 */

import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { PRIMING_EXCERPT_CHARS, PRIMING_MAX_CHARS } from "../retrieval-policy.ts";
import type { WikiSettings } from "../settings.ts";
import type { TimeWindow } from "../temporal/time-window.ts";
import type { Assembled } from "./recall-assemble.ts";
import { AUTOMATIC_RENDER, fitRecall, LINKS_FIRST_PAGE_THRESHOLD } from "./recall-block.ts";
import type { RecallPlan } from "./recall-plan.ts";

/** The code of a recall whose block the character budget cut: pages left out or shown without their text. */
export const CHARS_CUT_DIAGNOSTIC = "recall_chars_cut";

export interface Fitted {
  /** The text a model receives (empty when nothing was recalled). */
  rendered: string;
  /** `vault:id` of each page `rendered` holds, in order. */
  renderedPages: string[];
  /** A `recall_chars_cut` warning when the budget cut the block; else empty. */
  diagnostics: Diagnostic[];
}

/** The warning for a block that holds `kept` of `total` pages, `shortened` of them without their text. */
function cutDiagnostic(
  kept: number,
  total: number,
  shortened: number,
  maxChars: number,
  priming: boolean,
): Diagnostic {
  const left = total - kept;
  const what = [
    left > 0 ? `${left} of ${total} page(s) left out` : undefined,
    shortened > 0 ? `${shortened} page(s) shown without their text` : undefined,
  ]
    .filter(Boolean)
    .join(", ");
  return diagnostic(
    CHARS_CUT_DIAGNOSTIC,
    "warning",
    `the recall block was cut to its character budget (${maxChars} characters, recallMaxChars${priming ? " capped for priming" : ""}): ${what}; every page found is in the result's list, and a narrower question or a larger recallMaxChars shows more`,
  );
}

/**
 * Renders `assembled` within the budget; `pageCount` is the largest searched
 * vault's size, `window` the time the question asked about (the block says
 * when none of its pages is dated in it).
 */
export function fitToBudget(
  plan: RecallPlan,
  settings: WikiSettings,
  assembled: Assembled,
  pageCount: number,
  window?: TimeWindow,
): Fitted {
  const maxChars = plan.priming
    ? Math.min(PRIMING_MAX_CHARS, settings.recallMaxChars)
    : settings.recallMaxChars;
  const fitted = fitRecall(
    assembled.renderable,
    {
      ...AUTOMATIC_RENDER,
      maxChars,
      // Three short notes, not one long one, in priming's small budget.
      ...(plan.priming
        ? { excerptChars: PRIMING_EXCERPT_CHARS, inlineChars: PRIMING_EXCERPT_CHARS }
        : {}),
      linksFirst: pageCount > LINKS_FIRST_PAGE_THRESHOLD,
      ...(window ? { window } : {}),
    },
    assembled.conflicts,
  );
  const total = assembled.renderable.length;
  const cut = fitted.kept.length < total || fitted.shortened > 0;
  return {
    rendered: fitted.text,
    renderedPages: [...new Set(fitted.kept.map((h) => `${h.vault}:${h.id}`))],
    diagnostics: cut
      ? [cutDiagnostic(fitted.kept.length, total, fitted.shortened, maxChars, plan.priming)]
      : [],
  };
}
