/**
 * Working memory (session recording) switched on or off from an MCP client,
 * the only way in for a Claude Code plugin user (no `llm-wiki` command on
 * PATH): the `trajectories` setting in the file the CLI, the MCP server and
 * every client's hooks read (`cliSettingsPath`), as `llm-wiki trajectory
 * on|off` writes it. The hooks read it on every run, so a session is
 * recorded from its next end; the server offers the trajectory tools from
 * its next start.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { cliSettingsPath } from "../settings.ts";
import { writeSetting } from "../settings-write.ts";

export interface WorkingMemorySetting {
  ok: boolean;
  /** The setting as it stands after the call. */
  trajectories: boolean;
  /** Whether this call wrote it. */
  changed: boolean;
  /** The settings file. */
  path: string;
  diagnostics: Diagnostic[];
}

/** Sets working memory to `enabled` (undefined: only reports it); `current` is the setting now in force. */
export function setWorkingMemory(
  current: boolean,
  enabled: boolean | undefined,
  env: NodeJS.ProcessEnv = process.env,
): WorkingMemorySetting {
  const path = cliSettingsPath(env);
  if (enabled === undefined) {
    return { ok: true, trajectories: current, changed: false, path, diagnostics: [] };
  }
  const written = writeSetting(path, "trajectories", enabled);
  return {
    ok: written.ok,
    trajectories: written.ok ? enabled : current,
    changed: written.ok,
    path,
    diagnostics: written.diagnostics,
  };
}

/** The answer a model reads and passes on to the user. */
export function renderWorkingMemory(result: WorkingMemorySetting): string {
  if (!result.ok)
    return `working memory unchanged: the settings file ${result.path} could not be written`;
  const state = result.trajectories ? "on" : "off";
  if (!result.changed) {
    return `llm-wiki working memory (session recording) is ${state} (${result.path}); call wiki_working_memory with enabled: ${!result.trajectories} to turn it ${result.trajectories ? "off" : "on"}.`;
  }
  return result.trajectories
    ? `llm-wiki working memory is on (written to ${result.path}): from now on each session is recorded as a trajectory page in the project's wiki when it ends, by the client's hooks (the Claude Code plugin's, or those \`llm-wiki setup\` wrote), secrets redacted; the trajectory tools (wiki_capture_trajectory, wiki_distill_skills, wiki_recall_skill) come with this server's next start.`
    : `llm-wiki working memory is off (written to ${result.path}): sessions are no longer recorded; the pages already recorded stay.`;
}
