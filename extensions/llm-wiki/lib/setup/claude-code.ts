/**
 * Claude Code: the MCP server in `.mcp.json` (project; Claude Code asks the
 * user to approve it once) or `~/.claude.json` (user), and the
 * SessionStart / UserPromptSubmit hooks in `.claude/settings.json` or
 * `~/.claude/settings.json`. `CLAUDE_CONFIG_DIR` moves the user files.
 */
import { join } from "node:path";
import { editHooksText, HOOK_EVENTS, type HookDialect } from "./hooks-json.ts";
import { editNamedEntry } from "./json-config.ts";
import {
  type ClientPlan,
  type FileEdit,
  SERVER_NAME,
  type SetupCommand,
  type SetupPlaces,
  type SetupScope,
  serverWords,
} from "./setup-types.ts";

/** A hooks edit of the JSON settings file at `path` (Claude Code's hooks unless `dialect` says otherwise). */
export function hooksFileEdit(
  path: string,
  within: string,
  command: SetupCommand,
  dialect?: HookDialect,
): FileEdit {
  return {
    path,
    within,
    what: `hooks ${Object.keys(HOOK_EVENTS).join(", ")}`,
    apply: (current, action) => editHooksText(path, current, command, action, dialect),
  };
}

/** The `mcpServers.llm-wiki` edit of a JSON file, with `entry` as our server. */
export function mcpServersEdit(
  path: string,
  within: string,
  entry: Record<string, unknown>,
  container = "mcpServers",
): FileEdit {
  return {
    path,
    within,
    what: "MCP server",
    apply: (current, action, force) =>
      editNamedEntry(path, current, container, SERVER_NAME, entry, action, force),
  };
}

export function claudeCodePlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const server = { type: "stdio", ...serverWords(command) };
  if (scope === "project") {
    const root = places.project;
    return {
      client: "claude-code",
      scope,
      files: [
        mcpServersEdit(join(root, ".mcp.json"), root, server),
        hooksFileEdit(join(root, ".claude", "settings.json"), root, command),
      ],
      notes: ["Claude Code asks once to approve a project's .mcp.json server (or `/mcp`)."],
    };
  }
  const configDir = places.env.CLAUDE_CONFIG_DIR;
  const dir = configDir && configDir !== "" ? configDir : join(places.home, ".claude");
  const stateFile =
    configDir && configDir !== ""
      ? join(configDir, ".claude.json")
      : join(places.home, ".claude.json");
  return {
    client: "claude-code",
    scope,
    files: [
      mcpServersEdit(stateFile, places.home, server),
      hooksFileEdit(join(dir, "settings.json"), places.home, command),
    ],
    notes: [],
  };
}
