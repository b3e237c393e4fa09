/**
 * Turns a service result into a Pi tool result: the shared text rendering
 * plus the diagnostics a reader needs, the whole result as `details`, and
 * `isError` when the service says the operation failed.
 */
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { budgetAnswer } from "../lib/answer-fit.ts";
import type { Diagnostic } from "../lib/diagnostics.ts";
import { renderAnswer } from "../lib/render-text.ts";

/** What every service operation returns. */
export interface ServiceOutcome {
  ok: boolean;
  diagnostics: Diagnostic[];
}

/**
 * `diagnostics` defaults to the result's own; info-level ones are shown only
 * on failure (e.g. "used lexical" is noise when recall worked). With
 * `maxChars` the text is cut to it, diagnostics kept, and a cut is an
 * `answer_chars_cut` warning (answer-fit.ts).
 */
export function toolResult<T extends ServiceOutcome>(
  result: T,
  text: string,
  diagnostics: Diagnostic[] = result.diagnostics,
  maxChars?: number,
): AgentToolResult<T> {
  if (maxChars === undefined) {
    return {
      content: [{ type: "text", text: renderAnswer(result.ok, text, diagnostics) }],
      details: result,
      ...(result.ok ? {} : { isError: true }),
    };
  }
  // A cut is a warning in the text and in the details alike.
  const { text: answer, cut } = budgetAnswer(result.ok, text, diagnostics, maxChars);
  return {
    content: [{ type: "text", text: answer }],
    details: cut ? { ...result, diagnostics: [...result.diagnostics, cut] } : result,
    ...(result.ok ? {} : { isError: true }),
  };
}
