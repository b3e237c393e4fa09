/**
 * Session start: read the settings (reporting their problems once), start
 * with an empty recall feedback recorder, bring a missing, stale or
 * interrupted project index up to date in the background so a new vault
 * gets recall at once, and, when there is no vault at all, suggest creating
 * one. A vault is never created without being asked.
 */
import type { ExtensionContext, SessionStartEvent } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";
import { AUTO_RECALL_OFF_STATUS, largeIndexStatus } from "./status-line.ts";
import type { WikiHost } from "./wiki-host.ts";

/** Vaults up to this many pages are indexed before the first automatic recall (~1 s at 1k pages). */
export const FIRST_TURN_WAIT_PAGES = 1000;

const NO_VAULT_HINT =
  "llm-wiki: no wiki vault for this project. Run /wiki-init (or ask the agent to use wiki_bootstrap) to create one.";

export function createSessionStartHandler(host: WikiHost) {
  return (event: SessionStartEvent, ctx: ExtensionContext): void => {
    // What an earlier session was shown is not this one's to judge.
    host.resetFeedback();
    try {
      const service = host.service(ctx);
      if (!service.settings.autoRecall) host.setStatus(AUTO_RECALL_OFF_STATUS);
      // Outside any project the personal vault is the one unasked memory reads.
      const ambient = service.ambientVault();
      if (ambient === undefined) {
        if (service.resolveVaults("all").length === 0) ctx.ui.notify(NO_VAULT_HINT, "info");
        return;
      }
      // Git is read now, while the user types, so the first turn's priming does not wait for it.
      // A resumed or forked session already holds its priming.
      if (event.reason !== "resume" && event.reason !== "fork") service.prefetchPriming();
      const vault = service.status({ vault: ambient.kind }).vault;
      const state = vault?.index.state;
      if (vault === undefined || state === undefined || state === "ready") return;
      // A small vault indexes in about a second: the first turn waits for it
      // rather than recalling from nothing. A big one says when recall starts.
      if (vault.pages <= FIRST_TURN_WAIT_PAGES) host.holdFirstRecall();
      else host.announceNextPass(largeIndexStatus(vault.pages));
      host.scheduleReindex(ctx, ambient.kind, 0);
    } catch (error) {
      host.setStatus(`wiki: unavailable (${errorMessage(error)})`);
    }
  };
}
