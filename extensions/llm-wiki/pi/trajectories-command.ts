/**
 * `/wiki-trajectories [on|off]`: shows or sets the `trajectories` setting
 * in the project's `.pi/settings.json` (read only in a trusted project, so
 * an untrusted one is told instead of written), and adds or removes the
 * working-memory tools in this session at once.
 */
import { join } from "node:path";
import { CONFIG_DIR_NAME, type RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderDiagnostics } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import { writeSetting } from "../lib/settings-write.ts";
import type { WorkingMemory } from "./working-memory.ts";

const ON = new Set(["on", "true", "enable", "enabled", "yes", "1"]);
const OFF = new Set(["off", "false", "disable", "disabled", "no", "0"]);

export function createTrajectoriesCommand(
  memory: WorkingMemory,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description:
      "Turn the llm-wiki's working memory (record trajectories, distill skills, recall skills) on or off for this project",
    async handler(args, ctx) {
      const word = args.trim().toLowerCase();
      const current = memory.enabled(ctx);
      if (word === "") {
        ctx.ui.notify(
          `llm-wiki working memory is ${current ? "on" : "off"} (/wiki-trajectories on|off)`,
          "info",
        );
        return;
      }
      const next = ON.has(word) ? true : OFF.has(word) ? false : undefined;
      if (next === undefined) {
        ctx.ui.notify("usage: /wiki-trajectories on|off", "warning");
        return;
      }
      if (!ctx.isProjectTrusted()) {
        ctx.ui.notify(
          "llm-wiki: this project is not trusted, so its .pi/settings.json is not read; trust it first, or set trajectories in Pi's global settings",
          "warning",
        );
        return;
      }
      // Within the project: a committed `.pi` link (to ~/.pi/agent) is refused.
      const written = writeSetting(
        join(ctx.cwd, CONFIG_DIR_NAME, "settings.json"),
        "trajectories",
        next,
        ctx.cwd,
      );
      if (!written.ok) {
        ctx.ui.notify(terminalSafe(renderDiagnostics(written.diagnostics)), "error");
        return;
      }
      if (next) memory.enable();
      else memory.disable();
      const now = memory.enabled(ctx);
      const note =
        now === next
          ? ""
          : ` (Pi's global settings still say ${now ? "on" : "off"} for the next session)`;
      ctx.ui.notify(
        `llm-wiki working memory ${next ? "on: wiki_capture_trajectory, wiki_distill_skills and wiki_recall_skill are available" : "off: the trajectory tools are removed"}${note}`,
        "info",
      );
    },
  };
}
