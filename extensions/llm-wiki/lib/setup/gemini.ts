/**
 * Gemini CLI: `mcpServers` and `hooks` in `.gemini/settings.json` (project)
 * or `~/.gemini/settings.json` (user), one file for both. Gemini CLI connects
 * to a project's servers, and runs its hooks, only in a folder the user
 * trusts. Its hooks: `SessionStart` primes, `BeforeAgent` recalls for the
 * prompt (`hookSpecificOutput.additionalContext` of the hook's JSON),
 * `SessionEnd` and `PreCompress` record the session with working memory on
 * and answer `{}`. Every hook runs with `--json`: Gemini CLI shows plain
 * text, or stderr when stdout is empty, to the user.
 * Timeouts are in milliseconds here.
 */
import { join } from "node:path";
import { mcpServersEdit } from "./claude-code.ts";
import { editHooksText, HOOK_TIMEOUT_SECONDS, type HookDialect } from "./hooks-json.ts";
import { hookCommandLine } from "./launch-command.ts";
import {
  type ClientPlan,
  type FileEdit,
  type SetupCommand,
  type SetupPlaces,
  type SetupScope,
  serverWords,
} from "./setup-types.ts";

/** Gemini CLI's hook events and ours for each. */
export const GEMINI_HOOK_EVENTS = {
  SessionStart: "session-start",
  BeforeAgent: "user-prompt",
  SessionEnd: "session-end",
  PreCompress: "pre-compact",
} as const;

function geminiDialect(command: SetupCommand): HookDialect {
  return {
    events: GEMINI_HOOK_EVENTS,
    handler: (kind) => ({
      type: "command",
      name: `llm-wiki-${kind}`,
      // JSON from every hook: Gemini CLI shows plain text (or, with stdout
      // empty, stderr) to the user rather than giving it to the model.
      command: hookCommandLine(command, kind, { json: true }),
      timeout: HOOK_TIMEOUT_SECONDS * 1000,
    }),
  };
}

/** The server and the hooks, both in the one settings file: one edit, applied in turn. */
function settingsEdit(path: string, within: string, command: SetupCommand): FileEdit {
  const server = mcpServersEdit(path, within, serverWords(command));
  return {
    path,
    within,
    what: `MCP server; hooks ${Object.keys(GEMINI_HOOK_EVENTS).join(", ")}`,
    apply(current, action, force) {
      const withServer = server.apply(current, action, force);
      return editHooksText(path, withServer, command, action, geminiDialect(command));
    },
  };
}

export function geminiPlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const root = scope === "project" ? places.project : places.home;
  return {
    client: "gemini",
    scope,
    files: [settingsEdit(join(root, ".gemini", "settings.json"), root, command)],
    notes: [
      scope === "project"
        ? "Gemini CLI reads this project's .gemini/settings.json, starts its servers and runs its hooks only in a trusted folder: trust this folder when Gemini CLI asks on its first start here (or with /permissions)."
        : "Gemini CLI starts servers and runs hooks only in folders you trust: trust each project folder when Gemini CLI asks on its first start there (or with /permissions).",
    ],
  };
}
