/**
 * Session start: read the settings (reporting their problems once), bring a
 * missing, stale or interrupted project index up to date in the background so
 * a new vault gets recall at once, and, when there is no vault at all,
 * suggest creating one. A vault is never created without being asked.
 */
import type { ExtensionContext, SessionStartEvent } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";
import { AUTO_RECALL_OFF_STATUS } from "./status-line.ts";
import type { WikiHost } from "./wiki-host.ts";

const NO_VAULT_HINT =
  "llm-wiki: no wiki vault for this project. Run /wiki-init (or ask the agent to use wiki_bootstrap) to create one.";

export function createSessionStartHandler(host: WikiHost) {
  return (_event: SessionStartEvent, ctx: ExtensionContext): void => {
    try {
      const service = host.service(ctx);
      if (!service.settings.autoRecall) host.setStatus(AUTO_RECALL_OFF_STATUS);
      if (service.resolveVaults("project").length === 0) {
        if (service.resolveVaults("all").length === 0) ctx.ui.notify(NO_VAULT_HINT, "info");
        return;
      }
      const state = service.status({ vault: "project" }).vault?.index.state;
      if (state !== undefined && state !== "ready") host.scheduleReindex(ctx, "project", 0);
    } catch (error) {
      host.setStatus(`wiki: unavailable (${errorMessage(error)})`);
    }
  };
}
