/**
 * `/wiki-init [topic]`: the person's way to create the project's vault (the
 * agent's is `wiki_bootstrap`). Indexes the new vault in the background.
 */
import type { RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderBootstrap, renderDiagnostics } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import type { CommandOutput } from "./command-output.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createInitCommand(
  host: WikiHost,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description: "Create an llm-wiki vault in this project (optional: its topic)",
    async handler(args, ctx) {
      const topic = args.trim();
      const result = host.service(ctx).bootstrap(topic ? { topic } : {});
      host.scheduleReindex(ctx, result.vault.kind, 0);
      const text = result.ok ? renderBootstrap(result) : renderDiagnostics(result.diagnostics);
      output.show(ctx, terminalSafe(`llm-wiki: ${text}`), result.ok ? "info" : "warning");
    },
  };
}
