/**
 * `llm-wiki digest [--period daily|weekly]`: writes what changed in the
 * period to `.llm-wiki/outputs/digest-YYYY-MM-DD.md` (a second one the same
 * day gets `-2`, never overwriting) and logs it.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import {
  DIGEST_PERIODS,
  type DigestPeriod,
  type DigestResult,
  renderDigest,
} from "../extensions/llm-wiki/lib/digest/digest.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `digest` beyond the common ones (`--now` makes a run reproducible; undocumented). */
export const DIGEST_OPTIONS: Record<string, OptionSpec> = {
  period: { type: "string" },
  now: { type: "string" },
};

/** Usage line(s) for the CLI's help text. */
export const DIGEST_USAGE = `  digest [--period daily|weekly]           what changed (sources, pages, lint trend), written to
                                           .llm-wiki/outputs/digest-YYYY-MM-DD.md (default weekly)
`;

function periodOption(value: string | boolean | undefined): DigestPeriod | undefined {
  if (value === undefined) return undefined;
  const period = DIGEST_PERIODS.find((p) => p === value);
  if (!period) throw new UsageError(`--period is one of ${DIGEST_PERIODS.join(", ")}`);
  return period;
}

function nowOption(value: string | boolean | undefined): { now?: Date } {
  if (value === undefined) return {};
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError("--now takes an ISO date or timestamp");
  return { now: new Date(ms) };
}

/** Runs `digest` and shapes the outcome the CLI prints. */
export function digestCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): { ok: boolean; result: DigestResult; text: string; diagnostics: Diagnostic[] } {
  if (positionals.length > 0) throw new UsageError("digest takes no arguments");
  const period = periodOption(values.period);
  const result = service.digest({ ...(period ? { period } : {}), ...nowOption(values.now) });
  return { ok: result.ok, result, text: renderDigest(result), diagnostics: result.diagnostics };
}
