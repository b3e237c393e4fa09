/**
 * `llm-wiki skills [list]` and `llm-wiki skills recall <task>`: the skill
 * and case pages of the working memory (with how many trajectories wait to
 * be distilled), or those matching a task through the same recall as
 * `wiki_recall_skill`. Refused while the `trajectories` setting is off
 * (`trajectories_off`), as the MCP server then offers no such tool.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { saveCliShown } from "../extensions/llm-wiki/lib/feedback/saved-shown.ts";
import {
  EXPLICIT_DEFAULT_RESULTS,
  EXPLICIT_MAX_RESULTS,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { renderSkillList } from "../extensions/llm-wiki/lib/trajectories/list-skills.ts";
import { SKILL_KINDS } from "../extensions/llm-wiki/lib/trajectories/recall-skills.ts";
import { renderRecallSkills } from "../extensions/llm-wiki/lib/trajectories/render.ts";
import { vaultExists } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { intOption, modeOption, type OptionSpec, type Parsed, UsageError } from "./args.ts";
import { trajectoriesOff } from "./trajectory-command.ts";

/** Options of `skills` beyond the common ones. */
export const SKILLS_OPTIONS: Record<string, OptionSpec> = {
  kind: { type: "string" },
  max: { type: "string" },
  mode: { type: "string" },
};

/** Usage lines for the CLI's help text. */
export const SKILLS_USAGE = `  skills [list]                            the skill and case pages (and trajectories to distill)
  skills recall <task> [--kind skill|case|any] [--max N] [--mode M]
                                           have I done this before? skill and case pages for a task
`;

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
}

function kindOption(value: string | boolean | undefined) {
  if (value === undefined) return undefined;
  const kind = SKILL_KINDS.find((k) => k === value);
  if (kind === undefined) throw new UsageError(`--kind takes one of ${SKILL_KINDS.join(", ")}`);
  return kind;
}

/** Runs `skills`. */
export async function skillsCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<Outcome> {
  const [sub = "list", ...words] = positionals;
  if (sub !== "list" && sub !== "recall")
    throw new UsageError(`skills: unknown sub-command "${sub}" (list, recall)`);
  if (sub === "list" && words.length > 0) throw new UsageError("skills list takes no arguments");
  const query = words.join(" ");
  if (sub === "recall" && query.trim() === "") throw new UsageError("skills recall needs a task");
  const kind = kindOption(values.kind);
  const max = intOption(values.max, "max", EXPLICIT_DEFAULT_RESULTS);
  if (max > EXPLICIT_MAX_RESULTS) throw new UsageError(`--max is at most ${EXPLICIT_MAX_RESULTS}`);
  const mode = modeOption(values.mode);
  if (!service.settings.trajectories) return trajectoriesOff();

  if (sub === "list") {
    const listed = service.listSkills();
    return {
      ok: listed.ok,
      result: listed,
      text: renderSkillList(listed),
      diagnostics: listed.diagnostics,
    };
  }
  // A one-shot command has no background indexer: bring the index up to date first.
  const index = service.status().vault?.index;
  if (index && index.state !== "ready") await service.reindex({ scope: "changed" });
  const result = await service.recallSkills({
    query,
    maxResults: max,
    ...(kind ? { kind } : {}),
    ...(mode ? { mode } : {}),
  });
  // What was shown, for `llm-wiki feedback`, as `recall` keeps it.
  const [vault] = service.resolveVaults("active");
  if (result.ok && vault && vaultExists(vault)) {
    try {
      saveCliShown(vault, result, service.handles.models.embed.uri);
    } catch {
      // Only `feedback` misses it.
    }
  }
  return {
    ok: result.ok,
    result,
    text: renderRecallSkills(result),
    diagnostics: result.diagnostics,
  };
}
