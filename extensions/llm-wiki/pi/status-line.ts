/**
 * One short status-line entry (`ctx.ui.setStatus("llm-wiki", …)`) saying what
 * the wiki last did for this session, so automatic recall is never invisible.
 */

import type { Diagnostic } from "../lib/diagnostics.ts";
import { CHARS_CUT_DIAGNOSTIC } from "../lib/recall/recall-fit.ts";
import type { RecallResult } from "../lib/recall-operation.ts";
import { reindexDiagnostics } from "../lib/reindex-diagnostics.ts";
import { modesDiffer } from "../lib/render-text.ts";
import { BUDGET_DIAGNOSTIC } from "../lib/retrieval/turn-budget.ts";
import { neutraliseLine } from "../lib/safety/text.ts";
import type { ReindexResult } from "../lib/wiki-service.ts";

/** The status key this extension owns. */
export const STATUS_KEY = "llm-wiki";

/**
 * What the status line may show: one line with no control sequence or bidi
 * control (`neutraliseLine`), whatever an error message or a page carried.
 * `setStatus` passes every entry through it.
 */
export function statusText(text: string): string {
  return neutraliseLine(text);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function firstProblem(diagnostics: Diagnostic[]): Diagnostic | undefined {
  return (
    diagnostics.find((d) => d.severity === "error") ??
    diagnostics.find((d) => d.severity === "warning")
  );
}

/**
 * E.g. `wiki: 2 pages · lexical · 3 ms`, `wiki: 4 pages · project hybrid,
 * personal lexical · 9 ms`, `wiki: no match`, `wiki: recall failed (…)`.
 */
export function recallStatus(result: RecallResult): string {
  if (!result.ok) {
    const problem = firstProblem(result.diagnostics);
    return `wiki: recall failed${problem ? ` (${problem.message})` : ""}`;
  }
  // A step the turn budget cut: the answer is partial, or empty without having looked.
  const cut = result.diagnostics.find((d) => d.code === BUDGET_DIAGNOSTIC);
  if (result.results.length === 0)
    return cut ? "wiki: out of time (turn budget)" : "wiki: no match";
  // Each vault's mode when they differ: a personal vault without vectors does not make the answer lexical.
  const mode = modesDiffer(result)
    ? (result.vaultModes ?? []).map((v) => `${v.vault} ${v.mode}`).join(", ")
    : result.modeUsed;
  const shortened = result.diagnostics.some((d) => d.code === CHARS_CUT_DIAGNOSTIC);
  return `wiki: ${plural(result.results.length, "page")} · ${mode} · ${result.durationMs} ms${cut ? " · partial (turn budget)" : ""}${shortened ? " · cut (character budget)" : ""}`;
}

/** Status for a thrown recall (a bug or an unexpected I/O failure): the turn goes on without memory. */
export function recallErrorStatus(message: string): string {
  return `wiki: recall failed (${message})`;
}

export const INDEXING_STATUS = "wiki: indexing…";

/** Said once when a session starts on a big vault with no usable index. */
export function largeIndexStatus(pages: number): string {
  return `wiki: indexing ${plural(pages, "page")}; automatic recall starts when indexing ends`;
}
export const AUTO_RECALL_OFF_STATUS = "wiki: auto-recall off";

/** E.g. `wiki: index updated · 1 page · 12 ms`, `wiki: index up to date`, `wiki: indexing failed (…)`. */
export function reindexStatus(result: ReindexResult): string {
  const problem = firstProblem(reindexDiagnostics(result));
  if (!result.ok) return `wiki: indexing failed${problem ? ` (${problem.message})` : ""}`;
  const written = result.reports.reduce((n, r) => n + r.written + r.removed, 0);
  if (result.reports.every((r) => r.action === "none")) return "wiki: index up to date";
  const ms = result.reports.reduce((n, r) => n + r.durationMs, 0);
  return `wiki: index updated · ${plural(written, "page")} · ${ms} ms`;
}
