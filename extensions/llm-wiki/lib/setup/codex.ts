/**
 * Codex: the MCP server in `config.toml` and the hooks in `hooks.json`
 * (Claude Code's shape), under `.codex/` in the project or `~/.codex/`
 * (`CODEX_HOME`) for the user. Codex reads a project's `.codex/` only once
 * the user trusts the project, and runs a hook only once the user has
 * trusted it (`/hooks`), skipping the others silently: the notes say so.
 * Codex runs a `SessionEnd` hook for at most 3 s (hooks-json.ts).
 */
import { join } from "node:path";
import { hooksFileEdit } from "./claude-code.ts";
import { editCodexToml } from "./codex-toml.ts";
import { codexDialect } from "./hooks-json.ts";
import {
  type ClientPlan,
  type SetupCommand,
  type SetupPlaces,
  type SetupScope,
  serverWords,
} from "./setup-types.ts";

export function codexPlan(
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan {
  const codexHome = places.env.CODEX_HOME;
  const dir =
    scope === "project"
      ? join(places.project, ".codex")
      : codexHome && codexHome !== ""
        ? codexHome
        : join(places.home, ".codex");
  const within = scope === "project" ? places.project : places.home;
  const config = join(dir, "config.toml");
  const entry = serverWords(command);
  return {
    client: "codex",
    scope,
    files: [
      {
        path: config,
        within,
        what: "MCP server",
        apply: (current, action, force) => editCodexToml(config, current, entry, action, force),
      },
      hooksFileEdit(join(dir, "hooks.json"), within, command, codexDialect(command)),
    ],
    notes: [
      ...(scope === "project"
        ? [
            "Codex reads this project's .codex/ only once you trust the project (Codex asks on its first start here).",
          ]
        : []),
      "Codex runs a hook only once you have trusted it, and skips the others without a word: start `codex`, open /hooks and trust the llm-wiki hooks (recall, priming, session recording).",
    ],
  };
}
