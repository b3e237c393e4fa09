/**
 * Turns a service result into a Pi tool result: the shared text rendering
 * plus the diagnostics a reader needs, the whole result as `details`, and
 * `isError` when the service says the operation failed.
 */
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { withinBudget } from "../lib/answer-budget.ts";
import type { Diagnostic } from "../lib/diagnostics.ts";
import { renderAnswer } from "../lib/render-text.ts";

/** What every service operation returns. */
export interface ServiceOutcome {
  ok: boolean;
  diagnostics: Diagnostic[];
}

/**
 * `diagnostics` defaults to the result's own; info-level ones are shown only
 * on failure (e.g. "used lexical" is noise when recall worked).
 */
export function toolResult<T extends ServiceOutcome>(
  result: T,
  text: string,
  diagnostics: Diagnostic[] = result.diagnostics,
  maxChars?: number,
): AgentToolResult<T> {
  const answer = renderAnswer(result.ok, text, diagnostics);
  return {
    content: [
      { type: "text", text: maxChars === undefined ? answer : withinBudget(answer, maxChars) },
    ],
    details: result,
    ...(result.ok ? {} : { isError: true }),
  };
}
