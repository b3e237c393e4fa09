/**
 * `llm-wiki resolve-conflict --selected ID --other ID --relation R [--scope S]
 * [--rationale R|-] [--replaces ID]`: records the user's resolution of a
 * conflict between two pages, the same service operation as the Pi and MCP
 * tool `wiki_resolve_conflict`. Exit 0 also when the same decision was
 * already recorded (nothing written).
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderResolveConflict } from "../extensions/llm-wiki/lib/render-text.ts";
import {
  RESOLUTION_RELATIONS,
  type ResolutionRelation,
} from "../extensions/llm-wiki/lib/vault/relations.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import type { ResolveConflictResult } from "../extensions/llm-wiki/lib/writing/record-resolution.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `resolve-conflict` beyond the common ones. */
export const RESOLVE_CONFLICT_OPTIONS: Record<string, OptionSpec> = {
  selected: { type: "string" },
  other: { type: "string" },
  relation: { type: "string" },
  scope: { type: "string" },
  rationale: { type: "string" },
  replaces: { type: "string" },
};

/** Usage line(s) for the CLI's help text. */
export const RESOLVE_CONFLICT_USAGE = `  resolve-conflict --selected ID --other ID --relation supersedes|qualifies|applies_under
          [--scope S] [--rationale R|-] [--replaces ID]
                                           record the user's choice between two conflicting pages
                                           (a new page under wiki/analyses/; the claims are not edited)
`;

function stringOption(values: Parsed["values"], name: string, required: true): string;
function stringOption(values: Parsed["values"], name: string): string | undefined;
function stringOption(values: Parsed["values"], name: string, required = false) {
  const value = values[name];
  if (value === undefined || value === false) {
    if (required) throw new UsageError(`resolve-conflict: --${name} is required`);
    return undefined;
  }
  if (value === true) throw new UsageError(`resolve-conflict: --${name} takes a value`);
  return value;
}

function relationOption(value: string): ResolutionRelation {
  if (!(RESOLUTION_RELATIONS as readonly string[]).includes(value)) {
    throw new UsageError(
      `resolve-conflict: --relation must be one of ${RESOLUTION_RELATIONS.join(", ")}`,
    );
  }
  return value as ResolutionRelation;
}

/** Runs `resolve-conflict` and shapes the outcome the CLI prints (the result itself is the JSON output). */
export async function resolveConflictCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{
  ok: boolean;
  result: ResolveConflictResult;
  text: string;
  diagnostics: Diagnostic[];
}> {
  if (positionals.length > 0) {
    throw new UsageError(
      "resolve-conflict takes --selected, --other and --relation, not arguments",
    );
  }
  const scope = stringOption(values, "scope");
  // `--rationale -` was replaced by standard input before this ran (see resolveStdinValues).
  const rationale = stringOption(values, "rationale");
  const replaces = stringOption(values, "replaces");
  const result = await service.resolveConflict({
    selected_page_id: stringOption(values, "selected", true),
    other_page_id: stringOption(values, "other", true),
    relation: relationOption(stringOption(values, "relation", true)),
    ...(scope !== undefined ? { scope } : {}),
    ...(rationale !== undefined ? { rationale } : {}),
    ...(replaces !== undefined ? { replaces } : {}),
  });
  return {
    ok: result.ok,
    result,
    text: renderResolveConflict(result),
    diagnostics: result.diagnostics,
  };
}
