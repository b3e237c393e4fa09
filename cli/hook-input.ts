/**
 * The input of `llm-wiki hook …`: one JSON object on stdin (Claude Code's
 * hook shape), read whole within a size and time bound and checked, and the
 * error that says why a hook printed nothing. Nothing here loads the
 * service, so the hook reads its input (and starts git) before it does.
 */
import { isAbsolute } from "node:path";

import { readHookStdin, type StdinRead } from "../bin/hook-client.js";
import { HOOK_STDIN_MAX_BYTES, HOOK_STDIN_TIMEOUT_MS } from "../bin/hook-socket.js";

export { HOOK_STDIN_MAX_BYTES, HOOK_STDIN_TIMEOUT_MS, type StdinRead };

/** Why the hook printed nothing: said on stderr in one line, exit status 0. */
export class HookSkip extends Error {
  override name = "HookSkip";
}

/**
 * The input's bytes, or `HookSkip` saying why there are none. The thin
 * client (bin/hook-client.js) and the in-process hook read stdin the same
 * way; the warm process gets what the client read.
 */
export function stdinBytes(read: StdinRead): Buffer {
  switch (read.kind) {
    case "bytes":
      return read.bytes;
    case "tty":
      throw new HookSkip("no hook input: standard input is a terminal");
    case "over":
      throw new HookSkip(`hook input over ${HOOK_STDIN_MAX_BYTES} bytes; ignored`);
    case "timeout":
      throw new HookSkip(`no end of hook input within ${HOOK_STDIN_TIMEOUT_MS} ms`);
    case "error":
      throw new HookSkip(`cannot read hook input: ${read.message}`);
  }
}

/** Reads stdin whole, at most `HOOK_STDIN_MAX_BYTES`, within `HOOK_STDIN_TIMEOUT_MS`. */
export async function readStdin(): Promise<Buffer> {
  return stdinBytes(await readHookStdin(HOOK_STDIN_MAX_BYTES, HOOK_STDIN_TIMEOUT_MS));
}

/** The fields of the hook input this command reads. */
export interface HookInput {
  cwd: string;
  prompt?: string;
  source?: string;
  /** The agent's session id: only ever hashed (hook-primed.ts, session-record.ts). */
  sessionId?: string;
  /** The session's transcript file (stop, session-end, pre-compact); read by hook-session.ts. */
  transcriptPath?: string;
}

/**
 * The user's words of a prompt. `gemini -p` puts the SessionStart hooks'
 * context (our priming among it) before the prompt as
 * `<hook_context>…</hook_context>` and hands BeforeAgent that whole text
 * as the prompt; recall on it would ask about the primed notes instead.
 */
function withoutHookContext(prompt: string): string {
  return prompt.replace(/<hook_context>[\s\S]*?<\/hook_context>/g, "").trim();
}

/** Parses and checks the hook input: one JSON object; `cwd` absolute when given. */
export function parseHookInput(bytes: Buffer, fallbackCwd: string): HookInput {
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new HookSkip("hook input is not JSON");
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new HookSkip("hook input is not a JSON object");
  }
  const record = data as Record<string, unknown>;
  const cwd = record.cwd;
  if (cwd !== undefined && (typeof cwd !== "string" || !isAbsolute(cwd) || cwd.includes("\0"))) {
    throw new HookSkip('hook input "cwd" is not an absolute path');
  }
  const input: HookInput = { cwd: typeof cwd === "string" ? cwd : fallbackCwd };
  if (typeof record.prompt === "string") input.prompt = withoutHookContext(record.prompt);
  if (typeof record.source === "string") input.source = record.source;
  if (typeof record.session_id === "string" && record.session_id !== "")
    input.sessionId = record.session_id;
  if (typeof record.transcript_path === "string" && record.transcript_path !== "")
    input.transcriptPath = record.transcript_path;
  return input;
}
