/**
 * Stage 7, fit: the assembled bundles rendered as the `<wiki-recall>` block
 * within the character budget (bundle by bundle: whole, then the card's
 * excerpt only, then headings, then dropped), and which pages the block
 * holds.
 */

import { PRIMING_EXCERPT_CHARS, PRIMING_MAX_CHARS } from "../retrieval-policy.ts";
import type { WikiSettings } from "../settings.ts";
import type { Assembled } from "./recall-assemble.ts";
import { AUTOMATIC_RENDER, fitRecall, LINKS_FIRST_PAGE_THRESHOLD } from "./recall-block.ts";
import type { RecallPlan } from "./recall-plan.ts";

export interface Fitted {
  /** The text a model receives (empty when nothing was recalled). */
  rendered: string;
  /** `vault:id` of each page `rendered` holds, in order. */
  renderedPages: string[];
}

/** Renders `assembled` within the budget; `pageCount` is the largest searched vault's size. */
export function fitToBudget(
  plan: RecallPlan,
  settings: WikiSettings,
  assembled: Assembled,
  pageCount: number,
): Fitted {
  const fitted = fitRecall(
    assembled.renderable,
    {
      ...AUTOMATIC_RENDER,
      maxChars: plan.priming
        ? Math.min(PRIMING_MAX_CHARS, settings.recallMaxChars)
        : settings.recallMaxChars,
      // Three short notes, not one long one, in priming's small budget.
      ...(plan.priming
        ? { excerptChars: PRIMING_EXCERPT_CHARS, inlineChars: PRIMING_EXCERPT_CHARS }
        : {}),
      linksFirst: pageCount > LINKS_FIRST_PAGE_THRESHOLD,
    },
    assembled.conflicts,
  );
  return {
    rendered: fitted.text,
    renderedPages: [...new Set(fitted.kept.map((h) => `${h.vault}:${h.id}`))],
  };
}
