/**
 * `/wiki-digest [--period daily|weekly]`: writes the digest of the period to
 * `.llm-wiki/outputs/` and shows its summary (a notice, or the text where
 * there is no UI: `command-output.ts`), without involving the agent.
 */
import type { RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { DIGEST_PERIODS, type DigestPeriod, renderDigest } from "../lib/digest/digest.ts";
import { renderDiagnostics } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import type { CommandOutput } from "./command-output.ts";
import type { WikiHost } from "./wiki-host.ts";

const USAGE = "usage: /wiki-digest [--period daily|weekly]";

/** The period the arguments name; undefined for the default, null for a usage error. */
function parsePeriod(args: string): DigestPeriod | undefined | null {
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const value =
    words.length === 2 && words[0] === "--period"
      ? words[1]
      : words.length === 1
        ? (words[0]?.replace(/^--period=/, "") ?? "")
        : undefined;
  return DIGEST_PERIODS.find((p) => p === value) ?? null;
}

export function createDigestCommand(
  host: WikiHost,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description: "Write a daily or weekly digest of wiki changes to .llm-wiki/outputs/",
    async handler(args, ctx) {
      const period = parsePeriod(args);
      if (period === null) {
        output.show(ctx, USAGE, "warning");
        return;
      }
      const result = host.service(ctx).digest(period ? { period } : {});
      const text = [renderDigest(result), renderDiagnostics(result.diagnostics)]
        .filter((t) => t !== "")
        .join("\n");
      output.show(ctx, terminalSafe(`llm-wiki:\n${text}`), result.ok ? "info" : "warning");
    },
  };
}
