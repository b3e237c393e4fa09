#!/usr/bin/env node
// `llm-wiki`: checks the Node version, then runs the command-line host.
import { entryUrl, requireSupportedNode, runsFromSources } from "./node-check.js";

// An agent's hook never fails the user's prompt, whatever the reason: exit 0
// and the reason on stderr (Claude Code blocks a prompt on exit 2).
const hook = process.argv[2] === "hook";
requireSupportedNode(
  hook ? "llm-wiki hook" : "llm-wiki",
  hook ? 0 : 2,
  hook ? process.argv[3] : undefined,
);
if (hook) {
  // The bundle starts in a fraction of the sources' time: a hook runs it
  // whenever there is one, and says how to make one when there is not.
  if (runsFromSources("cli/llm-wiki")) {
    process.stderr.write(
      "llm-wiki hook: running from the TypeScript sources (slow to start); build the bundle with `pnpm build` in the checkout\n",
    );
  }
  try {
    await import(entryUrl("cli/llm-wiki", true));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    // One plain line: a path or message may hold control characters.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing them is the point.
    const line = why.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]+/g, " ");
    process.stderr.write(`llm-wiki hook: cannot load the command line: ${line}\n`);
    process.exitCode = 0;
  }
} else await import(entryUrl("cli/llm-wiki"));
