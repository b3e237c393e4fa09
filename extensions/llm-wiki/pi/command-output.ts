/**
 * How a command's text reaches the user in every mode. Pi's `ctx.ui.notify`
 * shows a notice in the terminal UI and sends an `extension_ui_request`
 * (`method: "notify"`) to an RPC client, but does nothing in print and JSON
 * mode (`ctx.hasUI` false). There Pi keeps standard output for the answer or
 * the event stream (an extension's own writes to it are moved to standard
 * error) and writes its diagnostics to standard error, so a command's text
 * goes there too; in JSON mode it is also a custom message
 * (`customType: "llm-wiki-output"`), which the event stream carries as
 * `message_start`/`message_end`. That message is kept out of what the model
 * sees (`withoutCommandOutput`), as a notice is in the other modes. A screen
 * (`ctx.ui.custom`) is drawn only in the terminal UI: RPC has no component
 * to draw and returns at once.
 */
import type {
  ContextEvent,
  ContextEventResult,
  ExtensionAPI,
  ExtensionContext,
} from "@earendil-works/pi-coding-agent";

type Level = "info" | "warning" | "error";

/** The custom message type of a command's text in JSON mode. */
export const COMMAND_OUTPUT_TYPE = "llm-wiki-output";

/** What a command's text needs of its context. */
export type OutputContext = Pick<ExtensionContext, "hasUI" | "mode" | "ui">;

/** The one way the extension's commands show text to the person, in every mode. */
export interface CommandOutput {
  show(ctx: OutputContext, text: string, level?: Level): void;
}

/** Whether this mode can draw a command's own screen. */
export function canDrawScreen(ctx: Pick<ExtensionContext, "hasUI" | "mode">): boolean {
  return ctx.hasUI && ctx.mode !== "rpc";
}

/**
 * The output of a session's commands; `send` is Pi's `sendMessage`, used in
 * JSON mode (without it, JSON mode gets standard error only).
 */
export function createCommandOutput(send?: ExtensionAPI["sendMessage"]): CommandOutput {
  return {
    show(ctx, text, level = "info") {
      ctx.ui.notify(text, level);
      if (ctx.hasUI) return;
      process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
      if (ctx.mode === "json" && send) {
        send({ customType: COMMAND_OUTPUT_TYPE, content: text, display: true, details: { level } });
      }
    },
  };
}

/** The `context` hook: the model never sees a command's text, in JSON mode as in the others. */
export function withoutCommandOutput(event: ContextEvent): ContextEventResult | undefined {
  const kept = event.messages.filter(
    (m) => !(m.role === "custom" && m.customType === COMMAND_OUTPUT_TYPE),
  );
  return kept.length === event.messages.length ? undefined : { messages: kept };
}
