/**
 * What every sub-agent pass (ingest, distill) shares in its tools: a lookup
 * of existing pages in the active vault, so the model links instead of
 * writing a page again; the bounded page write behind each pass's own write
 * tool; and the tool-result shape both answer with.
 */
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";
import { renderDiagnostics, renderEnsurePage, renderSearch } from "../lib/render-text.ts";
import type { EnsurePageOpResult, SearchResult, WikiService } from "../lib/wiki-service.ts";

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

/** A page a sub-agent pass wrote (or found taken), as its ledger keeps it. */
interface WrittenEntry {
  id: string;
  path: string;
}

/**
 * One page write of a sub-agent pass, within its limit: refused past
 * `maxWrites` (counted), otherwise written through the service (which never
 * overwrites), the page put in the ledger as created or as a conflict (a
 * title taken), and the model told which — a taken title is to be linked,
 * not written again.
 */
export function writePassPage<T extends WrittenEntry>(write: {
  service: WikiService;
  writes: { attempted: number; refused: number };
  maxWrites: number;
  /** What the model reads when the limit refuses the write. */
  limitMessage: string;
  input: Parameters<WikiService["ensurePage"]>[0];
  ledger: { created: T[]; conflicts: T[] };
  entry: (id: string, path: string) => T;
  onCreated?: () => void;
}): AgentToolResult<EnsurePageOpResult | undefined> {
  if (write.writes.attempted >= write.maxWrites) {
    write.writes.refused += 1;
    return textResult(write.limitMessage, undefined, true);
  }
  write.writes.attempted += 1;
  const result = write.service.ensurePage(write.input);
  if (!result.ok || result.id === undefined || result.path === undefined) {
    return textResult(renderDiagnostics(result.diagnostics), result, true);
  }
  const page = write.entry(result.id, result.path);
  if (result.created) {
    write.ledger.created.push(page);
    write.onCreated?.();
    return textResult(renderEnsurePage(result), result);
  }
  write.ledger.conflicts.push(page);
  return textResult(
    `${renderEnsurePage(result)}. Link it as [[${result.id}]] instead of writing it again.`,
    result,
  );
}
