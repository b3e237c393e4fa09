/** `/wiki-dashboard`: the vault's status and overview on one read-only screen. */
import type { RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { type CommandOutput, canDrawScreen } from "./command-output.ts";
import { DashboardScreen, dashboardText } from "./dashboard-screen.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createDashboardCommand(
  host: WikiHost,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description:
      "Read-only llm-wiki dashboard: pages by type, freshness, 7-day activity, ingest queue, orphans, embedding coverage, index",
    async handler(_args, ctx) {
      const result = host.service(ctx).status({ code: true });
      // Print mode or RPC: no screen to draw on, the same text printed.
      if (!canDrawScreen(ctx)) {
        output.show(ctx, dashboardText(result), result.ok ? "info" : "warning");
        return;
      }
      await ctx.ui.custom<void>((_tui, _theme, _keybindings, done) => {
        return new DashboardScreen(result, () => done(undefined));
      });
    },
  };
}
