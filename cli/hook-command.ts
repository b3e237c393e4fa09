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
 * nothing on stdout, and one line on stderr saying why (hook-quiet.ts). It
 * never fails the user's prompt: whatever goes wrong (bad or huge input, no
 * vault, a broken index, no answer within its deadline) it exits 0 with
 * nothing on stdout and one line on stderr saying why — never silence.
 *
 * A hook is a fresh process on every prompt, so the order matters: the
 * input is read and the session's git read started (two git processes,
 * session start only) with Node's own modules, and the service's modules
 * (hook-answer.ts) load while git runs.
 */

import { HOOK_DEADLINE_MS, hookDeadlineMs } from "../bin/hook-socket.js";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import type { ReaderPool } from "../extensions/llm-wiki/lib/index/reader-pool.ts";
import { type GitContext, readGitContext } from "../extensions/llm-wiki/lib/priming/git-context.ts";
import { jsonTerminalSafe, terminalSafe } from "../extensions/llm-wiki/lib/safety/text.ts";
import { findProjectVault } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { HookSkip, parseHookInput, readStdin, type StdinRead, stdinBytes } from "./hook-input.ts";

export { HOOK_DEADLINE_MS, hookDeadlineMs };

/**
 * Where a hook's input comes from and its output goes: the process's own
 * stdin, stdout and stderr when it runs in the hook's process, one
 * request's when the warm process answers it (hook-server.ts).
 */
export interface HookIo {
  /** The input's bytes; throws `HookSkip` saying why there are none. */
  input(): Promise<Buffer>;
  /** The working folder, for an input that names no `cwd`. */
  cwd(): string;
  /** Writes to the hook's stdout, as given. */
  out(text: string): void;
  /** Writes to the hook's stderr, as given. */
  err(text: string): void;
  /** The deadline passed and was said: no more output for this hook. */
  overdue(): void;
  /** The environment the hook reads (its deadline). */
  env: NodeJS.ProcessEnv;
  /**
   * Reads a work tree's git context (`readGitContext`, the default); the warm
   * process has a small process of its own make the read (hook-git.ts).
   */
  readGit?: (cwd: string) => Promise<GitContext>;
  /** Where the warm process keeps index stores from one hook to the next (index/reader-pool.ts). */
  readers?: ReaderPool;
}

/** The hook's own process: its stdin (or the input its thin client already read), stdout, stderr. */
export function processHookIo(stdin?: StdinRead): HookIo {
  return {
    input: () => (stdin === undefined ? readStdin() : Promise.resolve(stdinBytes(stdin))),
    cwd: () => process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    // The work still running would hold the process past the agent's timeout.
    overdue: () => process.exit(0),
    env: process.env,
  };
}

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
  hook serve                               the warm process session-start and user-prompt start and ask
                                           (leaves when idle; LLM_WIKI_HOOK_SERVER=off: never used)
`;

/** Runs the hook command; always resolves to exit status 0. */
export async function hookCommand(
  argv: readonly string[],
  io: HookIo = processHookIo(),
): Promise<number> {
  const printErr = (text: string) => io.err(terminalSafe(text));
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
    const code = await recordSession(io, skip);
    // With --json (Gemini CLI) an empty JSON answer: a client that shows a
    // hook's stderr when its stdout is empty would show our line every time.
    if (json) io.out("{}\n");
    return code;
  }
  const event = EVENTS[kind as HookKind];
  const deadline = hookDeadlineMs(io.env);
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const overdue = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadline);
  });
  const answered = await Promise.race([
    answer(kind as HookKind, event, json, io, () => late),
    overdue,
  ]);
  clearTimeout(timer);
  if (answered !== "late") return answered;
  late = true;
  skip(
    `no answer within ${deadline} ms (the hook's deadline, inside the agent's hook timeout), so nothing is added to the agent's context; \`llm-wiki status\` shows the vault's size and index, \`llm-wiki reindex\` builds it ahead of the next prompt`,
  );
  io.overdue();
  return 0;
}

/** Reads the input and prints the block (unless `late()` by then); resolves to the exit status. */
async function answer(
  kind: HookKind,
  event: (typeof EVENTS)[HookKind],
  json: boolean,
  io: HookIo,
  late: () => boolean,
): Promise<number> {
  const printErr = (text: string) => io.err(terminalSafe(text));
  const skip = (reason: string) => {
    if (!late()) printErr(`llm-wiki hook: ${reason.replace(/\s+/g, " ")}\n`);
    return 0;
  };
  try {
    const input = parseHookInput(await io.input(), io.cwd());
    // Session start in a vault: git now, the service's modules meanwhile. A
    // resumed session is not primed again, so it asks git nothing. Settings
    // are read with the service; when priming is off the read is dropped.
    const git =
      kind === "session-start" && input.source !== "resume" && findProjectVault(input.cwd)
        ? (io.readGit ?? readGitContext)(input.cwd)
        : undefined;
    const { answerHook } = await import("./hook-answer.ts");
    const notice = kind === "session-start" ? await sessionNotice(input.cwd) : "";
    let primed = "";
    try {
      primed = await answerHook(kind as HookKind, input, printErr, git, io.readers);
    } catch (error) {
      // Priming off or nothing to prime: the notice is still said.
      if (notice === "") throw error;
      skip(error instanceof HookSkip ? error.message : `failed: ${errorMessage(error)}`);
    }
    const block = [primed, notice].filter((b) => b !== "").join("\n\n");
    if (block === "" || late()) return 0;
    if (json) {
      // Escaped, not neutralised: the JSON must parse back to the very block.
      const doc = { hookSpecificOutput: { hookEventName: event, additionalContext: block } };
      io.out(`${jsonTerminalSafe(JSON.stringify(doc))}\n`);
    } else io.out(terminalSafe(`${block}\n`));
    return 0;
  } catch (error) {
    return skip(error instanceof HookSkip ? error.message : `failed: ${errorMessage(error)}`);
  }
}

/** Records the session's trajectory from its transcript; says what it did on stderr; exit 0. */
async function recordSession(io: HookIo, skip: (reason: string) => number): Promise<number> {
  try {
    const input = parseHookInput(await io.input(), io.cwd());
    const { recordSessionHook } = await import("./hook-session.ts");
    io.err(terminalSafe(`llm-wiki hook: ${recordSessionHook(input)}\n`));
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
