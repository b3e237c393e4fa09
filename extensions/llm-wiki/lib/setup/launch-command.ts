/**
 * The commands a client runs: for a project (files a team commits), the
 * bins by name as every install puts them on PATH; for the user, this
 * install's absolute Node and the bundled bins under `dist/` when they
 * exist (a hook starts in a fraction of the time the TypeScript sources
 * take), else the package's `bin/` scripts. Hook commands go through a
 * shell, so each word is quoted.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
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

/** The commands by name, resolved on each machine's PATH: what a project's shared files hold. */
export const PORTABLE_COMMAND: SetupCommand = { cli: ["llm-wiki"], mcp: ["llm-wiki-mcp"] };

/** The absolute command for the package at `root`, run by `node`: what the user's own files hold. */
export function setupCommandFor(
  root: string = packageRoot(),
  node: string = process.execPath,
): SetupCommand {
  const cli = join(root, "dist", "cli", "llm-wiki.js");
  const mcp = join(root, "dist", "mcp", "index.js");
  if (existsSync(cli) && existsSync(mcp)) return { cli: [node, cli], mcp: [node, mcp] };
  return {
    cli: [node, join(root, "bin", "llm-wiki.js")],
    mcp: [node, join(root, "bin", "llm-wiki-mcp.js")],
  };
}

/** Which of `names` no folder on `env`'s PATH holds as a program (PATHEXT's forms on Windows). */
export function missingFromPath(names: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((d) => d !== "");
  const suffixes =
    process.platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";")] : [""];
  const runnable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return names.filter(
    (name) => !dirs.some((dir) => suffixes.some((suffix) => runnable(join(dir, name + suffix)))),
  );
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
  const words = [...command.cli, "hook", kind, ...(options.json ? ["--json"] : [])];
  return words.map(shellWord).join(" ");
}
