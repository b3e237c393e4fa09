/**
 * Implicit recall feedback in Pi: what automatic recall, priming and
 * `wiki_recall` delivered is `shown`; a shown page's file read with Pi's
 * `read` tool is `opened`; a shown page the turn's answer names is `cited`;
 * the rest, when the run ends, `shown_only`. The session's recorder (see
 * `WikiHost.feedback`) writes only while the `recallFeedback` setting is on
 * and never keeps the query's text. Capture is a by-product of the turn: a
 * failure is reported on the status line and costs the turn nothing.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import {
  type AgentEndEvent,
  type ExtensionContext,
  isReadToolResult,
  type ToolResultEvent,
} from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";
import type { RecallResult } from "../lib/recall-operation.ts";
import type { VaultKind, VaultPaths } from "../lib/vault/paths.ts";
import { toolPath } from "./freshness.ts";
import type { WikiHost } from "./wiki-host.ts";

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The page whose file `file` (absolute) is: a `.md` file under a vault's
 * `wiki/` folder, symlinks resolved on both sides; its id is the path below
 * `wiki/` without `.md`.
 */
export function pageOfFile(
  file: string,
  vaults: readonly VaultPaths[],
): { vault: VaultKind; id: string } | undefined {
  if (!file.endsWith(".md")) return undefined;
  const files = [file, realOrSelf(file)];
  for (const vault of vaults) {
    for (const dir of [vault.wiki, realOrSelf(vault.wiki)]) {
      for (const f of files) {
        const rel = relative(dir, f);
        if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
        return { vault: vault.kind, id: rel.split(sep).join("/").slice(0, -".md".length) };
      }
    }
  }
  return undefined;
}

/** Reports a capture failure; the turn goes on without it. */
function captureFailed(host: WikiHost, error: unknown): void {
  host.setStatus(`wiki: recall feedback not recorded (${errorMessage(error)})`);
}

/**
 * Records the pages of a recall the model was just handed as `shown`. Call
 * only after delivery: a block the model never received showed nothing.
 */
export function recordShown(
  host: WikiHost,
  ctx: ExtensionContext,
  result: Pick<RecallResult, "query" | "results" | "modeUsed">,
): void {
  if (result.results.length === 0) return;
  try {
    const service = host.service(ctx);
    host.feedback(ctx).recordShown(result, service.handles.models.embed.uri);
  } catch (error) {
    captureFailed(host, error);
  }
}

/** The text the assistant wrote in a run (its tool calls and thinking are not an answer). */
export function assistantText(messages: AgentEndEvent["messages"]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (!("role" in message) || message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "text") parts.push(part.text);
  }
  return parts.join("\n");
}

/** `tool_result` and `agent_end` handlers that capture `opened`, `cited` and `shown_only`. */
export function createFeedbackCapture(host: WikiHost) {
  return {
    onToolResult(event: ToolResultEvent, ctx: ExtensionContext): undefined {
      if (event.isError || !isReadToolResult(event)) return undefined;
      const path = event.input.path;
      if (typeof path !== "string") return undefined;
      try {
        const feedback = host.feedback(ctx);
        // Nothing shown yet: no read can open a shown page, so paths are not even resolved.
        if (feedback.shown().length === 0) return undefined;
        const page = pageOfFile(toolPath(path, ctx.cwd), host.service(ctx).resolveVaults("all"));
        if (page) feedback.recordOpened(page.vault, page.id);
      } catch (error) {
        captureFailed(host, error);
      }
      return undefined;
    },
    onAgentEnd(event: AgentEndEvent, ctx: ExtensionContext): void {
      try {
        const feedback = host.feedback(ctx);
        feedback.recordAnswer(assistantText(event.messages));
        feedback.endTurn();
      } catch (error) {
        captureFailed(host, error);
      }
    },
  };
}
