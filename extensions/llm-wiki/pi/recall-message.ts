/**
 * The hidden message that carries a recall block to the model (automatic
 * recall, session priming): placed after the prompt, never in the system
 * prompt, so the system prompt stays byte-identical and provider caches
 * survive. Its details keep which pages were shown, for the session's
 * record, never their text.
 */
import type { BeforeAgentStartEventResult } from "@earendil-works/pi-coding-agent";
import type { RecallResult } from "../lib/recall-operation.ts";

/** A shown page as the message's details keep it. */
export interface MessagePage {
  id: string;
  vault: string;
  score: number;
  path: string;
}

/** The `before_agent_start` result handing `result.rendered` to the model as a hidden `customType` message. */
export function recallMessage<D extends object>(
  customType: string,
  result: Pick<RecallResult, "rendered" | "results">,
  details: D,
): BeforeAgentStartEventResult {
  const pages: MessagePage[] = result.results.map((r) => ({
    id: r.id,
    vault: r.vault,
    score: r.score,
    path: r.path,
  }));
  return {
    message: {
      customType,
      content: result.rendered,
      display: false,
      details: { ...details, pages },
    },
  };
}
