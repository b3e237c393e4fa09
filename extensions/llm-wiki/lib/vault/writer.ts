/**
 * Who writes to a vault: the teammate and the agent. Every event a write
 * logs carries them (`by`, `agent`) and every page it creates names them in
 * its front matter (`author`, `agent`), so `recent`, the activity logs and
 * `git blame` agree on who decided what. The teammate is the `author`
 * setting when set, else the git author of the vault's repository (read
 * from git's files: vault/git-state.ts, nothing run), else the account
 * name; the agent is the host (`pi`, `cli`, a hook's client, an MCP
 * client's own name).
 */
import { userInfo } from "node:os";
import { neutraliseLine } from "../safety/text.ts";
import { findGitRepo, gitAuthor } from "./git-state.ts";

/** Who a write is recorded as. */
export interface Writer {
  /** The teammate; absent when nothing names one. */
  name?: string;
  /** The host or client: `pi`, `cli`, `claude-code`, `codex`, `gemini`, an MCP client's name. */
  agent: string;
}

const MAX_NAME_CHARS = 120;
const MAX_AGENT_CHARS = 60;

/** One plain line of at most `max` characters, or undefined when nothing visible is left. */
function shownName(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const line = neutraliseLine(text)
    .replace(/\uFFFD/g, "")
    .trim();
  return line === "" ? undefined : [...line].slice(0, max).join("");
}

/** An agent's name as recorded: lower case letters, digits, `.`, `_`, `-` (`Claude Code` → `claude-code`). */
export function agentName(text: string | undefined, fallback: string): string {
  const name = (text ?? "")
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_AGENT_CHARS);
  return name === "" ? fallback : name;
}

function accountName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/**
 * The writer of a vault at `root`: `configured` (the `author` setting) when
 * set, else git's author for that repository, else the account's name.
 */
export function resolveWriter(
  root: string,
  agent: string,
  options: { configured?: string; env?: NodeJS.ProcessEnv } = {},
): Writer {
  const env = options.env ?? process.env;
  const name =
    shownName(options.configured, MAX_NAME_CHARS) ??
    shownName(gitAuthor(findGitRepo(root), env).name, MAX_NAME_CHARS) ??
    shownName(accountName(), MAX_NAME_CHARS);
  const recorded = agentName(agent, "unknown");
  return name === undefined ? { agent: recorded } : { name, agent: recorded };
}

/**
 * The agent a command runs for, from what its client sets in the
 * environment of the commands it runs (a hook, a shell call):
 * `LLM_WIKI_AGENT` when set, else Claude Code's `CLAUDECODE`, Gemini CLI's
 * `GEMINI_CLI`, Codex's `CODEX_*`; `fallback` when none says.
 */
export function agentFromEnv(env: NodeJS.ProcessEnv, fallback: string): string {
  if (env.LLM_WIKI_AGENT?.trim()) return agentName(env.LLM_WIKI_AGENT, fallback);
  if (env.CLAUDECODE) return "claude-code";
  if (env.GEMINI_CLI) return "gemini";
  if (Object.keys(env).some((k) => k.startsWith("CODEX_"))) return "codex";
  return fallback;
}
