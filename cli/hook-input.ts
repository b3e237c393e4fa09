/**
 * The input of `llm-wiki hook …`: one JSON object on stdin (Claude Code's
 * hook shape), read whole within a size and time bound and checked, and the
 * error that says why a hook printed nothing. Nothing here loads the
 * service, so the hook reads its input (and starts git) before it does.
 */
import { isAbsolute } from "node:path";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";

/** Most bytes of hook input read; a larger input is refused, not parsed. */
export const HOOK_STDIN_MAX_BYTES = 1024 * 1024;
/** How long the hook waits for its input to end (a terminal, a client that never closes it). */
export const HOOK_STDIN_TIMEOUT_MS = 5_000;

/** Why the hook printed nothing: said on stderr in one line, exit status 0. */
export class HookSkip extends Error {
  override name = "HookSkip";
}

/** Reads stdin whole, at most `max` bytes, within `timeoutMs`. */
export function readStdin(max: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    if (stdin.isTTY) {
      reject(new HookSkip("no hook input: standard input is a terminal"));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      clearTimeout(timer);
      stdin.removeAllListeners("data");
      stdin.removeAllListeners("end");
      stdin.removeAllListeners("error");
      stdin.pause();
      if (error) {
        stdin.destroy();
        reject(error);
      } else resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(
      () => finish(new HookSkip(`no end of hook input within ${timeoutMs} ms`)),
      timeoutMs,
    );
    stdin.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) finish(new HookSkip(`hook input over ${max} bytes; ignored`));
      else chunks.push(chunk);
    });
    stdin.once("end", () => finish());
    stdin.once("error", (error) =>
      finish(new HookSkip(`cannot read hook input: ${errorMessage(error)}`)),
    );
  });
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
