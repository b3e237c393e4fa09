/** Cursor: `mcpServers` in `.cursor/mcp.json` (project) or `~/.cursor/mcp.json` (user). */
import { join } from "node:path";
import { mcpServersEdit } from "./claude-code.ts";
import {
  type ClientPlan,
  type SetupCommand,
  type SetupPlaces,
  type SetupScope,
  serverWords,
} from "./setup-types.ts";

export function cursorPlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const root = scope === "project" ? places.project : places.home;
  const server = serverWords(command);
  return {
    client: "cursor",
    scope,
    files: [mcpServersEdit(join(root, ".cursor", "mcp.json"), root, server)],
    notes: [],
  };
}
