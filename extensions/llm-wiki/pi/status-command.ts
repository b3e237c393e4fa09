/** `/wiki-status`: the vault's status as a notice, without involving the agent. */
import type { RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderDiagnostics, renderStatus } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import type { CommandOutput } from "./command-output.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createStatusCommand(
  host: WikiHost,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description: "Show the llm-wiki vault's pages, link health and index state",
    async handler(_args, ctx) {
      const result = host.service(ctx).status();
      const problems = result.diagnostics.filter((d) => d.severity !== "info");
      const text = [renderStatus(result), renderDiagnostics(problems)]
        .filter((t) => t !== "")
        .join("\n");
      output.show(ctx, terminalSafe(`llm-wiki:\n${text}`), result.ok ? "info" : "warning");
    },
  };
}
