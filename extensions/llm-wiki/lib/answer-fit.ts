/**
 * An answer a host hands a model as one text (a Pi or MCP tool's recall,
 * priming or search) within the `recallMaxChars` budget, with a cut said
 * as a diagnostic (`answer_chars_cut`) rather than only as a line in the
 * text: the warning goes into the text beside the others and into the
 * machine-readable result, so every host reports a cut the same way.
 * The diagnostics are kept whole; the answer's own text gives way.
 */
import { withinBudget } from "./answer-budget.ts";
import { type Diagnostic, diagnostic } from "./diagnostics.ts";
import type { RecallResult } from "./recall/recall-types.ts";
import {
  renderAnswer,
  renderDiagnostics,
  renderRecallResult,
  shownDiagnostics,
} from "./render-text.ts";

/** The code of an answer whose text was cut to the character budget. */
export const ANSWER_CUT_DIAGNOSTIC = "answer_chars_cut";

/** The warning for an answer cut to `maxChars`. */
export function answerCut(maxChars: number): Diagnostic {
  return diagnostic(
    ANSWER_CUT_DIAGNOSTIC,
    "warning",
    `the answer was cut to its character budget (${maxChars} characters, recallMaxChars): the end of its text was left out; the machine-readable result holds all of it`,
  );
}

/** Characters `diagnostics` take below an answer's text (with the blank line between). */
function diagnosticsRoom(ok: boolean, diagnostics: Diagnostic[]): number {
  const shown = renderDiagnostics(shownDiagnostics(ok, diagnostics));
  return shown === "" ? 0 : shown.length + 2;
}

/**
 * The whole answer (`renderAnswer`) for `text` and `diagnostics` within
 * `maxChars`, and the `answer_chars_cut` warning when `text` had to be cut
 * to fit (the warning is in the answer; the host adds it to its result).
 */
export function budgetAnswer(
  ok: boolean,
  text: string,
  diagnostics: Diagnostic[],
  maxChars: number,
): { text: string; cut?: Diagnostic } {
  const whole = renderAnswer(ok, text, diagnostics);
  if (whole.length <= maxChars) return { text: whole };
  const cut = answerCut(maxChars);
  const all = [...diagnostics, cut];
  const room = Math.max(0, maxChars - diagnosticsRoom(ok, all));
  // Only diagnostics beyond the budget (never seen) leave the last guard work to do.
  return { text: withinBudget(renderAnswer(ok, withinBudget(text, room), all), maxChars), cut };
}

/**
 * A recall's text within `maxChars` with room kept for its diagnostics, and
 * the result with an `answer_chars_cut` warning when the listing or the
 * block had to give way. Pages left unlisted are said as such in the text.
 */
export function fitRecallAnswer(
  result: RecallResult,
  options: { explain?: boolean; maxChars: number },
): { result: RecallResult; text: string } {
  const explain = options.explain === true;
  const whole = renderRecallResult(result, { explain });
  if (renderAnswer(result.ok, whole, result.diagnostics).length <= options.maxChars) {
    return { result, text: whole };
  }
  const diagnostics = [...result.diagnostics, answerCut(options.maxChars)];
  const room = Math.max(0, options.maxChars - diagnosticsRoom(result.ok, diagnostics));
  return {
    result: { ...result, diagnostics },
    text: renderRecallResult(result, { explain, maxChars: room }),
  };
}
