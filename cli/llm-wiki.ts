#!/usr/bin/env node
/**
 * `llm-wiki`: the command-line host. Parses arguments, calls the shared
 * service, renders the result (`main.ts`). Exit codes: 0 success, 1 the
 * operation reported errors, 2 usage.
 */
import { enableCodeCache } from "../extensions/llm-wiki/lib/compile-cache.ts";

// Before the rest is loaded, so the cache covers it.
enableCodeCache();
const argv = process.argv.slice(2);

/**
 * One line of plain text: a module path or an error message may hold
 * anything (output.ts, which would neutralise it, may be what failed to load).
 */
function safeLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]+/g, " ");
}
// `hook --help` is for a person: the usual help, on stdout.
const hookHelp = argv.slice(1).some((a) => a === "--help" || a === "-h");
if (argv[0] === "hook" && !hookHelp) {
  // An agent's hook: its own entry, which never fails the user's prompt
  // (exit 0, the reason on stderr), not even when its modules cannot load or
  // something throws after the answer was given.
  const fail = (error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(`llm-wiki hook: failed: ${safeLine(why)}\n`);
    process.exit(0);
  };
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
  try {
    // Once a session, not on every prompt: the check stats every source file.
    if (argv[1] !== "user-prompt") {
      const { staleBuildNotice } = await import("../extensions/llm-wiki/lib/stale-build.ts");
      // `..` of the entry: `dist/` for the bundle (the sources have no build record).
      const stale = staleBuildNotice(new URL("..", import.meta.url));
      if (stale) process.stderr.write(`llm-wiki hook: ${safeLine(stale)}\n`);
    }
    const { hookCommand } = await import("./hook-command.ts");
    process.exitCode = await hookCommand(argv.slice(1));
  } catch (error) {
    fail(error);
  }
} else {
  // A rejection nobody handled (pdf.js after a capture's deadline) is one warning, not a crash.
  const { reportUnhandledRejections } = await import(
    "../extensions/llm-wiki/lib/late-rejections.ts"
  );
  reportUnhandledRejections((line) => process.stderr.write(`llm-wiki: warning: ${line}\n`));
  const { main } = await import("./main.ts");
  process.exitCode = await main(argv);
}
