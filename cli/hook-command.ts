/**
 * `llm-wiki hook session-start|user-prompt [--json]`: automatic memory for
 * agents that run a command at session start and on every prompt and add
 * what it prints to the model's context (Claude Code's `SessionStart` and
 * `UserPromptSubmit` hooks, and agents with the same hook shape). Reads one
 * JSON object on stdin (`hook_event_name`, `cwd`, `prompt`, `source`,
 * `session_id`, …), finds the vault from its `cwd`, and prints the session
 * priming block or the prompt's automatic recall block — the same text Pi
 * gets for the same vault and input — plain, or with `--json` as the hook's
 * JSON output (`hookSpecificOutput.additionalContext`). Nothing qualifies:
 * nothing printed. It never fails the user's prompt: whatever goes wrong
 * (bad or huge input, no vault, a broken index) it exits 0 with nothing on
 * stdout and one line on stderr saying why.
 *
 * A hook is a fresh process on every prompt, so the order matters: the
 * input is read and the session's git read started (two git processes,
 * session start only) with Node's own modules, and the service's modules
 * (hook-answer.ts) load while git runs.
 */

import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { readGitContext } from "../extensions/llm-wiki/lib/priming/git-context.ts";
import { jsonTerminalSafe } from "../extensions/llm-wiki/lib/safety/text.ts";
import { findProjectVault } from "../extensions/llm-wiki/lib/vault/paths.ts";
import {
  HOOK_STDIN_MAX_BYTES,
  HOOK_STDIN_TIMEOUT_MS,
  HookSkip,
  parseHookInput,
  readStdin,
} from "./hook-input.ts";
import { printErr, printOut } from "./output.ts";

/** The hook events this command answers, by subcommand, with the event name the JSON output names. */
const EVENTS = {
  "session-start": "SessionStart",
  "user-prompt": "UserPromptSubmit",
} as const;
type HookKind = keyof typeof EVENTS;
/** Hooks that record the session as a trajectory (working memory) and print nothing. */
const RECORDING = ["stop", "session-end", "pre-compact"] as const;

export const HOOK_USAGE = `  hook session-start|user-prompt [--json]
                                           agent hooks (Claude Code SessionStart / UserPromptSubmit):
                                           read the hook's JSON on stdin, print the priming or recall block
  hook stop|session-end|pre-compact        with working memory on, record the session's transcript
                                           (transcript_path) as one trajectory page; prints nothing
`;

/** Runs the hook command; always resolves to exit status 0. */
export async function hookCommand(argv: readonly string[]): Promise<number> {
  const skip = (reason: string) => {
    printErr(`llm-wiki hook: ${reason.replace(/\s+/g, " ")}\n`);
    return 0;
  };
  const [kind, ...rest] = argv;
  if (kind === "--help" || kind === "-h" || kind === undefined) {
    printErr(`usage: llm-wiki\n${HOOK_USAGE}`);
    return 0;
  }
  const recording = (RECORDING as readonly string[]).includes(kind);
  if (!Object.hasOwn(EVENTS, kind) && !recording)
    return skip(
      `unknown hook "${kind}" (session-start, user-prompt, stop, session-end or pre-compact)`,
    );
  const unknown = rest.find((a) => a !== "--json");
  if (unknown !== undefined) return skip(`unknown option ${unknown} (only --json)`);
  const json = rest.includes("--json");
  if (recording) {
    const code = await recordSession(skip);
    // With --json (Gemini CLI) an empty JSON answer: a client that shows a
    // hook's stderr when its stdout is empty would show our line every time.
    if (json) process.stdout.write("{}\n");
    return code;
  }
  const event = EVENTS[kind as HookKind];
  try {
    const input = parseHookInput(
      await readStdin(HOOK_STDIN_MAX_BYTES, HOOK_STDIN_TIMEOUT_MS),
      process.cwd(),
    );
    // Session start in a vault: git now, the service's modules meanwhile. A
    // resumed session is not primed again, so it asks git nothing. Settings
    // are read with the service; when priming is off the read is dropped.
    const git =
      kind === "session-start" && input.source !== "resume" && findProjectVault(input.cwd)
        ? readGitContext(input.cwd)
        : undefined;
    const { answerHook } = await import("./hook-answer.ts");
    const notice = kind === "session-start" ? await sessionNotice(input.cwd) : "";
    let primed = "";
    try {
      primed = await answerHook(kind as HookKind, input, git);
    } catch (error) {
      // Priming off or nothing to prime: the notice is still said.
      if (notice === "") throw error;
      skip(error instanceof HookSkip ? error.message : `failed: ${errorMessage(error)}`);
    }
    const block = [primed, notice].filter((b) => b !== "").join("\n\n");
    if (block === "") return 0;
    if (json) {
      // Escaped, not neutralised: the JSON must parse back to the very block.
      const doc = { hookSpecificOutput: { hookEventName: event, additionalContext: block } };
      process.stdout.write(`${jsonTerminalSafe(JSON.stringify(doc))}\n`);
    } else printOut(`${block}\n`);
    return 0;
  } catch (error) {
    return skip(error instanceof HookSkip ? error.message : `failed: ${errorMessage(error)}`);
  }
}

/** Records the session's trajectory from its transcript; says what it did on stderr; exit 0. */
async function recordSession(skip: (reason: string) => number): Promise<number> {
  try {
    const input = parseHookInput(
      await readStdin(HOOK_STDIN_MAX_BYTES, HOOK_STDIN_TIMEOUT_MS),
      process.cwd(),
    );
    const { recordSessionHook } = await import("./hook-session.ts");
    printErr(`llm-wiki hook: ${recordSessionHook(input)}\n`);
    return 0;
  } catch (error) {
    return skip(error instanceof HookSkip ? error.message : `failed: ${errorMessage(error)}`);
  }
}

/** Session start with working memory on: how many trajectories wait for distillation ("" for none). */
async function sessionNotice(cwd: string): Promise<string> {
  try {
    const { distillNotice } = await import("./hook-session.ts");
    return distillNotice(cwd);
  } catch {
    return "";
  }
}
