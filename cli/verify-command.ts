/**
 * `llm-wiki verify <page-id> [--date YYYY-MM-DD]`: sets the page's
 * `verified:` date (`wiki_verify_page`); exit 1 with the reason when the
 * page is missing or cannot be changed safely.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderVerifyPage } from "../extensions/llm-wiki/lib/render-text.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import type { VerifyPageResult } from "../extensions/llm-wiki/lib/writing/verify-page.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `verify` beyond the common ones. */
export const VERIFY_OPTIONS: Record<string, OptionSpec> = { date: { type: "string" } };

/** Usage line(s) for the CLI's help text. */
export const VERIFY_USAGE = `  verify <page-id> [--date YYYY-MM-DD]     mark a page checked against the code (its verified: date)
`;

/** Runs `verify`. */
export async function verifyCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{ ok: boolean; result: VerifyPageResult; text: string; diagnostics: Diagnostic[] }> {
  if (positionals.length !== 1) throw new UsageError("verify takes one page id");
  const date = values.date;
  if (date !== undefined && typeof date !== "string") throw new UsageError("--date needs a day");
  const result = await service.verifyPage({
    page: positionals[0] ?? "",
    ...(date !== undefined ? { date } : {}),
  });
  return { ok: result.ok, result, text: renderVerifyPage(result), diagnostics: result.diagnostics };
}
