/**
 * llm-wiki for Pi: a Markdown wiki as long-term memory. This file only wires
 * Pi to the shared service: tools, the `/wiki-…` commands, automatic recall
 * before each user prompt, recall feedback (what became of the pages recall
 * showed), background index freshness, and guardrails that keep the agent's
 * file tools out of a vault's `raw/` and `meta/`. Everything it does is in
 * `pi/`; every decision about memory is in `lib/`.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
  type AgentCommandDeps,
  createIngestCommand,
  createLintCommand,
  createQueryCommand,
} from "./pi/agent-commands.ts";
import { createAgentRuns } from "./pi/agent-runs.ts";
import { createAutoRecallHandler } from "./pi/auto-recall.ts";
import { createBashWatch } from "./pi/bash-watch.ts";
import { createBootstrapTool } from "./pi/bootstrap-tool.ts";
import { createCaptureTool } from "./pi/capture-tool.ts";
import { createCommandOutput, withoutCommandOutput } from "./pi/command-output.ts";
import { createDashboardCommand } from "./pi/dashboard-command.ts";
import { createDigestCommand } from "./pi/digest-command.ts";
import { createDigestTool } from "./pi/digest-tool.ts";
import { createEnsurePageTool } from "./pi/ensure-page-tool.ts";
import { createPageChangeHandler } from "./pi/freshness.ts";
import { createGuardrailHandler } from "./pi/guardrails.ts";
import { createIngestTool } from "./pi/ingest-tool.ts";
import { createInitCommand } from "./pi/init-command.ts";
import { acceptingOlderArguments } from "./pi/legacy-arguments-tool.ts";
import { createLintTool } from "./pi/lint-tool.ts";
import { createLogEventTool } from "./pi/log-event-tool.ts";
import { createModelCommand } from "./pi/model-command.ts";
import { createObserveTool } from "./pi/observe-tool.ts";
import { createOkfExportTool } from "./pi/okf-export-tool.ts";
import { createOkfImportTool } from "./pi/okf-import-tool.ts";
import { createRebuildMetaTool } from "./pi/rebuild-meta-tool.ts";
import { createFeedbackCapture } from "./pi/recall-feedback-capture.ts";
import { createRecallFeedbackTool } from "./pi/recall-feedback-tool.ts";
import { createRecallTool } from "./pi/recall-tool.ts";
import { createRecentTool } from "./pi/recent-tool.ts";
import { createRecordCommand } from "./pi/record-command.ts";
import { createReindexEmbeddingsTool } from "./pi/reindex-embeddings-tool.ts";
import { createReindexTool } from "./pi/reindex-tool.ts";
import { createResolveConflictTool } from "./pi/resolve-conflict-tool.ts";
import { createRetroTool } from "./pi/retro-tool.ts";
import { createSearchTool } from "./pi/search-tool.ts";
import { createSessionPriming } from "./pi/session-priming.ts";
import { createSessionStartHandler } from "./pi/session-start.ts";
import { createSettingsCommand } from "./pi/settings-command.ts";
import { createSkillsCommand } from "./pi/skills-command.ts";
import { createStatusCommand } from "./pi/status-command.ts";
import { createStatusTool } from "./pi/status-tool.ts";
import { createTrajectoriesCommand } from "./pi/trajectories-command.ts";
import { createVerifyPageTool } from "./pi/verify-page-tool.ts";
import { createWatchTool } from "./pi/watch-tool.ts";
import { createWikiHost } from "./pi/wiki-host.ts";
import { createWorkingMemory } from "./pi/working-memory.ts";

export default function llmWiki(pi: ExtensionAPI): void {
  // Pi loads the extension once per session, so this host is the session's.
  const output = createCommandOutput((message, options) => pi.sendMessage(message, options));
  const host = createWikiHost({ output });

  pi.registerTool(createRecallTool(host));
  pi.registerTool(createRecentTool(host));
  pi.registerTool(acceptingOlderArguments(createSearchTool(host)));
  pi.registerTool(createStatusTool(host));
  pi.registerTool(createReindexTool(host));
  pi.registerTool(createReindexEmbeddingsTool(host));
  pi.registerTool(acceptingOlderArguments(createBootstrapTool(host)));
  pi.registerTool(createEnsurePageTool(host));
  pi.registerTool(acceptingOlderArguments(createCaptureTool(host)));
  pi.registerTool(acceptingOlderArguments(createLintTool(host)));
  pi.registerTool(createRebuildMetaTool(host));
  pi.registerTool(acceptingOlderArguments(createObserveTool(host)));
  pi.registerTool(acceptingOlderArguments(createRetroTool(host)));
  pi.registerTool(acceptingOlderArguments(createLogEventTool(host)));
  pi.registerTool(createVerifyPageTool(host));
  pi.registerTool(acceptingOlderArguments(createIngestTool(host)));
  pi.registerTool(createResolveConflictTool(host));
  pi.registerTool(createRecallFeedbackTool(host));
  pi.registerTool(acceptingOlderArguments(createWatchTool(host)));
  pi.registerTool(createDigestTool(host));
  pi.registerTool(createOkfExportTool(host));
  pi.registerTool(createOkfImportTool(host));
  pi.registerCommand("wiki-init", createInitCommand(host, output));
  // The commands that hand the agent a task wait, in print and JSON mode, for the run they start.
  const runs = createAgentRuns();
  pi.on("agent_start", runs.onAgentStart);
  const agent: AgentCommandDeps = {
    send: (content, options) => pi.sendUserMessage(content, options),
    runs,
    output,
  };
  pi.registerCommand("wiki-query", createQueryCommand(agent));
  pi.registerCommand("wiki-ingest", createIngestCommand(agent));
  pi.registerCommand("wiki-lint", createLintCommand(agent));
  pi.registerCommand("wiki-status", createStatusCommand(host, output));
  pi.registerCommand("wiki-dashboard", createDashboardCommand(host, output));
  pi.registerCommand("wiki-digest", createDigestCommand(host, output));
  // Working memory is opt-in: its tools appear only while the `trajectories` setting is on.
  const memory = createWorkingMemory(pi, host, output);
  pi.registerCommand("wiki-trajectories", createTrajectoriesCommand(memory, output));
  pi.registerCommand("wiki-record", createRecordCommand(pi, host, memory, output));
  pi.registerCommand("wiki-skills", createSkillsCommand(host, memory, output));
  pi.registerCommand("wiki-settings", createSettingsCommand(memory, output));
  pi.registerCommand("wiki-model", createModelCommand(output));
  // A command's text in JSON mode is a message in the stream, never the model's context.
  pi.on("context", withoutCommandOutput);
  pi.on("session_start", memory.onSessionStart);

  pi.on("session_start", createSessionStartHandler(host));
  // Priming first: its message comes right after the prompt, and the turn's
  // automatic recall leaves out the pages it showed.
  const priming = createSessionPriming(host);
  pi.on("before_agent_start", priming.handler);
  pi.on("before_agent_start", createAutoRecallHandler(host, priming.shown));
  pi.on("tool_call", createGuardrailHandler());
  // After the guardrail: a blocked command never runs, so it is not watched.
  const bashWatch = createBashWatch(host);
  pi.on("tool_call", bashWatch.onToolCall);
  pi.on("tool_result", createPageChangeHandler(host));
  pi.on("tool_result", bashWatch.onToolResult);
  // What became of the pages recall showed: read (`opened`), named in the answer, or neither.
  const feedback = createFeedbackCapture(host);
  pi.on("tool_result", feedback.onToolResult);
  pi.on("agent_end", bashWatch.onAgentEnd);
  pi.on("agent_end", feedback.onAgentEnd);
  pi.on("session_shutdown", () => host.shutdown());
}
