/**
 * `wiki_distill_skills` in Pi (working memory, opt-in): by default a
 * sub-agent of the session's own model turns undistilled trajectories into
 * skill and case pages (`distill-subagent.ts`) in a context the main session
 * never sees, and marks each trajectory it wrote pages from. Without a
 * model, or when asked (`mode: "handoff"`, `mark_distilled`), it hands the
 * agent the batch with the page schema and marks a trajectory once the agent
 * names the pages it wrote, exactly as the MCP server does. `mode` exists
 * only here: the shared schema stays the MCP tool's surface.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { diagnostic } from "../lib/diagnostics.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import type { DistillBatchResult, MarkDistilledResult } from "../lib/trajectories/distill.ts";
import { renderDistillBatch, renderMarkDistilled } from "../lib/trajectories/render.ts";
import { DistillSkillsParams } from "../lib/trajectories/tool-schemas.ts";
import { type DistillSubagentResult, runDistillSubagent } from "./distill-subagent.ts";
import { renderDistillSubagent } from "./distill-subagent-render.ts";
import { pageHints } from "./page-hints.ts";
import { chooseSubagentModel } from "./subagent-model.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

/** The shared parameters plus Pi's `mode`: an MCP client never sees a mode it cannot use. */
export const PiDistillSkillsParams = Type.Object(
  {
    ...DistillSkillsParams.properties,
    mode: Type.Optional(
      Type.Union([Type.Literal("subagent"), Type.Literal("handoff")], {
        description:
          "subagent (the default): a sub-agent (this session's model, or the one /wiki-model chose) writes skill/case pages from each trajectory and marks it; handoff: return the trajectories for you to write the pages",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Pi's own wording: here the tool writes the pages itself unless asked to hand off. */
const PI_DISTILL_DESCRIPTION =
  "Turn captured trajectories into reusable pages. By default a sub-agent (on this session's model, or the one /wiki-model chose) reads each undistilled trajectory (the oldest batch_size, or the one named) in a context of its own, writes skill and case pages citing it (never overwriting; a taken title is reported), and marks the trajectory distilled when its run finished and a page stands from it; you get the pages created, conflicts and diagnostics, not the trajectories' text. mode: \"handoff\" returns the trajectories with the skill/case page schema for you to write the pages with wiki_ensure_page, then mark each with mark_distilled and pages.";

type Details = DistillBatchResult | MarkDistilledResult | DistillSubagentResult;

function isSubagentResult(result: Details): result is DistillSubagentResult {
  return "mode" in result && result.mode === "subagent";
}

export function createDistillSkillsTool(
  host: WikiHost,
): ToolDefinition<typeof PiDistillSkillsParams, Details> {
  return {
    name: "wiki_distill_skills",
    label: "Wiki distill skills",
    description: PI_DISTILL_DESCRIPTION,
    promptSnippet:
      "Turn recorded trajectories into reusable skill and case pages (a sub-agent writes them, or you do with mode handoff)",
    promptGuidelines: [
      "wiki_distill_skills writes skill and case pages from trajectories itself with a sub-agent and marks them; do not rewrite those pages. Report conflicts and diagnostics it returns.",
      'When wiki_distill_skills returns trajectories instead (mode "handoff", or no model), write skill/case pages with wiki_ensure_page citing [[trajectories/TRJ-…]], then call wiki_distill_skills with mark_distilled and pages.',
    ],
    parameters: PiDistillSkillsParams,
    async execute(_toolCallId, params, signal, onUpdate, ctx) {
      const service = host.service(ctx);
      await host.indexed();
      const marking = params.mark_distilled !== undefined;
      if (params.mode === "subagent" && marking) {
        const refused: MarkDistilledResult = {
          ok: false,
          diagnostics: [
            diagnostic(
              "invalid_input",
              "error",
              'mark_distilled belongs to mode "handoff"; mode "subagent" marks each trajectory itself',
            ),
          ],
        };
        return toolResult<Details>(refused, renderMarkDistilled(refused));
      }
      // Read when the call comes, so a /wiki-model choice applies at once.
      const model = await chooseSubagentModel(ctx);
      const subagent =
        params.mode === "subagent" ||
        (params.mode === undefined && !marking && model.model !== undefined);

      if (subagent) {
        const result = await runDistillSubagent({
          ctx,
          service,
          model,
          ...(params.trajectory !== undefined ? { trajectory: params.trajectory } : {}),
          ...(params.batch_size !== undefined ? { batchSize: params.batch_size } : {}),
          ...(signal ? { signal } : {}),
          onProgress: (text, partial) =>
            onUpdate?.({
              // Progress names trajectories and counts pages: shown in Pi's terminal UI.
              content: [{ type: "text", text: terminalSafe(text) }],
              details: {
                ...partial,
                runs: [...partial.runs],
                created: [...partial.created],
                conflicts: [...partial.conflicts],
                skipped: [...partial.skipped],
              },
            }),
        });
        if (!isSubagentResult(result)) {
          return toolResult<Details>(result, renderDistillBatch(result));
        }
        const [vault] = service.resolveVaults("active");
        if (result.created.length > 0 && vault) {
          // The marked trajectories were indexed by the marking itself; the new pages wait here.
          host.scheduleReindex(
            ctx,
            vault.kind,
            undefined,
            pageHints(result.created.map((p) => p.path)),
          );
        }
        return toolResult<Details>(result, renderDistillSubagent(result));
      }

      if (params.mark_distilled !== undefined) {
        const marked = await service.markDistilled({
          trajectory: params.mark_distilled,
          pages: params.pages ?? [],
        });
        return toolResult<Details>(marked, renderMarkDistilled(marked));
      }
      const batch = service.distillBatch({
        ...(params.trajectory !== undefined ? { trajectory: params.trajectory } : {}),
        ...(params.batch_size !== undefined ? { batchSize: params.batch_size } : {}),
      });
      return toolResult<Details>(batch, renderDistillBatch(batch));
    },
  };
}
