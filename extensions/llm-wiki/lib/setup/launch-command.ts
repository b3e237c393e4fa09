/**
 * The absolute command a client runs for this install: this Node binary,
 * and the bundled bins under `dist/` when they exist (a hook starts in a
 * fraction of the time the TypeScript sources take), else the package's
 * `bin/` scripts. Hook commands go through a shell, so each word is quoted.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PACKAGE_NAME } from "../package-version.ts";
import type { SetupCommand } from "./setup-types.ts";

/** The folder holding this package's package.json (from the sources and from `dist/`). */
export function packageRoot(from: string = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === PACKAGE_NAME) return dir;
    } catch {
      // Not here: keep walking up.
    }
    if (dirname(dir) === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package folder`);
  }
}

/** The command for the package at `root`, run by `node`. */
export function setupCommandFor(
  root: string = packageRoot(),
  node: string = process.execPath,
): SetupCommand {
  const cli = join(root, "dist", "cli", "llm-wiki.js");
  const mcp = join(root, "dist", "mcp", "index.js");
  if (existsSync(cli) && existsSync(mcp)) return { node, cli, mcp };
  return { node, cli: join(root, "bin", "llm-wiki.js"), mcp: join(root, "bin", "llm-wiki-mcp.js") };
}

/**
 * One word for a POSIX shell (`sh -c`, what Claude Code and Codex run a
 * hook command with): single quotes, each `'` closed, escaped and reopened.
 */
export function shellWord(word: string): string {
  if (/^[\w./@%+=:,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The shell command line of `llm-wiki hook <kind>` for this install. */
export function hookCommandLine(
  command: SetupCommand,
  kind: "session-start" | "user-prompt" | "stop" | "session-end" | "pre-compact",
  options: { json?: boolean } = {},
): string {
  const words = [command.node, command.cli, "hook", kind, ...(options.json ? ["--json"] : [])];
  return words.map(shellWord).join(" ");
}
