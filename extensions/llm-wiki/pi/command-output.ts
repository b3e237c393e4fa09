/**
 * How a command's text reaches the user in every mode. Pi's `ctx.ui.notify`
 * shows a notice in the terminal UI and sends an `extension_ui_request`
 * (`method: "notify"`) to an RPC client, but does nothing in print and JSON
 * mode (`ctx.hasUI` false). There Pi keeps standard output for the answer or
 * the event stream and writes its own diagnostics to standard error, so a
 * command's text goes there too. A screen (`ctx.ui.custom`) is drawn only in
 * the terminal UI: RPC has no component to draw and returns at once.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

type Level = "info" | "warning" | "error";

/** Whether this mode can draw a command's own screen. */
export function canDrawScreen(ctx: Pick<ExtensionContext, "hasUI" | "mode">): boolean {
  return ctx.hasUI && ctx.mode !== "rpc";
}

/** Shows `text` as a notice and, where notices go nowhere (print, JSON), on standard error. */
export function showText(
  ctx: Pick<ExtensionContext, "hasUI" | "ui">,
  text: string,
  level: Level = "info",
): void {
  ctx.ui.notify(text, level);
  if (!ctx.hasUI) process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}
