/**
 * Why a hook printed no block, in one line for stderr. A hook that prints
 * nothing and says nothing cannot be told from a broken one, and a vault
 * whose recall finds nothing that qualifies (the bar rises with the vault)
 * or that was not searched in time would otherwise look like no memory at
 * all. The line names the cause the recall result shows, most specific first.
 */

import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { BUDGET_DIAGNOSTIC } from "../extensions/llm-wiki/lib/retrieval/turn-budget.ts";

/** What the hook was doing: recall for a prompt, or priming at session start. */
export type QuietKind = "recall" | "priming";

/** One line (no trailing newline, no line break) saying why `result` rendered no block. */
export function quietReason(
  kind: QuietKind,
  result: Pick<RecallResult, "results" | "diagnostics" | "trace" | "alreadyGiven">,
): string {
  const what = kind === "recall" ? "nothing recalled" : "nothing primed";
  const cut = result.diagnostics.find((d) => d.code === BUDGET_DIAGNOSTIC);
  if (cut) {
    return `${what}: the search ran past its time limit, so no block is not evidence of no memory (${cut.message})`;
  }
  const off = result.diagnostics.find((d) => d.code.endsWith("_off"));
  if (off) return `${what}: ${off.message}`;
  // Priming with no project vault, or a session with nothing to go on, asks no search.
  if (kind === "priming" && result.trace.length === 0) {
    return `${what}: no project vault, or no branch, commit or changed file to prime from`;
  }
  // The session's first prompt: what it matched was primed a moment ago.
  if (result.results.length === 0 && (result.alreadyGiven ?? 0) > 0) {
    return `${what}: the ${result.alreadyGiven} page(s) this prompt matches were already given at the session's start`;
  }
  if (result.trace.some((t) => t.conversation === true)) {
    return kind === "recall"
      ? `${what}: this prompt is a turn of conversation ("go ahead", "ship it"), with nothing in it to recall`
      : `${what}: the session's words are conversation, with nothing in them to recall`;
  }
  const skipped = result.trace.filter((t) => t.step === "skip");
  const searched = result.trace.filter((t) => t.step !== "skip" && t.hits !== undefined);
  if (searched.length === 0) {
    const why = skipped.map((t) => `${t.vault ?? "a"} vault: ${t.note ?? "not searched"}`);
    return `${what}: no vault was searched${why.length > 0 ? ` (${why.join("; ")})` : ""}; \`llm-wiki status\` shows the index, \`llm-wiki reindex\` builds it`;
  }
  const candidates = Math.max(0, ...searched.map((t) => t.hits ?? 0));
  const said = kind === "recall" ? "prompt" : "session";
  if (result.results.length === 0 && candidates === 0 && searched.some((t) => t.tooCommon)) {
    return `${what}: the words of this ${said} are on too many of the vault's pages to be evidence of what it asks (\`llm-wiki recall\` searches them anyway)`;
  }
  if (result.results.length === 0) {
    return candidates === 0
      ? `${what}: no page matches the words of this ${kind === "recall" ? "prompt" : "session"}`
      : `${what}: ${candidates} page(s) matched words of this ${kind === "recall" ? "prompt" : "session"}, none with the confidence ${kind === "recall" ? "automatic recall" : "priming"} needs (\`llm-wiki recall\` shows them)`;
  }
  return `${what}: ${result.results.length} page(s) qualified but none fit the block's budget`;
}
