/**
 * The shape of `llm-wiki setup <client>`: each client is a list of config
 * files, and each file an edit that adds our entries to its text or takes
 * them out again, keeping everything else.
 */
import { diagnostic, WikiError } from "../diagnostics.ts";

/** Where the entries go: this project's files, or the user's own. */
export type SetupScope = "project" | "user";

/**
 * What `setup` writes into a client's configuration: the words that run
 * the command line (`llm-wiki`) and the MCP server (`llm-wiki-mcp`). A
 * project's files, committed and shared, name the commands as any
 * teammate's PATH has them (`["llm-wiki"]`); the user's own files name this
 * install's absolute Node and bundled bins, which no PATH can break.
 */
export interface SetupCommand {
  /** The command line's words, before its arguments. */
  cli: readonly string[];
  /** The MCP server's words: the program, then its arguments. */
  mcp: readonly string[];
}

/** Where to put files: the project folder and the user's home. */
export interface SetupPlaces {
  project: string;
  home: string;
  /** The process environment (CODEX_HOME, XDG_CONFIG_HOME). */
  env: NodeJS.ProcessEnv;
}

/** One config file and the edit that adds (or removes) our entries. */
export interface FileEdit {
  path: string;
  /** The folder the file belongs to: no symbolic link below it is followed. */
  within: string;
  /** What our entries are here, for the report ("MCP server", "hooks …"). */
  what: string;
  /**
   * The new text for `current` (undefined: the file is absent); undefined
   * as the result means the file ends up empty of everything and is removed.
   * Throws a `SetupError` when `current` cannot be read as its format, or
   * holds an entry of ours by name that setup did not write (unless `force`).
   */
  apply(current: string | undefined, action: "add" | "remove", force?: boolean): string | undefined;
}

/** A client's set-up at one scope: its files, and notes to print. */
export interface ClientPlan {
  client: string;
  scope: SetupScope;
  files: FileEdit[];
  /** What the user should know (trust prompts, approval). */
  notes: string[];
}

/** The MCP server as most clients write it: a program and its arguments. */
export function serverWords(command: SetupCommand): { command: string; args: string[] } {
  const [program = "llm-wiki-mcp", ...args] = command.mcp;
  return { command: program, args };
}

/** The name of our MCP server in every client's configuration. */
export const SERVER_NAME = "llm-wiki";

/** A config file this command will not edit (malformed, or shaped unexpectedly); nothing is written. */
export function setupError(path: string, message: string, repair?: string): WikiError {
  return new WikiError(
    diagnostic("setup_config_unreadable", "error", `${path}: ${message}; nothing was changed`, {
      path,
      ...(repair ? { repair } : {}),
    }),
  );
}
