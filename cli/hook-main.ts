/**
 * `llm-wiki hook …` answered in the hook's own process: the build's entry
 * for hooks (`dist/cli/hook.bundle.js`), which the launcher loads when no
 * warm process answered (bin/hook-client.js), and the command line's hook
 * branch. It never fails the user's prompt (exit 0, the reason on stderr),
 * not even when its modules cannot load or something throws after the
 * answer was given.
 */
import type { StdinRead } from "../bin/hook-client.js";
import { enableCodeCache } from "../extensions/llm-wiki/lib/compile-cache.ts";
import type { HookIo } from "./hook-command.ts";

/**
 * One line of plain text: a module path or an error message may hold
 * anything (output.ts, which would neutralise it, may be what failed to load).
 */
export function safeLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]+/g, " ");
}

/**
 * Runs the hook `argv` (`[kind, ...options]`) with `io`: a session's first
 * hook says when the build is older than its sources, then the command.
 * The warm process (hook-server.ts) runs the same for each request.
 */
export async function runHook(argv: readonly string[], io: HookIo): Promise<number> {
  // Once a session, not on every prompt: the check stats every source file.
  if (argv[0] !== "user-prompt") {
    const { staleBuildNotice } = await import("../extensions/llm-wiki/lib/stale-build.ts");
    // `..` of this module: `dist/` for the bundle (the sources have no build record).
    const stale = staleBuildNotice(new URL("..", import.meta.url));
    if (stale) io.err(`llm-wiki hook: ${safeLine(stale)}\n`);
  }
  const { hookCommand } = await import("./hook-command.ts");
  return hookCommand(argv, io);
}

/**
 * Runs the hook `argv` in this process and sets its exit status; `stdin`
 * is the input when the thin client already read it.
 */
export async function runHookProcess(argv: readonly string[], stdin?: StdinRead): Promise<void> {
  // Before the rest is loaded, so the cache covers it.
  enableCodeCache();
  const fail = (error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(`llm-wiki hook: failed: ${safeLine(why)}\n`);
    process.exit(0);
  };
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
  try {
    const { processHookIo } = await import("./hook-command.ts");
    process.exitCode = await runHook(argv, processHookIo(stdin));
  } catch (error) {
    fail(error);
  }
}
