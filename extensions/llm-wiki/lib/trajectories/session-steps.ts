/**
 * The steps of the task just finished, read from a transcript of session
 * entries (Pi's `sessionManager.getBranch()`): each tool call paired with
 * its result, the user's prompts and the agent's prose. Shapes are read
 * structurally, so a field a Pi version lacks is skipped, never a crash.
 * The task just finished starts after the last trajectory captured in this
 * transcript, so capturing twice in one session records two tasks.
 */
import type { TrajectoryStepInput } from "./steps.ts";

/** The tool whose results mark where the previous recorded task ended. */
export const CAPTURE_TOOL = "wiki_capture_trajectory";
/** Custom entry a host appends when it captured without a tool call (`/wiki-record`). */
export const CAPTURE_MARK = "llm-wiki-trajectory";

interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
}

interface Message {
  role?: unknown;
  content?: unknown;
  model?: unknown;
  provider?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  isError?: unknown;
}

interface Entry {
  type?: unknown;
  customType?: unknown;
  message?: unknown;
}

function blocks(content: unknown): Block[] {
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is Block => b !== null && typeof b === "object");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return blocks(content)
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n")
    .trim();
}

function messageOf(entry: Entry): Message | undefined {
  if (entry.type !== "message") return undefined;
  const m = entry.message;
  return m !== null && typeof m === "object" ? (m as Message) : undefined;
}

/** Index after the last completed capture (a capture tool result or a host's mark). */
function taskStart(entries: readonly Entry[]): number {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i] as Entry;
    if (entry.type === "custom" && entry.customType === CAPTURE_MARK) return i + 1;
    const m = messageOf(entry);
    if (m?.role === "toolResult" && m.toolName === CAPTURE_TOOL && m.isError !== true) return i + 1;
  }
  return 0;
}

/** What a transcript says about the task just finished. */
export interface SessionTrajectory {
  steps: TrajectoryStepInput[];
  /** The first user prompt of the task. */
  task?: string;
  /** `provider/model` of the first assistant reply, when recorded. */
  model?: string;
}

/** The task just finished, from session entries in order (oldest first). */
export function trajectoryFromEntries(entries: readonly unknown[]): SessionTrajectory {
  const list = entries.filter((e): e is Entry => e !== null && typeof e === "object");
  const calls = new Map<string, { name: string; args: unknown }>();
  const steps: TrajectoryStepInput[] = [];
  let task: string | undefined;
  let model: string | undefined;
  for (const entry of list.slice(taskStart(list))) {
    const m = messageOf(entry);
    if (!m) continue;
    if (m.role === "user") {
      const text = textOf(m.content);
      if (text === "") continue;
      task ??= text;
      steps.push({ role: "user", text });
    } else if (m.role === "assistant") {
      if (model === undefined && typeof m.model === "string") {
        model = typeof m.provider === "string" ? `${m.provider}/${m.model}` : m.model;
      }
      const text = textOf(m.content);
      if (text !== "") steps.push({ role: "assistant", text });
      for (const b of blocks(m.content)) {
        if (b.type === "toolCall" && typeof b.id === "string" && typeof b.name === "string") {
          calls.set(b.id, { name: b.name, args: b.arguments });
        }
      }
    } else if (m.role === "toolResult") {
      const id = typeof m.toolCallId === "string" ? m.toolCallId : "";
      const call = calls.get(id);
      const name = call?.name ?? (typeof m.toolName === "string" ? m.toolName : "unknown");
      // The capture itself is how the task was recorded, not how it was solved.
      if (name === CAPTURE_TOOL) continue;
      steps.push({
        role: "tool",
        tool: name,
        ...(call?.args !== undefined ? { args: call.args } : {}),
        text: textOf(m.content),
        ...(m.isError === true ? { error: true } : {}),
      });
    }
  }
  const out: SessionTrajectory = { steps };
  if (task !== undefined) out.task = task;
  if (model !== undefined) out.model = model;
  return out;
}
