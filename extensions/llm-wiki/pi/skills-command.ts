/**
 * `/wiki-skills [task]`: without words, the skill and case pages the
 * working memory holds; with words, those that match the task (the same
 * recall as `wiki_recall_skill`). A notice (the text where there is no UI),
 * no model turn.
 */
import type { RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderAnswer } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import { renderSkillList } from "../lib/trajectories/list-skills.ts";
import { renderRecallSkills } from "../lib/trajectories/render.ts";
import type { CommandOutput } from "./command-output.ts";
import type { WikiHost } from "./wiki-host.ts";
import type { WorkingMemory } from "./working-memory.ts";

export function createSkillsCommand(
  host: WikiHost,
  memory: WorkingMemory,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description: "List the llm-wiki's skill and case pages, or those matching a task",
    async handler(args, ctx) {
      if (!memory.usable(ctx)) return;
      const service = host.service(ctx);
      const query = args.trim();
      if (query === "") {
        const listed = service.listSkills();
        const text = renderAnswer(listed.ok, renderSkillList(listed), listed.diagnostics);
        output.show(ctx, terminalSafe(`llm-wiki:\n${text}`), listed.ok ? "info" : "warning");
        return;
      }
      await host.indexed();
      const result = await service.recallSkills({ query });
      // A person reads this list; the recall block for a model is left out.
      const text = renderAnswer(
        result.ok,
        renderRecallSkills({ ...result, rendered: "" }).trimEnd(),
        result.diagnostics,
      );
      output.show(ctx, terminalSafe(`llm-wiki:\n${text}`), result.ok ? "info" : "warning");
    },
  };
}
