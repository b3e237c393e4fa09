/**
 * `wiki_digest` (Pi): the digest `/wiki-digest` writes, as a tool, so the
 * agent can end a maintenance cycle (`/wiki-run`) with it. The service
 * writes a new file under `.llm-wiki/outputs/` (never over one) and logs it.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { DIGEST_PERIODS, type DigestResult, renderDigest } from "../lib/digest/digest.ts";
import { literalUnion } from "../lib/settings.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export const DigestParams = Type.Object(
  {
    period: Type.Optional(
      literalUnion(DIGEST_PERIODS, { description: "daily (the default) or weekly" }),
    ),
  },
  { additionalProperties: false },
);

const DESCRIPTION =
  "Write a digest of what changed in the llm-wiki over the last day or week (sources captured and ingested, pages created and updated, lint counts against the previous digest) to a new file .llm-wiki/outputs/digest-YYYY-MM-DD.md, never over an existing one; returns its summary and path.";

export function createDigestTool(
  host: WikiHost,
): ToolDefinition<typeof DigestParams, DigestResult> {
  return {
    name: "wiki_digest",
    label: "Wiki digest",
    description: DESCRIPTION,
    promptSnippet: "Write a daily or weekly digest of the llm-wiki's changes to .llm-wiki/outputs/",
    parameters: DigestParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = host.service(ctx).digest(params.period ? { period: params.period } : {});
      return toolResult(result, renderDigest(result));
    },
  };
}
