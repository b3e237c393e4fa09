/**
 * `llm-wiki capture [--text T | --file F | --url U] [--title T]`: captures a
 * source into an immutable packet with a skeleton source page. `--text -`
 * reads the text from standard input.
 */
import type { CaptureSourceResult } from "../extensions/llm-wiki/lib/capture/capture-source.ts";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderCapture } from "../extensions/llm-wiki/lib/render-text.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `capture` beyond the common ones. */
export const CAPTURE_OPTIONS: Record<string, OptionSpec> = {
  text: { type: "string" },
  file: { type: "string" },
  url: { type: "string" },
  title: { type: "string" },
};

/** Usage line(s) for the CLI's help text. */
export const CAPTURE_USAGE = `  capture --text T | --file F | --url U    store a source (secrets redacted) and a skeleton
          [--title T]                      source page; --text - reads standard input
`;

function stringOption(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Runs `capture` and shapes the outcome the CLI prints (the result itself is the JSON output). */
export async function captureCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{ ok: boolean; result: CaptureSourceResult; text: string; diagnostics: Diagnostic[] }> {
  if (positionals.length > 0) {
    throw new UsageError("capture takes --text, --file or --url, not arguments");
  }
  const text = stringOption(values.text);
  const file = stringOption(values.file);
  const url = stringOption(values.url);
  const title = stringOption(values.title);
  if ([text, file, url].filter((v) => v !== undefined).length !== 1) {
    throw new UsageError("capture needs exactly one of --text, --file or --url");
  }
  const result = await service.captureSource({
    // `--text -` was replaced by standard input before this ran (see resolveStdinValues).
    ...(text !== undefined ? { text } : {}),
    ...(file !== undefined ? { file } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(title !== undefined ? { title } : {}),
  });
  return { ok: result.ok, result, text: renderCapture(result), diagnostics: result.diagnostics };
}
