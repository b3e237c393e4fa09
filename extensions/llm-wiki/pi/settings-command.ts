/**
 * `/wiki-settings [project|global]`: every `llm-wiki` setting with its value
 * and where it comes from, changed on a screen of Pi's components; changes go
 * to the extension's own file for the project (the default; Pi does not gate
 * it behind project trust, see `lib/pi-settings-files.ts`) or Pi's global
 * settings. Without a screen (print mode, RPC) the same list is printed, and `/wiki-settings set <key> <value> [--global]` or
 * `/wiki-settings unset <key> [--global]` change one setting, validated the
 * same way. The session reads its settings when it starts, so most changes
 * apply after /reload; `trajectories` applies at once, as /wiki-trajectories does.
 */
import type { ExtensionCommandContext, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderDiagnostics } from "../lib/render-text.ts";
import { neutraliseLine, terminalSafe } from "../lib/safety/text.ts";
import { type CommandOutput, canDrawScreen } from "./command-output.ts";
import { commandWords } from "./command-words.ts";
import { SettingsScreen } from "./settings-screen.ts";
import {
  type ChangeResult,
  changeSetting,
  readSettingsSnapshot,
  type SettingFiles,
  type SettingScope,
  settingFiles,
  settingsTable,
} from "./settings-state.ts";
import type { WorkingMemory } from "./working-memory.ts";

const USAGE =
  "usage: /wiki-settings [project|global] · /wiki-settings set <key> <value> [--global] · /wiki-settings unset <key> [--global]";

/** The list as a notice: rows, the two files, the files' problems, how to change one. */
export function settingsText(files: SettingFiles): string {
  const { rows, diagnostics } = readSettingsSnapshot(files);
  const problems = renderDiagnostics(diagnostics);
  return terminalSafe(
    [
      "llm-wiki settings (setting, from, value):",
      ...settingsTable(rows),
      "",
      `project: ${neutraliseLine(files.project)}`,
      `         and ${neutraliseLine(files.piProject)}${files.projectTrusted ? "" : " (not read: the project is not trusted)"}`,
      `global:  ${neutraliseLine(files.global)}`,
      ...(problems ? ["", problems] : []),
      "",
      "change one: /wiki-settings set <key> <value> [--global] · unset <key> [--global]",
    ].join("\n"),
  );
}

export function createSettingsCommand(
  memory: WorkingMemory,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description:
      "llm-wiki settings: every key with its value and source; change them in the project's or Pi's global settings",
    async handler(args, ctx) {
      const files = settingFiles(ctx);
      const { flags, rest } = commandWords(args);
      const [verb, id, ...value] = rest;
      const unknownFlag = flags.find((f) => f !== "--global" && f !== "--project");
      if (unknownFlag !== undefined) {
        output.show(ctx, USAGE, "warning");
        return;
      }
      const asked: SettingScope | undefined =
        verb === "project" || flags.includes("--project")
          ? "project"
          : verb === "global" || flags.includes("--global")
            ? "global"
            : undefined;
      const scope = asked ?? "project";
      const change = (to: SettingScope, key: string, raw: string) =>
        changeAndApply(memory, ctx, files, to, key, raw);

      if (verb === "set" || verb === "unset") {
        const raw = value.join(" ");
        if (id === undefined || (verb === "set" ? raw === "" : raw !== "")) {
          output.show(ctx, USAGE, "warning");
          return;
        }
        const result = change(scope, id, verb === "set" ? raw : "");
        output.show(
          ctx,
          terminalSafe(`llm-wiki: ${result.message}`),
          result.ok ? "info" : "warning",
        );
        return;
      }
      if (rest.length > 1 || (verb !== undefined && verb !== "project" && verb !== "global")) {
        output.show(ctx, USAGE, "warning");
        return;
      }
      // Print mode or RPC: no screen to draw on, the list as text.
      if (!canDrawScreen(ctx)) {
        const problems = readSettingsSnapshot(files).diagnostics.length > 0;
        output.show(ctx, settingsText(files), problems ? "warning" : "info");
        return;
      }
      await ctx.ui.custom<void>((tui, theme, _keybindings, done) => {
        return new SettingsScreen({
          files,
          scope,
          theme,
          change,
          close: () => done(undefined),
          requestRender: () => tui.requestRender(),
        });
      });
    },
  };
}

/** Writes one change; a `trajectories` change adds or removes the working-memory tools at once. */
function changeAndApply(
  memory: WorkingMemory,
  ctx: ExtensionCommandContext,
  files: SettingFiles,
  scope: SettingScope,
  id: string,
  raw: string,
): ChangeResult {
  if (id !== "trajectories") return changeSetting(files, scope, id, raw);
  const before = memory.enabled(ctx);
  const result = changeSetting(files, scope, id, raw);
  const after = memory.enabled(ctx);
  if (after && !before) memory.enable();
  if (!after && before) memory.disable();
  return result;
}
