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
 */
import { isAbsolute } from "node:path";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { jsonTerminalSafe } from "../extensions/llm-wiki/lib/safety/text.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { printErr, printOut } from "./output.ts";

/** The hook events this command answers, by subcommand, with the event name the JSON output names. */
const EVENTS = {
  "session-start": "SessionStart",
  "user-prompt": "UserPromptSubmit",
} as const;
type HookKind = keyof typeof EVENTS;

/** Most bytes of hook input read; a larger input is refused, not parsed. */
export const HOOK_STDIN_MAX_BYTES = 1024 * 1024;
/** How long the hook waits for its input to end (a terminal, a client that never closes it). */
export const HOOK_STDIN_TIMEOUT_MS = 5_000;

export const HOOK_USAGE = `  hook session-start|user-prompt [--json]
                                           agent hooks (Claude Code SessionStart / UserPromptSubmit):
                                           read the hook's JSON on stdin, print the priming or recall block
`;

/** Why the hook printed nothing: said on stderr in one line, exit status 0. */
class HookSkip extends Error {
  override name = "HookSkip";
}

/** Reads stdin whole, at most `max` bytes, within `timeoutMs`. */
function readStdin(max: number, timeoutMs: number): Promise<Buffer> {
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
  if (typeof record.prompt === "string") input.prompt = record.prompt;
  if (typeof record.source === "string") input.source = record.source;
  return input;
}

/** The block to add to the model's context for this hook ("" for nothing). */
async function hookBlock(service: WikiService, kind: HookKind, input: HookInput): Promise<string> {
  // Answer from the registry as last saved when nothing was added, removed or
  // renamed since, instead of walking every page: a hook runs in a fresh
  // process on every prompt.
  for (const vault of service.resolveVaults("project")) {
    try {
      service.handles.get(vault).answerFromSaved();
    } catch {
      // The full refresh answers instead.
    }
  }
  if (kind === "session-start") {
    // A resumed session still holds the notes primed when it began (Claude
    // Code's source "resume"); startup, clear and compact start afresh.
    if (input.source === "resume") throw new HookSkip("resumed session: primed when it began");
    const result = await service.prime();
    explain(result.diagnostics);
    return result.rendered;
  }
  if (!service.settings.autoRecall)
    throw new HookSkip("automatic recall is off (setting autoRecall)");
  const prompt = input.prompt;
  if (prompt === undefined || prompt.trim() === "") return "";
  const result = await service.recall({ query: prompt, policy: "automatic" });
  explain(result.diagnostics);
  return result.rendered;
}

/** Warnings and errors of the operation, one line each on stderr (never on stdout). */
function explain(diagnostics: ReadonlyArray<{ severity: string; code: string; message: string }>) {
  for (const d of diagnostics) {
    if (d.severity === "info") continue;
    printErr(`llm-wiki hook: ${d.code}: ${d.message.replace(/\s+/g, " ")}\n`);
  }
}

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
  if (!Object.hasOwn(EVENTS, kind))
    return skip(`unknown hook "${kind}" (session-start or user-prompt)`);
  const unknown = rest.find((a) => a !== "--json");
  if (unknown !== undefined) return skip(`unknown option ${unknown} (only --json)`);
  const json = rest.includes("--json");
  const event = EVENTS[kind as HookKind];
  let service: WikiService | undefined;
  try {
    const input = parseHookInput(
      await readStdin(HOOK_STDIN_MAX_BYTES, HOOK_STDIN_TIMEOUT_MS),
      process.cwd(),
    );
    const { settings } = loadCliSettings();
    service = createWikiService({ cwd: input.cwd, settings });
    if (service.resolveVaults("project").length === 0) {
      return skip(`no .llm-wiki vault at ${input.cwd} or any parent`);
    }
    const block = await hookBlock(service, kind as HookKind, input);
    if (block === "") return 0;
    if (json) {
      // Escaped, not neutralised: the JSON must parse back to the very block.
      const doc = { hookSpecificOutput: { hookEventName: event, additionalContext: block } };
      process.stdout.write(`${jsonTerminalSafe(JSON.stringify(doc))}\n`);
    } else printOut(`${block}\n`);
    return 0;
  } catch (error) {
    return skip(error instanceof HookSkip ? error.message : `failed: ${errorMessage(error)}`);
  } finally {
    try {
      await service?.close();
    } catch {
      // Closing a store that failed to open has nothing left to tell.
    }
  }
}
