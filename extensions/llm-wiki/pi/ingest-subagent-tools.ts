/**
 * The ingest sub-agent's only tools, bound to the service: creating a page
 * (the service's ensure-page operation, which never overwrites) and an exact
 * lookup of existing pages so the sub-agent links instead of duplicating.
 * Every page written cites the source whatever the model wrote, and each
 * outcome is recorded for the tool's result.
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { EnsurePageParams } from "../lib/tool-schemas.ts";
import type { EnsurePageOpResult, WikiService } from "../lib/wiki-service.ts";
import type { SourceRef } from "../lib/writing/ingest-sources.ts";
import { SEARCH_TOOL, WRITE_TOOL } from "./ingest-subagent-prompt.ts";
import { createLookupTool, writePassPage } from "./subagent-pass-tools.ts";

/** A page the pass created, or found taken (a conflict), and the part that asked for it. */
export interface IngestedPage {
  id: string;
  /** Vault-relative path (`wiki/concepts/rag.md`). */
  path: string;
  title: string;
  part: number;
}

/** What the sub-agent's writes did over the whole pass, in order. */
export interface PassLedger {
  created: IngestedPage[];
  conflicts: IngestedPage[];
}

/** Writes of one part: counted against its limit, refused past it. */
export interface PartWrites {
  attempted: number;
  refused: number;
}

export interface PartToolsOptions {
  service: WikiService;
  source: SourceRef;
  part: number;
  maxWrites: number;
  ledger: PassLedger;
  /** Called after every page created, for progress reports. */
  onCreated?: () => void;
}

/** The body with a link to the source page, added when the model left it out. */
function citedContent(content: string | undefined, source: SourceRef): string | undefined {
  if (!source.page) return content;
  const body = content ?? "";
  if (body.includes(`[[${source.page}]]`) || body.includes(`[[${source.page}|`)) return body;
  const link = `Source: [[${source.page}]]`;
  return body.trim() === "" ? `${link}\n` : `${body.trimEnd()}\n\n${link}\n`;
}

/** The tools of one part's run, and the count of its writes. */
export function partTools(options: PartToolsOptions): {
  tools: AgentTool[];
  writes: PartWrites;
} {
  const { service, source, part, ledger } = options;
  const writes: PartWrites = { attempted: 0, refused: 0 };
  const cite = source.sourceId ?? source.page;

  const write: AgentTool<typeof EnsurePageParams, EnsurePageOpResult | undefined> = {
    name: WRITE_TOOL,
    label: "Wiki ensure page",
    description:
      "Create a wiki page from this source: type, title, content (Markdown), description, tags, aliases, relations ({type, target}: supersedes, contradicts, supports, derived_from, …). Never overwrites: a page with the same title is reported, not replaced. The source is cited for you.",
    parameters: EnsurePageParams,
    // One write after another: pages land in the order the model asked for them.
    executionMode: "sequential",
    async execute(_id, params) {
      const content = citedContent(params.content, source);
      return writePassPage({
        service,
        writes,
        maxWrites: options.maxWrites,
        limitMessage: `refused: this part already wrote ${options.maxWrites} page(s), its limit; finish with your note`,
        input: {
          ...params,
          ...(content !== undefined ? { content } : {}),
          // The source is cited first, sources the model names follow. Cited alone it goes in
          // as a plain field: on a page that exists, only what the model asked for is added.
          ...(cite && params.sources?.length ? { sources: [cite, ...params.sources] } : {}),
          ...(cite && !params.sources?.length ? { extra: { sources: [cite] } } : {}),
        },
        ledger,
        entry: (id, path) => ({ id, path, title: params.title, part }),
        ...(options.onCreated ? { onCreated: options.onCreated } : {}),
      });
    },
  };

  const lookup = createLookupTool(service, SEARCH_TOOL);

  return { tools: [write, lookup], writes };
}
