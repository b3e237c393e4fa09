/**
 * What every sub-agent pass (ingest, distill) gives its model besides its
 * own write tool: a lookup of existing pages in the active vault, so it
 * links instead of writing a page again; and the tool-result shape both
 * passes' tools answer with.
 */
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";
import { renderDiagnostics, renderSearch } from "../lib/render-text.ts";
import type { SearchResult, WikiService } from "../lib/wiki-service.ts";

const LookupParams = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 300,
      description: "A page id, title, alias or tag",
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
  },
  { additionalProperties: false },
);

/** A sub-agent tool's answer: the text its model reads, the structured details, and whether it failed. */
export function textResult<T>(text: string, details: T, isError = false): AgentToolResult<T> {
  return { content: [{ type: "text", text }], details, ...(isError ? { isError: true } : {}) };
}

/** The lookup tool named `name` over the service's exact page search. */
export function createLookupTool(
  service: WikiService,
  name: string,
): AgentTool<typeof LookupParams, SearchResult> {
  return {
    name,
    label: "Wiki search",
    description:
      "Look up existing wiki pages by id, title, alias or tag (exact matches first, then partial ones).",
    parameters: LookupParams,
    async execute(_id, params) {
      // The active vault only: pages are written there, and a link resolves within its vault.
      const result = service.search({
        query: params.query,
        limit: params.limit ?? 10,
        vault: "active",
      });
      return result.ok
        ? textResult(renderSearch(result), result)
        : textResult(renderDiagnostics(result.diagnostics), result, true);
    },
  };
}
