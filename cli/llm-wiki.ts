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
if (argv[0] === "hook") {
  // An agent's hook: its own entry, which never fails the user's prompt (exit 0).
  const { hookCommand } = await import("./hook-command.ts");
  process.exitCode = await hookCommand(argv.slice(1));
} else {
  const { main } = await import("./main.ts");
  process.exitCode = await main(argv);
}
