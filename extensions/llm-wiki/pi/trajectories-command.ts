/**
 * `/wiki-trajectories [on|off]`: shows or sets the `trajectories` setting
 * for the project, in the extension's own file for it (Pi does not gate it
 * behind project trust, so the next session sees it in every mode; see
 * `lib/pi-settings-files.ts`), and adds or removes the working-memory tools
 * in this session at once.
 */
import type { RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { terminalSafe } from "../lib/safety/text.ts";
import type { CommandOutput } from "./command-output.ts";
import { changeSetting, settingFiles } from "./settings-state.ts";
import type { WorkingMemory } from "./working-memory.ts";

const ON = new Set(["on", "true", "enable", "enabled", "yes", "1"]);
const OFF = new Set(["off", "false", "disable", "disabled", "no", "0"]);

export function createTrajectoriesCommand(
  memory: WorkingMemory,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description:
      "Turn the llm-wiki's working memory (record trajectories, distill skills, recall skills) on or off for this project",
    async handler(args, ctx) {
      const word = args.trim().toLowerCase();
      const current = memory.enabled(ctx);
      if (word === "") {
        output.show(
          ctx,
          `llm-wiki working memory is ${current ? "on" : "off"} (/wiki-trajectories on|off)`,
        );
        return;
      }
      const next = ON.has(word) ? true : OFF.has(word) ? false : undefined;
      if (next === undefined) {
        output.show(ctx, "usage: /wiki-trajectories on|off", "warning");
        return;
      }
      const written = changeSetting(settingFiles(ctx), "project", "trajectories", String(next));
      if (!written.ok) {
        output.show(ctx, terminalSafe(`llm-wiki: ${written.message}`), "error");
        return;
      }
      if (next) memory.enable();
      else memory.disable();
      output.show(
        ctx,
        `llm-wiki working memory ${next ? "on: wiki_capture_trajectory, wiki_distill_skills and wiki_recall_skill are available" : "off: the trajectory tools are removed"}, for this and later sessions`,
      );
    },
  };
}
