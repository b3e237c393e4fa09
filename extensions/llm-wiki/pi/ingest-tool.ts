/**
 * `wiki_ingest` in Pi: the session's own model (or the one `/wiki-model`
 * chose) turns a skeleton source into pages in a sub-agent pass
 * (`ingest-subagent.ts`) whose context the main session never sees; only the result comes back. Without a model, with the
 * pass turned off in the settings, or when asked (`mode: "handoff"`, `part`,
 * `mark_ingested`), it hands the agent the text part by part with the page
 * schema, exactly as the MCP server does. Pages written and a source marked
 * are indexed in the background.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { diagnostic } from "../lib/diagnostics.ts";
import { withMappingNotes } from "../lib/legacy-arguments.ts";
import { renderIngest } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import { IngestParams, type IngestParamsT } from "../lib/tool-schemas.ts";
import type { WikiService } from "../lib/wiki-service.ts";
import type { IngestResult } from "../lib/writing/ingest.ts";
import { type IngestSubagentResult, runIngestSubagent } from "./ingest-subagent.ts";
import { renderIngestSubagent } from "./ingest-subagent-render.ts";
import { pageHints } from "./page-hints.ts";
import { chooseSubagentModel, resolveSubagentModel } from "./subagent-model.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

/** Pi's own wording: here the tool writes the pages itself unless asked to hand off. */
const PI_INGEST_DESCRIPTION =
  "Ingest a captured source into the llm-wiki. By default a sub-agent (on this session's model, or the one /wiki-model chose) reads every part of a skeleton source (the oldest waiting, or the one named) in a context of its own, writes pages citing the source (never overwriting; a taken title is reported), and marks the source ingested when every part succeeded and a page was written; you get the pages created, conflicts and diagnostics, not the source's text. mode: \"handoff\" (or part, or mark_ingested) returns the text in numbered parts of about 12,000 characters with the page schema for you to write the pages with wiki_ensure_page, then mark the source with mark_ingested: true.";

type Details = IngestResult | IngestSubagentResult;

function isSubagentResult(result: Details): result is IngestSubagentResult {
  return "mode" in result && result.mode === "subagent";
}

/**
 * Why the sub-agent pass cannot run for this call, or undefined when it may
 * (the pass itself answers when the session has no model).
 */
function refusal(params: IngestParamsT, service: WikiService): IngestResult | undefined {
  if (params.part !== undefined || params.mark_ingested !== undefined) {
    return {
      ok: false,
      pending: [],
      diagnostics: [
        diagnostic(
          "invalid_input",
          "error",
          'mode: part and mark_ingested belong to mode "handoff"; mode "subagent" reads every part and marks the source itself',
        ),
      ],
    };
  }
  if (!service.settings.ingestSubagent) {
    return {
      ok: false,
      pending: [],
      diagnostics: [
        diagnostic(
          "ingest_subagent_off",
          "error",
          'the sub-agent pass is turned off in the settings ("ingestSubagent": false)',
          {
            repair: 'wiki_ingest {"mode": "handoff"}: returns the text for you to write the pages',
          },
        ),
      ],
    };
  }
  return undefined;
}

/** Whether this call runs the sub-agent pass: asked for, or the default where a model is at hand. */
function wantsSubagent(params: IngestParamsT, hasModel: boolean, service: WikiService): boolean {
  if (params.mode !== undefined) return params.mode === "subagent";
  const handoffStep = params.part !== undefined || params.mark_ingested !== undefined;
  return !handoffStep && hasModel && service.settings.ingestSubagent;
}

export function createIngestTool(host: WikiHost): ToolDefinition<typeof IngestParams, Details> {
  return {
    name: "wiki_ingest",
    label: "Wiki ingest",
    description: PI_INGEST_DESCRIPTION,
    promptSnippet:
      "Turn a captured source into wiki pages (a sub-agent writes them, or you do with mode handoff)",
    promptGuidelines: [
      "wiki_ingest writes the pages of a captured source itself with a sub-agent and reports what it created; do not rewrite those pages. Report conflicts and diagnostics it returns; call it again while sources are waiting.",
      'When wiki_ingest returns a source\'s text instead (mode "handoff", or no sub-agent), write the knowledge it holds as pages: create each with wiki_ensure_page and cite the source id; read every part before marking the source with wiki_ingest mark_ingested: true.',
    ],
    parameters: IngestParams,
    async execute(_toolCallId, params, signal, onUpdate, ctx) {
      const service = host.service(ctx);
      const [vault] = service.resolveVaults("active");
      // Read when the call comes, so a /wiki-model choice applies at once; `model` overrides it for this call.
      const model =
        params.model !== undefined
          ? await resolveSubagentModel(ctx, params.model, "the model argument")
          : await chooseSubagentModel(ctx);
      const hasModel = model.model !== undefined;

      if (wantsSubagent(params, hasModel, service)) {
        const refused = refusal(params, service);
        if (refused) return toolResult<Details>(refused, renderIngest(refused));
        const result = await runIngestSubagent({
          ctx,
          service,
          model,
          ...(params.source !== undefined ? { source: params.source } : {}),
          ...(signal ? { signal } : {}),
          onProgress: (text, partial) =>
            onUpdate?.({
              // Progress names pages the sub-agent wrote: shown in Pi's terminal UI.
              content: [{ type: "text", text: terminalSafe(text) }],
              details: {
                ...partial,
                parts: [...partial.parts],
                created: [...partial.created],
                conflicts: [...partial.conflicts],
              },
            }),
        });
        if (!isSubagentResult(result)) return toolResult<Details>(result, renderIngest(result));
        if ((result.created.length > 0 || result.marked?.changed) && vault) {
          const written = [
            ...result.created.map((page) => page.path),
            ...(result.marked?.changed ? [result.marked.path] : []),
          ];
          host.scheduleReindex(ctx, vault.kind, undefined, pageHints(written));
        }
        return toolResult<Details>(result, renderIngestSubagent(result));
      }

      const result = service.ingest({
        ...(params.source !== undefined ? { source: params.source } : {}),
        ...(params.part !== undefined ? { part: params.part } : {}),
        ...(params.mark_ingested !== undefined ? { markIngested: params.mark_ingested } : {}),
      });
      if (result.ok && result.marked?.changed && vault) {
        host.scheduleReindex(ctx, vault.kind, undefined, pageHints([result.marked.path]));
      }
      // A model named for a sub-agent that did not run is said to be unused, never dropped silently.
      const unused =
        params.model === undefined
          ? []
          : ["model: the text was handed to you (no sub-agent ran), so no model was used"];
      return toolResult<Details>(result, withMappingNotes(renderIngest(result), unused));
    },
  };
}
