/**
 * Session priming in Pi: on the session's first user turn, whatever the
 * prompt, recall what the session is about (the service's `prime`: topic,
 * project, branch, recent commits, changed files) and hand the model a
 * hidden message placed after the prompt, exactly like automatic recall:
 * the system prompt is never touched, so it stays byte-identical and
 * provider prompt caches keep working. Once per session; the same turn's
 * automatic recall leaves out the pages priming already showed; a resumed
 * session, which holds its priming message already, is not primed again.
 * Git is read ahead at session start (see session-start.ts). A failure
 * costs the session its priming, nothing more.
 */
import type {
  BeforeAgentStartEvent,
  BeforeAgentStartEventResult,
  ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";
import { renderedOnly } from "../lib/feedback/rendered-only.ts";
import type { PrimeResult } from "../lib/priming/prime.ts";
import { recordShown } from "./recall-feedback-capture.ts";
import { recallMessage } from "./recall-message.ts";
import type { WikiHost } from "./wiki-host.ts";

/** `customType` of the priming message (persisted in the session, sent to the model as user content). */
export const PRIMING_MESSAGE_TYPE = "llm-wiki-priming";

export interface SessionPriming {
  /** `before_agent_start` handler; register it before automatic recall's. */
  handler(
    event: BeforeAgentStartEvent,
    ctx: ExtensionContext,
  ): Promise<BeforeAgentStartEventResult | undefined>;
  /** Pages (`vault:id`) this turn's priming message showed: the same turn's automatic recall leaves them out. */
  shown(): ReadonlySet<string>;
}

/** Whether the session's current branch already holds a priming message. */
function alreadyPrimed(ctx: ExtensionContext): boolean {
  return ctx.sessionManager
    .getBranch()
    .some((entry) => entry.type === "custom_message" && entry.customType === PRIMING_MESSAGE_TYPE);
}

export function createSessionPriming(host: WikiHost): SessionPriming {
  let done = false;
  const shown = new Set<string>();
  return {
    shown: () => shown,
    async handler(event, ctx) {
      // The first turn the user starts; other extensions' custom runs do not count.
      if (event.messageType !== "user") return undefined;
      if (done) {
        // Later turns: recall may show any page again (compaction may have dropped the priming).
        shown.clear();
        return undefined;
      }
      done = true;
      try {
        // A resumed session (or one the extension reloaded into) was primed when it began.
        if (alreadyPrimed(ctx)) return undefined;
        const service = host.service(ctx);
        if (!service.settings.sessionPriming) return undefined;
        await host.firstRecallReady();
        const result: PrimeResult = await service.prime({
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        if (result.rendered === "") return undefined;
        // Only what the block holds reached the model: bundles cut to fit were not shown.
        const delivered = renderedOnly(result);
        for (const r of delivered.results) shown.add(`${r.vault}:${r.id}`);
        recordShown(host, ctx, delivered);
        return recallMessage(PRIMING_MESSAGE_TYPE, delivered, {
          query: result.query,
          durationMs: result.durationMs,
          gitMs: result.gitMs,
        });
      } catch (error) {
        host.setStatus(`wiki: priming failed (${errorMessage(error)})`);
        return undefined;
      }
    },
  };
}
