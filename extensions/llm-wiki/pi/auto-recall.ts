/**
 * Automatic recall: before a run started by the user's prompt, recall with
 * the automatic policy (the project vault, or outside any project the personal
 * one; high floor, at most three bundles) and hand the
 * model a hidden message placed right after the prompt. The system prompt is
 * never touched, so it stays byte-identical from turn to turn and provider
 * prompt caches keep working. A failure costs this turn its memory, nothing more.
 */
import type {
  BeforeAgentStartEvent,
  BeforeAgentStartEventResult,
  ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";
import { renderedOnly } from "../lib/feedback/rendered-only.ts";
import { recordShown } from "./recall-feedback-capture.ts";
import { recallMessage } from "./recall-message.ts";
import { recallErrorStatus, recallStatus } from "./status-line.ts";
import type { WikiHost } from "./wiki-host.ts";

/** `customType` of the recall message (persisted in the session, sent to the model as user content). */
const RECALL_MESSAGE_TYPE = "llm-wiki-recall";

/**
 * `shown`: pages (`vault:id`) already in the context this turn (the session's
 * priming message), left out so a page never appears twice.
 */
export function createAutoRecallHandler(host: WikiHost, shown?: () => ReadonlySet<string>) {
  return async (
    event: BeforeAgentStartEvent,
    ctx: ExtensionContext,
  ): Promise<BeforeAgentStartEventResult | undefined> => {
    // Custom-message runs (other extensions' triggers) carry no user question to recall for.
    if (event.messageType !== "user") return undefined;
    try {
      const service = host.service(ctx);
      if (!service.settings.autoRecall) return undefined;
      await host.firstRecallReady();
      const result = await service.recall({
        query: event.prompt,
        policy: "automatic",
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(shown && shown().size > 0 ? { exclude: shown() } : {}),
      });
      // No project vault: recall looked at nothing and says nothing; neither does the host.
      if (result.modeUsed === "none" && result.diagnostics.length === 0) return undefined;
      host.setStatus(recallStatus(result));
      if (result.rendered === "") return undefined;
      // Returned here, the block goes to the model with this run's first request;
      // only the pages it holds were delivered (bundles cut to fit were not).
      const delivered = renderedOnly(result);
      recordShown(host, ctx, delivered);
      return recallMessage(RECALL_MESSAGE_TYPE, delivered, {
        modeUsed: result.modeUsed,
        durationMs: result.durationMs,
      });
    } catch (error) {
      host.setStatus(recallErrorStatus(errorMessage(error)));
      return undefined;
    }
  };
}
