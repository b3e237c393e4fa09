/**
 * `wiki_lint`: the vault's health — malformed pages, orphans, broken links,
 * duplicates, stale pages, contradictions, knowledge gaps, index state.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { LintResult } from "../lib/lint/types.ts";
import { renderLint } from "../lib/render-text.ts";
import { LintParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { pageHints } from "./page-hints.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createLintTool(host: WikiHost): ToolDefinition<typeof LintParams, LintResult> {
  return {
    name: "wiki_lint",
    label: "Wiki lint",
    description: TOOL_DESCRIPTIONS.wiki_lint,
    promptSnippet: "Check the llm-wiki for broken links, duplicates, stale pages and gaps",
    promptGuidelines: [
      "Run wiki_lint after larger wiki edits; fix: true only creates stub pages for knowledge gaps.",
    ],
    parameters: LintParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      // Sliced, so the agent stays responsive; an aborted turn stops the lint.
      const result = await service.lint({ ...params, ...(signal ? { signal } : {}) });
      // Only the stubs `fix` created changed anything; each vault indexes its own.
      for (const vault of result.vaults) {
        if (vault.fixed.length === 0) continue;
        host.scheduleReindex(
          ctx,
          vault.kind,
          undefined,
          pageHints(vault.fixed.map((fix) => fix.path)),
        );
      }
      return toolResult(result, renderLint(result));
    },
  };
}
