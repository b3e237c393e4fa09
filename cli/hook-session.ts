/**
 * The working-memory half of `llm-wiki hook stop|session-end|pre-compact`:
 * with working memory on (setting `trajectories`, as Pi's), reads the
 * session's transcript (hook input `transcript_path`: Claude Code's JSONL,
 * Codex's rollout JSONL, Gemini CLI's saved chat) within fixed bounds and
 * records the session as one trajectory page, replaced as the session goes
 * on (session-record.ts). Off: nothing is read and nothing written. And the
 * session-start notice that trajectories wait for distillation.
 */
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import {
  recordSessionTrajectory,
  sessionKey,
  undistilledCount,
} from "../extensions/llm-wiki/lib/trajectories/session-record.ts";
import {
  readTranscript,
  TranscriptRefused,
} from "../extensions/llm-wiki/lib/trajectories/transcript-read.ts";
import { trajectoryFromTranscript } from "../extensions/llm-wiki/lib/trajectories/transcript-steps.ts";
import { findProjectVault } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { resolveWriter } from "../extensions/llm-wiki/lib/vault/writer.ts";
import { type HookInput, HookSkip } from "./hook-input.ts";

/** Records the session's trajectory; returns the line said on stderr. Throws `HookSkip`. */
export function recordSessionHook(input: HookInput): string {
  const { settings } = loadCliSettings();
  if (!settings.trajectories)
    throw new HookSkip("working memory is off (setting trajectories); nothing recorded");
  const found = findProjectVault(input.cwd);
  if (!found) throw new HookSkip(`no .llm-wiki vault at ${input.cwd} or any parent`);
  if (input.transcriptPath === undefined)
    throw new HookSkip('hook input has no "transcript_path"; nothing recorded');
  let read: ReturnType<typeof readTranscript>;
  try {
    read = readTranscript(input.transcriptPath);
  } catch (error) {
    if (error instanceof TranscriptRefused) throw new HookSkip(error.message);
    throw error;
  }
  const trajectory = trajectoryFromTranscript(read.records);
  if (!trajectory) throw new HookSkip("transcript is in no known format; nothing recorded");
  if (!trajectory.steps.some((s) => s.role === "tool"))
    throw new HookSkip("no tool call in the session yet; nothing recorded");
  // Recorded as the teammate, and as the client whose transcript it is.
  const vault = {
    ...found,
    writer: () => resolveWriter(found.root, trajectory.format, { configured: settings.author }),
  };
  // Without a session id the transcript's path names the session.
  const key = sessionKey(input.sessionId ?? `transcript:${input.transcriptPath}`);
  const result = recordSessionTrajectory(vault, {
    steps: trajectory.steps,
    ...(trajectory.task !== undefined ? { task: trajectory.task } : {}),
    ...(trajectory.model !== undefined ? { model: trajectory.model } : {}),
    outcome: trajectory.outcome,
    session: { key, client: trajectory.format },
  });
  const skipped = read.skipped > 0 ? `; ${read.skipped} unreadable line(s) skipped` : "";
  const cut = read.cut ? "; the middle of a large transcript was not read" : "";
  return `trajectory ${result.action} ${result.id ?? ""}${result.reason ? ` (${result.reason})` : ""}${skipped}${cut}`;
}

/** The session-start line saying trajectories wait for distillation ("" for none, or when off). */
export function distillNotice(cwd: string): string {
  if (!loadCliSettings().settings.trajectories) return "";
  const vault = findProjectVault(cwd);
  if (!vault) return "";
  const count = undistilledCount(vault);
  if (count === 0) return "";
  return `${count} recorded trajectory page(s) wait for distillation into skills: run \`llm-wiki trajectory distill\` or call the wiki_distill_skills tool.`;
}
