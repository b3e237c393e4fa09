/**
 * Gemini CLI: `mcpServers` in `.gemini/settings.json` (project) or
 * `~/.gemini/settings.json` (user). Gemini CLI connects to a project's
 * servers only in a folder the user trusts. Its hooks take their own input
 * and output shapes, so only the MCP server is set up here; `wiki_prime`
 * and the `prime` prompt give the priming.
 */
import { join } from "node:path";
import { mcpServersEdit } from "./claude-code.ts";
import type { ClientPlan, SetupCommand, SetupPlaces, SetupScope } from "./setup-types.ts";

export function geminiPlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const root = scope === "project" ? places.project : places.home;
  const server = { command: command.node, args: [command.mcp] };
  return {
    client: "gemini",
    scope,
    files: [mcpServersEdit(join(root, ".gemini", "settings.json"), root, server)],
    notes:
      scope === "project"
        ? ["Gemini CLI starts a project's servers only once the folder is trusted."]
        : [],
  };
}
