/**
 * `llm-wiki lint [--fix] [--which active|project|personal|all]`: checks the
 * vault; exits 1 when any finding is an error, so CI can gate on it.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import type { LintResult } from "../extensions/llm-wiki/lib/lint/types.ts";
import { renderLint } from "../extensions/llm-wiki/lib/render-text.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, selectorOption, UsageError } from "./args.ts";

/** Options of `lint` beyond the common ones. */
export const LINT_OPTIONS: Record<string, OptionSpec> = {
  fix: { type: "boolean" },
  which: { type: "string" },
};

/** Usage line(s) for the CLI's help text. */
export const LINT_USAGE = `  lint [--fix] [--which W]                 check pages, links, duplicates, staleness, index;
                                           --fix creates stubs for knowledge gaps only
`;

/** Runs `lint` and shapes the outcome the CLI prints (the result itself is the JSON output). */
export async function lintCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{ ok: boolean; result: LintResult; text: string; diagnostics: Diagnostic[] }> {
  if (positionals.length > 0) throw new UsageError("lint takes no arguments");
  const result = await service.lint({
    vault: selectorOption(values.which),
    fix: values.fix === true,
  });
  return { ok: result.ok, result, text: renderLint(result), diagnostics: result.diagnostics };
}
