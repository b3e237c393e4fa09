/**
 * One bounded run of a sub-agent of the session's model (the ingest and
 * distill passes): a fresh in-process `Agent` whose context holds only the
 * given system prompt, tools and message, streamed through the session's
 * model registry (auth resolved per request), cut after `maxTurns` model
 * turns that still ask for tools, and cancelled with the tool call's
 * signal. What the run wrote is the caller's ledger; this says how it ended.
 */
import { Agent, type AgentTool } from "@earendil-works/pi-agent-core";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";

/** How a sub-agent's run ended. */
export type SubagentOutcome = "done" | "turn_limit" | "model_error" | "aborted";

export interface SubagentRun {
  ctx: Pick<ExtensionContext, "modelRegistry" | "thinkingLevel">;
  model: NonNullable<ExtensionContext["model"]>;
  systemPrompt: string;
  tools: AgentTool[];
  /** The one user message the run starts from. */
  message: string;
  maxTurns: number;
  /** Most characters of the closing note kept. */
  noteChars: number;
  signal: AbortSignal | undefined;
}

export interface SubagentEnd {
  outcome: SubagentOutcome;
  /** Model requests the run took. */
  turns: number;
  /** The closing reply, cut to `noteChars`, when the run finished with one. */
  note?: string;
  /** The model's error, when there was one. */
  error?: string;
}

/** Runs the sub-agent once, to its end, its turn limit, an error or a cancel. */
export async function runSubagent(run: SubagentRun): Promise<SubagentEnd> {
  let turns = 0;
  let cut = false;
  const agent = new Agent({
    initialState: {
      systemPrompt: run.systemPrompt,
      model: run.model,
      thinkingLevel: run.ctx.thinkingLevel ?? "off",
      tools: run.tools,
    },
    // The session's registry resolves auth per request; a throw here ends the run as a model error.
    streamFn: async (model, context, options) =>
      run.ctx.modelRegistry.streamSimple(model, context, options),
    toolExecution: "sequential",
    finishTurn: (turn) => {
      turns += 1;
      const wantsTools = turn.message.content.some((block) => block.type === "toolCall");
      if (wantsTools && turns >= run.maxTurns) {
        cut = true;
        return { action: "end" };
      }
      return undefined;
    },
  });
  const abort = () => agent.abort();
  run.signal?.addEventListener("abort", abort);
  let thrown: string | undefined;
  try {
    await agent.prompt(run.message);
  } catch (error) {
    thrown = errorMessage(error);
  } finally {
    run.signal?.removeEventListener("abort", abort);
  }
  const last = agent.state.messages.findLast((m) => m.role === "assistant");
  const note =
    last?.role === "assistant"
      ? last.content
          .map((block) => (block.type === "text" ? block.text : ""))
          .join("")
          .trim()
      : "";
  const outcome: SubagentOutcome =
    run.signal?.aborted || last?.stopReason === "aborted"
      ? "aborted"
      : thrown !== undefined || last === undefined || last.stopReason === "error"
        ? "model_error"
        : cut
          ? "turn_limit"
          : "done";
  const error =
    thrown ?? (last?.stopReason === "error" ? (last.errorMessage ?? "unknown error") : undefined);
  return {
    outcome,
    turns,
    ...(outcome === "done" && note !== ""
      ? { note: note.length > run.noteChars ? `${note.slice(0, run.noteChars)}…` : note }
      : {}),
    ...(error !== undefined ? { error } : {}),
  };
}
