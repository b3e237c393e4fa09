/**
 * The steps of a whole agent session, from its transcript records in one of
 * the documented formats: Claude Code's JSONL (`type` user/assistant
 * entries whose `message.content` holds text, `tool_use` and `tool_result`
 * blocks), Codex's rollout JSONL (`response_item` payloads: `message`,
 * `function_call`, `function_call_output`; older files hold the items bare)
 * and Gemini CLI's saved chat (one JSON object with `messages`, each
 * `type` user/gemini with `toolCalls`; newer releases append it as JSONL: a
 * metadata line, then message records by `id`, a later record of an id
 * replacing the earlier, `$rewindTo` dropping an id and all after it,
 * `$set.messages` replacing them all). Records are read structurally: an
 * unknown or malformed record is skipped, never a crash. Only the shape is
 * taken here; steps.ts trims, redacts and neutralises every field.
 */
import { type Outcome, outcomeOfSteps, type TrajectoryStepInput } from "./steps.ts";

export type TranscriptFormat = "claude-code" | "codex" | "gemini";

export interface TranscriptTrajectory {
  format: TranscriptFormat;
  steps: TrajectoryStepInput[];
  /** The first user request. */
  task?: string;
  model?: string;
  /**
   * `failure` when the session ended in an error (an API error) or every tool
   * call failed, `partial` when some failed, else `success` (`outcomeOfSteps`).
   */
  outcome: Outcome;
}

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Rec)
    : undefined;
}

function list(value: unknown): Rec[] {
  if (!Array.isArray(value)) return [];
  const out: Rec[] = [];
  for (const v of value) {
    const r = rec(v);
    if (r) out.push(r);
  }
  return out;
}

/** The text of a string or of a list of `{type: "text"|"input_text"|"output_text", text}` blocks. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return list(content)
    .filter(
      (b) =>
        typeof b.text === "string" && (b.type === undefined || String(b.type).endsWith("text")),
    )
    .map((b) => b.text as string)
    .join("\n")
    .trim();
}

/**
 * Text an agent adds to the user's turn that no user typed (Codex's context,
 * Claude Code's command echoes, Gemini CLI's session context).
 */
function injected(text: string): boolean {
  return /^<(environment_context|user_instructions|command-|local-command-|system-reminder|session_context)/.test(
    text.trimStart(),
  );
}

/**
 * The user's own words of a turn: Gemini CLI puts what hooks added (our
 * recall block among them) in `<hook_context>`, a part before or after the
 * prompt's; it is
 * not the user's request, and recording it would store recall's answer again.
 */
function userWords(text: string): string {
  return text.replace(/<hook_context>[\s\S]*?(?:<\/hook_context>|$)/g, "").trim();
}

function detect(records: readonly unknown[]): TranscriptFormat | undefined {
  for (const r of records.slice(0, 50).map(rec)) {
    if (!r) continue;
    if (Array.isArray(r.messages) && records.length === 1) return "gemini";
    if (typeof r.sessionId === "string" && typeof r.projectHash === "string") return "gemini";
    if (r.type === "response_item" || r.type === "session_meta" || r.type === "turn_context")
      return "codex";
    if ((r.type === "user" || r.type === "assistant") && rec(r.message)) return "claude-code";
    if (r.type === "message" || r.type === "function_call") return "codex";
  }
  return undefined;
}

function finish(
  format: TranscriptFormat,
  steps: TrajectoryStepInput[],
  model: string | undefined,
  endedInError: boolean,
): TranscriptTrajectory {
  const task = steps.find((s) => s.role === "user")?.text;
  // Every tool call counts, not the last step: a session ends with the
  // agent's words, which follow its failed calls as readily as its good ones.
  return {
    format,
    steps,
    ...(task !== undefined ? { task } : {}),
    ...(model !== undefined ? { model } : {}),
    outcome: endedInError ? "failure" : outcomeOfSteps(steps),
  };
}

function claudeCode(records: readonly unknown[]): TranscriptTrajectory {
  const calls = new Map<string, { name: string; args: unknown }>();
  const steps: TrajectoryStepInput[] = [];
  let model: string | undefined;
  let endedInError = false;
  for (const entry of records.map(rec)) {
    const message = rec(entry?.message);
    if (!entry || !message || entry.isSidechain === true) continue;
    if (entry.type === "assistant") {
      if (
        model === undefined &&
        typeof message.model === "string" &&
        message.model !== "<synthetic>"
      )
        model = message.model;
      endedInError = entry.isApiErrorMessage === true;
      const text = textOf(message.content);
      if (text !== "") steps.push({ role: "assistant", text });
      for (const b of list(message.content)) {
        if (b.type === "tool_use" && typeof b.id === "string" && typeof b.name === "string")
          calls.set(b.id, { name: b.name, args: b.input });
      }
    } else if (entry.type === "user") {
      if (entry.isMeta === true) continue;
      const results = list(message.content).filter((b) => b.type === "tool_result");
      for (const b of results) {
        const call = typeof b.tool_use_id === "string" ? calls.get(b.tool_use_id) : undefined;
        const text = textOf(b.content);
        // Claude Code wraps a call it refused or could not run in `<tool_use_error>`.
        const error = b.is_error === true || /^\s*<tool_use_error>/.test(text);
        steps.push({
          role: "tool",
          tool: call?.name ?? "unknown",
          ...(call?.args !== undefined ? { args: call.args } : {}),
          text,
          ...(error ? { error: true } : {}),
        });
      }
      if (results.length > 0) continue;
      const text = textOf(message.content);
      if (text !== "" && !injected(text)) steps.push({ role: "user", text });
    }
  }
  return finish("claude-code", steps, model, endedInError);
}

/** Lines of Codex's text header read for an exit code, at most. */
const CODEX_HEADER_LINES = 8;

/**
 * The exit code in Codex's text output of a command: a header of lines
 * (`Exit code: N` from the shell and apply_patch tools, `Process exited
 * with code N` from exec_command; `Wall time: …` in both), then `Output:`
 * and what the command printed. Only the header is read, so a command's
 * own output cannot pose as its exit code.
 */
function codexTextExitCode(text: string): number | undefined {
  let code: number | undefined;
  let timed = false;
  for (const line of text.split("\n", CODEX_HEADER_LINES)) {
    if (line === "Output:") return timed ? code : undefined;
    if (line.startsWith("Wall time: ")) timed = true;
    const m = /^(?:Exit code:|Process exited with code) (-?\d+)$/.exec(line);
    if (m) code = Number(m[1]);
  }
  return undefined;
}

/**
 * Codex's output of a call: a string, JSON `{output, metadata: {exit_code}}`
 * (the shell tool) or a text header with the exit code (see above).
 */
function codexOutput(output: unknown): { text: string; error: boolean } {
  const raw = typeof output === "string" ? output : textOf(rec(output)?.content ?? output);
  try {
    const parsed = rec(JSON.parse(raw));
    if (parsed && typeof parsed.output === "string") {
      const code = rec(parsed.metadata)?.exit_code;
      return { text: parsed.output, error: typeof code === "number" && code !== 0 };
    }
  } catch {
    // Plain text output.
  }
  const code = codexTextExitCode(raw);
  return { text: raw, error: rec(output)?.success === false || (code !== undefined && code !== 0) };
}

function codex(records: readonly unknown[]): TranscriptTrajectory {
  const calls = new Map<string, { name: string; args: unknown }>();
  const steps: TrajectoryStepInput[] = [];
  let model: string | undefined;
  for (const line of records.map(rec)) {
    if (!line) continue;
    if (line.type === "turn_context" && model === undefined) {
      const m = rec(line.payload)?.model;
      if (typeof m === "string") model = m;
    }
    const item =
      line.type === "response_item" ? rec(line.payload) : line.payload ? undefined : line;
    if (!item) continue;
    if (item.type === "message") {
      const text = textOf(item.content);
      if (text === "" || injected(text)) continue;
      if (item.role === "user") steps.push({ role: "user", text });
      else if (item.role === "assistant") steps.push({ role: "assistant", text });
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      const id = typeof item.call_id === "string" ? item.call_id : "";
      let args: unknown = item.arguments ?? item.input;
      if (typeof args === "string") {
        try {
          args = JSON.parse(args);
        } catch {
          // Kept as the string it is.
        }
      }
      calls.set(id, { name: typeof item.name === "string" ? item.name : "unknown", args });
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      const call = typeof item.call_id === "string" ? calls.get(item.call_id) : undefined;
      const { text, error } = codexOutput(item.output);
      steps.push({
        role: "tool",
        tool: call?.name ?? "unknown",
        ...(call?.args !== undefined ? { args: call.args } : {}),
        text,
        ...(error ? { error: true } : {}),
      });
    }
  }
  return finish("codex", steps, model, false);
}

/** Gemini CLI's messages in order, from its saved chat or its JSONL records (see above). */
function geminiMessages(records: readonly unknown[]): Rec[] {
  const only = records.length === 1 ? rec(records[0]) : undefined;
  if (only && Array.isArray(only.messages)) return list(only.messages);
  // A Map keeps an id where it was first recorded, as Gemini CLI's own reader does.
  const byId = new Map<string, Rec>();
  for (const r of records.map(rec)) {
    if (!r) continue;
    if (typeof r.$rewindTo === "string") {
      const ids = [...byId.keys()];
      const from = ids.indexOf(r.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) byId.delete(id);
      continue;
    }
    const set = rec(r.$set);
    if (set && Array.isArray(set.messages)) {
      byId.clear();
      for (const m of list(set.messages)) if (typeof m.id === "string") byId.set(m.id, m);
      continue;
    }
    if (typeof r.id === "string" && typeof r.type === "string") byId.set(r.id, r);
  }
  return [...byId.values()];
}

function gemini(records: readonly unknown[]): TranscriptTrajectory {
  const steps: TrajectoryStepInput[] = [];
  let model: string | undefined;
  let endedInError = false;
  for (const m of geminiMessages(records)) {
    const text = textOf(m.content);
    if (m.type === "user") {
      const words = userWords(text);
      if (words !== "" && !injected(words)) steps.push({ role: "user", text: words });
    } else if (m.type === "gemini") {
      if (model === undefined && typeof m.model === "string") model = m.model;
      endedInError = false;
      if (text !== "") steps.push({ role: "assistant", text });
      for (const call of list(m.toolCalls)) {
        const result = call.resultDisplay ?? call.result;
        steps.push({
          role: "tool",
          tool: typeof call.name === "string" ? call.name : "unknown",
          ...(call.args !== undefined ? { args: call.args } : {}),
          text: typeof result === "string" ? result : (JSON.stringify(result ?? "") ?? ""),
          ...(call.status === "error" || call.status === "cancelled" ? { error: true } : {}),
        });
      }
    } else if (m.type === "error") endedInError = true;
  }
  return finish("gemini", steps, model, endedInError);
}

/** The session's steps, or undefined when the records are in no known format. */
export function trajectoryFromTranscript(
  records: readonly unknown[],
): TranscriptTrajectory | undefined {
  const format = detect(records);
  if (format === "claude-code") return claudeCode(records);
  if (format === "codex") return codex(records);
  if (format === "gemini") return gemini(records);
  return undefined;
}
