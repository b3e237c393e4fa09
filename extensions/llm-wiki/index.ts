/**
 * llm-wiki for Pi: a Markdown wiki as long-term memory. This file only wires
 * Pi to the shared service: tools, the `/wiki-init` command, automatic recall
 * before each user prompt, and background index freshness. Everything it
 * does is in `pi/`; every decision about memory is in `lib/`.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createAutoRecallHandler } from "./pi/auto-recall.ts";
import { createBootstrapTool } from "./pi/bootstrap-tool.ts";
import { createEnsurePageTool } from "./pi/ensure-page-tool.ts";
import { createPageChangeHandler } from "./pi/freshness.ts";
import { createInitCommand } from "./pi/init-command.ts";
import { createRecallTool } from "./pi/recall-tool.ts";
import { createReindexEmbeddingsTool } from "./pi/reindex-embeddings-tool.ts";
import { createReindexTool } from "./pi/reindex-tool.ts";
import { createSearchTool } from "./pi/search-tool.ts";
import { createSessionStartHandler } from "./pi/session-start.ts";
import { createStatusTool } from "./pi/status-tool.ts";
import { createWikiHost } from "./pi/wiki-host.ts";

export default function llmWiki(pi: ExtensionAPI): void {
  // Pi loads the extension once per session, so this host is the session's.
  const host = createWikiHost();

  pi.registerTool(createRecallTool(host));
  pi.registerTool(createSearchTool(host));
  pi.registerTool(createStatusTool(host));
  pi.registerTool(createReindexTool(host));
  pi.registerTool(createReindexEmbeddingsTool(host));
  pi.registerTool(createBootstrapTool(host));
  pi.registerTool(createEnsurePageTool(host));
  pi.registerCommand("wiki-init", createInitCommand(host));

  pi.on("session_start", createSessionStartHandler(host));
  pi.on("before_agent_start", createAutoRecallHandler(host));
  pi.on("tool_result", createPageChangeHandler(host));
  pi.on("session_shutdown", () => host.shutdown());
}
