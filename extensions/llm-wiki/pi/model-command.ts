/**
 * `/wiki-model`: which model the ingest and distill sub-agents run on (the
 * `subagentModel` setting). Without arguments it shows the choice, the model
 * a pass would use now and the models this session can use (Pi's selection
 * dialog in the terminal UI, where picking one sets it; elsewhere the same
 * as text: a notice in RPC, standard error and the JSON stream in print and
 * JSON mode); `/wiki-model <provider/id>` or `/wiki-model session` sets it
 * for the project like `/wiki-settings` (Pi's global settings with
 * `--global`). A model the registry does not know is refused with nothing
 * written; one without credentials is written with a warning, since passes
 * fall back until it has them. The choice applies to the next pass, without
 * /reload.
 */
import type { ExtensionCommandContext, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderDiagnostics } from "../lib/render-text.ts";
import { neutraliseLine, terminalSafe } from "../lib/safety/text.ts";
import { type CommandOutput, canDrawScreen } from "./command-output.ts";
import { commandWords } from "./command-words.ts";
import {
  changeSetting,
  readSettingsSnapshot,
  type SettingFiles,
  type SettingScope,
  settingFiles,
} from "./settings-state.ts";
import {
  availableModels,
  lookUpModel,
  modelRef,
  resolveSubagentModel,
  SESSION_MODEL,
} from "./subagent-model.ts";

const KEY = "subagentModel";
const USAGE =
  "usage: /wiki-model · /wiki-model <provider/id> [--global] · /wiki-model session [--global]";
/** Models listed in a notice; the count above the list is whole. */
const MAX_LISTED = 100;

/** The picker's first entry, standing for `session`. */
function sessionEntry(ctx: ExtensionCommandContext): string {
  const model = ctx.model ? `: ${neutraliseLine(modelRef(ctx.model))}` : ", none selected";
  return `session (the session's model${model})`;
}

/** The chosen value, where it comes from, and what a pass would run on now. */
async function currentState(ctx: ExtensionCommandContext, files: SettingFiles) {
  const row = readSettingsSnapshot(files).rows.find((r) => r.id === KEY);
  const chosen = row?.value ?? SESSION_MODEL;
  const resolved = await resolveSubagentModel(ctx, chosen);
  return { chosen, source: row?.source ?? "default", resolved };
}

/** The notice: choice, the model passes run on, why not the chosen one, the models to choose from. */
async function stateText(ctx: ExtensionCommandContext, files: SettingFiles): Promise<string> {
  const { chosen, source, resolved } = await currentState(ctx, files);
  const models = await availableModels(ctx.modelRegistry);
  const runsOn = resolved.model ? modelRef(resolved.model) : "nothing (no model)";
  const problems = renderDiagnostics(resolved.diagnostics);
  const listed = models.slice(0, MAX_LISTED).map((m) => {
    const ref = modelRef(m);
    return `${ref === chosen ? "*" : " "} ${neutraliseLine(ref)}`;
  });
  if (models.length > MAX_LISTED) listed.push(`  … and ${models.length - MAX_LISTED} more`);
  return terminalSafe(
    [
      "llm-wiki sub-agent model (wiki_ingest, wiki_distill_skills):",
      `chosen   ${neutraliseLine(chosen)} (${source})`,
      `runs on  ${neutraliseLine(runsOn)}`,
      ...(problems ? [problems] : []),
      "",
      `models this session can use (${models.length}):`,
      ...(listed.length > 0 ? listed : ["  none has credentials configured"]),
      "",
      "change: /wiki-model <provider/id> [--global] · /wiki-model session [--global]",
    ].join("\n"),
  );
}

/** Validates `ref` against the registry and writes it; the notice says what happened. */
async function choose(
  ctx: ExtensionCommandContext,
  output: CommandOutput,
  files: SettingFiles,
  scope: SettingScope,
  ref: string,
): Promise<void> {
  let warning: string | undefined;
  if (ref !== SESSION_MODEL) {
    const found = await lookUpModel(ctx.modelRegistry, ref);
    if (!("model" in found)) {
      if (found.code !== "subagent_model_no_auth") {
        output.show(
          ctx,
          terminalSafe(
            `llm-wiki: not written: ${found.why}; /wiki-model lists the models this session can use`,
          ),
          "warning",
        );
        return;
      }
      warning = `${found.why}; until it has them, passes use the session's model and say so`;
    }
  }
  const result = changeSetting(files, scope, KEY, ref);
  const lines = [`llm-wiki: ${result.message}`, ...(warning && result.ok ? [warning] : [])];
  output.show(
    ctx,
    terminalSafe(lines.join("\n")),
    result.ok && warning === undefined ? "info" : "warning",
  );
}

export function createModelCommand(
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description:
      "Model of llm-wiki's ingest and distill sub-agents: show it and the models available; /wiki-model <provider/id> or session sets it",
    async handler(args, ctx) {
      const files = settingFiles(ctx);
      const { flags, rest } = commandWords(args);
      if (flags.some((f) => f !== "--global") || rest.length > 1) {
        output.show(ctx, USAGE, "warning");
        return;
      }
      const scope: SettingScope = flags.includes("--global") ? "global" : "project";
      const [ref] = rest;
      if (ref !== undefined) {
        await choose(ctx, output, files, scope, ref);
        return;
      }
      // No terminal UI: no dialog, the state as text.
      if (!canDrawScreen(ctx)) {
        output.show(ctx, await stateText(ctx, files), "info");
        return;
      }
      const { chosen, resolved } = await currentState(ctx, files);
      const runsOn = resolved.model ? modelRef(resolved.model) : "no model";
      // Labels are shown, refs are written: a label is the ref made safe to draw.
      const entries = [
        { label: terminalSafe(sessionEntry(ctx)), ref: SESSION_MODEL },
        ...(await availableModels(ctx.modelRegistry)).map((m) => ({
          label: terminalSafe(neutraliseLine(modelRef(m))),
          ref: modelRef(m),
        })),
      ];
      const picked = await ctx.ui.select(
        terminalSafe(
          `llm-wiki sub-agent model: ${neutraliseLine(chosen)} (runs on ${neutraliseLine(runsOn)})`,
        ),
        entries.map((e) => e.label),
      );
      const entry = entries.find((e) => e.label === picked);
      if (entry) await choose(ctx, output, files, scope, entry.ref);
    },
  };
}
