/** Cursor: `mcpServers` in `.cursor/mcp.json` (project) or `~/.cursor/mcp.json` (user). */
import { join } from "node:path";
import { mcpServersEdit } from "./claude-code.ts";
import type { ClientPlan, SetupCommand, SetupPlaces, SetupScope } from "./setup-types.ts";

export function cursorPlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const root = scope === "project" ? places.project : places.home;
  const server = { command: command.node, args: [command.mcp] };
  return {
    client: "cursor",
    scope,
    files: [mcpServersEdit(join(root, ".cursor", "mcp.json"), root, server)],
    notes: [],
  };
}
