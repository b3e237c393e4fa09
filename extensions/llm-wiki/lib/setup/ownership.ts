/**
 * Which entries of a client's configuration `setup` wrote, known by their
 * exact shape rather than a name pattern: a server named `llm-wiki` that
 * runs something else, or a user's hook whose program merely contains
 * "llm-wiki" (`/usr/local/bin/my-llm-wiki-audit hook stop`), is the user's,
 * and `setup` neither replaces nor removes it (a different server is
 * replaced only with `--force`).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PACKAGE_NAME } from "../package-version.ts";

/** The last path segment of `word` (either separator), without a Windows launcher's extension. */
function baseName(word: string): string {
  const name = word.split(/[\\/]/).pop() ?? word;
  return name.replace(/\.(?:cmd|ps1|exe)$/i, "");
}

/** A package runner and its flags before the package (`npx -y`, `pnpm dlx`, `bunx`). */
function afterRunner(words: readonly string[]): readonly string[] | undefined {
  const [first, ...rest] = words;
  if (first === undefined) return undefined;
  const runner = baseName(first);
  let tail: readonly string[];
  if (runner === "npx" || runner === "bunx") tail = rest;
  else if (runner === "pnpm" && rest[0] === "dlx") tail = rest.slice(1);
  else return undefined;
  let i = 0;
  while (i < tail.length && /^-/.test(tail[i] as string)) i++;
  const pkg = tail[i];
  if (pkg === undefined || pkg.replace(/@[^@/]*$/, "") !== PACKAGE_NAME) return undefined;
  return tail.slice(i + 1);
}

/**
 * Whether the package holding `script` (`<root>/dist/mcp/index.js`,
 * `<root>/mcp/index.ts`) is this one; undefined when no named package.json
 * is found (the install is gone).
 */
function packageNamedUs(script: string): boolean | undefined {
  let dir = dirname(script);
  for (let up = 0; up < 3; up++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown };
      // A nameless package.json (`{"type": "module"}` in a build folder) is not the package.
      if (pkg.name !== undefined) return pkg.name === PACKAGE_NAME;
    } catch {
      // No package.json here: one folder up.
    }
  }
  return undefined;
}

/** Whether `words` run one of this package's programs: `llm-wiki` (`cli`) or `llm-wiki-mcp` (`mcp`). */
export function runsOurProgram(words: readonly string[], program: "cli" | "mcp"): boolean {
  const bin = program === "cli" ? "llm-wiki" : "llm-wiki-mcp";
  const [first, second] = words;
  if (first === undefined) return false;
  // By name on PATH, or a global bin by its path.
  if (baseName(first) === bin || baseName(first) === `${bin}.js`) return true;
  // `node <package>/dist/…`, `<package>/bin/…`, or the TypeScript sources.
  const scripts =
    program === "cli"
      ? /[\\/](?:dist[\\/]cli[\\/]llm-wiki\.js|bin[\\/]llm-wiki\.js|cli[\\/]llm-wiki\.ts)$/
      : /[\\/](?:dist[\\/]mcp[\\/]index\.js|bin[\\/]llm-wiki-mcp\.js|mcp[\\/]index\.ts)$/;
  if (/^node(?:\.exe)?$|^bun$|^tsx$/.test(baseName(first)) && second !== undefined) {
    if (baseName(second) === `${bin}.js`) return true;
    // Another package may have a `dist/mcp/index.js` too: its package.json says whose it
    // is; an install gone since is ours when a folder on its path is named for us.
    if (!scripts.test(second)) return false;
    return packageNamedUs(second) ?? /[\\/](?:llm-wiki-memory|llm-wiki)[\\/]/.test(second);
  }
  // `npx -y llm-wiki-memory` (the CLI), or `… llm-wiki-memory llm-wiki-mcp`.
  const rest = afterRunner(words);
  if (rest === undefined) return false;
  return program === "cli" ? rest[0] !== "llm-wiki-mcp" : rest[0] === "llm-wiki-mcp";
}

/** Whether an MCP server entry (`{command, args}`, or opencode's `{command: [...]}`) is ours. */
export function isOurServer(entry: unknown): boolean {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return false;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  const words = Array.isArray(command)
    ? command
    : typeof command === "string"
      ? [command, ...(Array.isArray(args) ? args : [])]
      : [];
  if (!words.every((w) => typeof w === "string")) return false;
  return runsOurProgram(words as string[], "mcp");
}

/** The words of a POSIX shell command line (quotes undone); undefined for anything it cannot read. */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && /["\\$`]/.test(line[j + 1] ?? "")) j++;
        text += line[j];
      }
      if (j >= line.length) return undefined;
      word = (word ?? "") + text;
      i = j;
    } else if (c === "\\") {
      word = (word ?? "") + (line[i + 1] ?? "");
      i++;
    } else if (/[;&|<>()$`\n]/.test(c)) {
      // Anything a shell would read as more than words is not a line setup writes.
      return undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

const HOOK_KINDS = new Set(["session-start", "user-prompt", "stop", "session-end", "pre-compact"]);

/** Whether a hook command line is one `setup` writes: our CLI, `hook <kind>`, maybe `--json`, nothing else. */
export function isOurHookCommand(line: string): boolean {
  const words = shellWords(line.trim());
  if (words === undefined) return false;
  let end = words.length;
  if (words[end - 1] === "--json") end -= 1;
  const kind = words[end - 1];
  if (words[end - 2] !== "hook" || kind === undefined || !HOOK_KINDS.has(kind)) return false;
  return runsOurProgram(words.slice(0, end - 2), "cli");
}
