/**
 * opencode: `mcp.<name>` in `opencode.json` (project) or
 * `~/.config/opencode/opencode.json` (user, `XDG_CONFIG_HOME` respected), a
 * local server as `{type: "local", command: [program, ...args]}`.
 */
import { join } from "node:path";
import { mcpServersEdit } from "./claude-code.ts";
import type { ClientPlan, SetupCommand, SetupPlaces, SetupScope } from "./setup-types.ts";

export function opencodePlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const server = { type: "local", command: [...command.mcp], enabled: true };
  if (scope === "project") {
    const root = places.project;
    return {
      client: "opencode",
      scope,
      files: [mcpServersEdit(join(root, "opencode.json"), root, server, "mcp")],
      notes: [],
    };
  }
  const xdg = places.env.XDG_CONFIG_HOME;
  const config = xdg && xdg !== "" ? xdg : join(places.home, ".config");
  return {
    client: "opencode",
    scope,
    files: [mcpServersEdit(join(config, "opencode", "opencode.json"), places.home, server, "mcp")],
    notes: [],
  };
}
