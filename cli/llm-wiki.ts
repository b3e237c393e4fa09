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

// `hook --help` is for a person: the usual help, on stdout.
const hookHelp = argv.slice(1).some((a) => a === "--help" || a === "-h");
if (argv[0] === "hook" && argv[1] === "serve" && argv.length === 2) {
  // The warm process the hooks' thin client starts (hook-server.ts).
  const { serveHooks } = await import("./hook-server.ts");
  process.exitCode = await serveHooks();
} else if (argv[0] === "hook" && !hookHelp) {
  // An agent's hook: its own entry, which never fails the user's prompt.
  try {
    const { runHookProcess } = await import("./hook-main.ts");
    await runHookProcess(argv.slice(1));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point.
    const line = why.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]+/g, " ");
    process.stderr.write(`llm-wiki hook: failed: ${line}\n`);
    process.exitCode = 0;
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
