/**
 * The distill sub-agent's only tools, bound to the service: creating a skill
 * or case page (the service's ensure-page operation, which never overwrites
 * and redacts secrets) and an exact lookup of existing pages so the
 * sub-agent links instead of duplicating. Every page written cites the
 * trajectory, in its sources and as a body link, whatever the model wrote;
 * each outcome is recorded for the tool's result.
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";
import { literalUnion } from "../lib/settings.ts";
import { EnsurePageParams } from "../lib/tool-schemas.ts";
import { DISTILLED_TYPES } from "../lib/trajectories/distill.ts";
import type { EnsurePageOpResult, WikiService } from "../lib/wiki-service.ts";
import { DISTILL_SEARCH_TOOL, DISTILL_WRITE_TOOL } from "./distill-subagent-prompt.ts";
import { createLookupTool, writePassPage } from "./subagent-pass-tools.ts";

/** A page the pass created, or found taken (a conflict), and the trajectory it was written from. */
export interface DistilledPage {
  id: string;
  /** Vault-relative path (`wiki/skills/deploy.md`). */
  path: string;
  title: string;
  /** Trajectory id (`trajectories/TRJ-…`). */
  trajectory: string;
}

/** What the sub-agent's writes did over the whole pass, in order. */
export interface DistillLedger {
  created: DistilledPage[];
  conflicts: DistilledPage[];
}

/** Writes of one run: counted against its limit, refused past it. */
export interface RunWrites {
  attempted: number;
  refused: number;
}

export interface DistillToolsOptions {
  service: WikiService;
  /** The trajectory this run distils. */
  trajectory: string;
  maxWrites: number;
  ledger: DistillLedger;
  /** Called after every page created, for progress reports. */
  onCreated?: () => void;
}

/** The main tool's page parameters with the type narrowed: the model is told it can write nothing else. */
const DistillPageParams = Type.Object(
  {
    ...EnsurePageParams.properties,
    type: literalUnion(DISTILLED_TYPES, {
      description: "skill (a reusable procedure) or case (one concrete past task)",
    }),
  },
  { additionalProperties: false },
);

/** The body with a link to the trajectory, added when the model left it out. */
export function citedBody(content: string | undefined, trajectory: string): string {
  const body = content ?? "";
  if (body.includes(`[[${trajectory}]]`) || body.includes(`[[${trajectory}|`)) return body;
  const link = `Distilled from [[${trajectory}]].`;
  return body.trim() === "" ? `${link}\n` : `${body.trimEnd()}\n\n${link}\n`;
}

/** The tools of one trajectory's run, and the count of its writes. */
export function distillTools(options: DistillToolsOptions): {
  tools: AgentTool[];
  writes: RunWrites;
} {
  const { service, trajectory, ledger } = options;
  const writes: RunWrites = { attempted: 0, refused: 0 };

  const write: AgentTool<typeof DistillPageParams, EnsurePageOpResult | undefined> = {
    name: DISTILL_WRITE_TOOL,
    label: "Wiki ensure page",
    description:
      "Create a skill or case page from this trajectory: type, title, content (Markdown), description, tags, aliases. Never overwrites: a page with the same title is reported, not replaced. The trajectory is cited for you.",
    parameters: DistillPageParams,
    // One write after another: pages land in the order the model asked for them.
    executionMode: "sequential",
    async execute(_id, params) {
      return writePassPage({
        service,
        writes,
        maxWrites: options.maxWrites,
        limitMessage: `refused: this trajectory already has ${options.maxWrites} page(s), its limit; finish with your note`,
        input: {
          ...params,
          content: citedBody(params.content, trajectory),
          // Cited alone, the trajectory goes in as a plain field: a page that exists is left
          // as it is unless the model asked to add relations or sources to it.
          ...(params.sources?.length
            ? { sources: [trajectory, ...params.sources] }
            : { extra: { sources: [trajectory] } }),
        },
        ledger,
        entry: (id, path) => ({ id, path, title: params.title, trajectory }),
        ...(options.onCreated ? { onCreated: options.onCreated } : {}),
      });
    },
  };

  const lookup = createLookupTool(service, DISTILL_SEARCH_TOOL);

  return { tools: [write, lookup], writes };
}
