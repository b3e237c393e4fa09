/**
 * Every answer arrives, in every mode of the real `pi` command, with Pi's
 * faux model playing a script (`helpers/pi-mode-scenario.ts`): print
 * (`-p`), JSON (`--mode json`), RPC (`--mode rpc`) and the terminal UI
 * (interactive, driven through tmux). In each, a write followed by a recall
 * gets the recall's answer (print and JSON mode used to end inside it), each
 * run ends (`agent_end`), `meta/log.md` lists the writes, `/wiki-query`,
 * `/wiki-lint` and `/wiki-ingest` have the agent do the work (print and JSON
 * mode used to end before it started), and every other command's text is
 * shown where the mode shows text: standard error in print mode, a custom
 * message in the JSON stream (and standard error), a notice in RPC and in
 * the terminal UI; never in what the model is sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { piJson, piPrint, piRpc, type RpcLine, rpcNotices } from "./helpers/pi-cli.ts";
import {
  AGENT_PROMPTS,
  ALL_PROMPTS,
  expectAgentAnswers,
  expectCommandTexts,
  prepareScenario,
  TEXT_COMMANDS,
  TRAJECTORIES_ON,
} from "./helpers/pi-mode-scenario.ts";
import { startPiTerminal } from "./helpers/pi-tmux.ts";
import { removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

/** A print-mode run's standard error, cut where each command's text begins. */
function stderrBlocks(stderr: string): string[] {
  return stderr.split(/\n(?=llm-wiki|usage: )/);
}

describe("every answer arrives", () => {
  it("in print mode (pi -p): results reach the model, commands print on standard error", () => {
    const run = prepareScenario();
    const out = piPrint(run.dirs, ALL_PROMPTS, { env: run.env });
    expect(out.status, out.stderr).toBe(0);
    expectAgentAnswers(run);
    expectCommandTexts(stderrBlocks(out.stderr));
  }, 900_000);

  it("in JSON mode: every tool ends, every run ends, commands are messages in the stream", () => {
    const run = prepareScenario();
    const out = piJson(run.dirs, ALL_PROMPTS, { env: run.env });
    expect(out.status, out.stderr).toBe(0);
    const ended = out.lines
      .filter((l) => l.type === "tool_execution_end")
      .map((l) => String(l.toolName));
    expect(ended).toEqual([
      "wiki_ensure_page",
      "wiki_recall",
      "wiki_observe",
      "wiki_recall_skill",
      "wiki_recall",
      "wiki_lint",
      "wiki_ingest",
    ]);
    expect(out.lines.filter((l) => l.type === "agent_end")).toHaveLength(AGENT_PROMPTS.length);
    const shown = out.lines
      .filter((l) => l.type === "message_end")
      .map((l) => l.message as { role?: string; customType?: string; content?: unknown })
      .filter((m) => m.role === "custom" && m.customType === "llm-wiki-output")
      .map((m) => String(m.content));
    expectAgentAnswers(run);
    expectCommandTexts(shown);
    // Standard error has them too, for a person watching the run.
    expect(stderrBlocks(out.stderr).some((t) => TRAJECTORIES_ON.text.test(t))).toBe(true);
  }, 900_000);

  it("in RPC mode: every tool ends, every run ends, commands are notices", async () => {
    const run = prepareScenario();
    const settled = (line: RpcLine) => line.type === "agent_settled";
    const noticeOf = (pattern: RegExp) => (line: RpcLine) =>
      line.type === "extension_ui_request" &&
      line.method === "notify" &&
      pattern.test(String(line.message));
    const lines = await piRpc(
      run.dirs,
      [
        { prompt: TRAJECTORIES_ON.prompt, until: noticeOf(TRAJECTORIES_ON.text) },
        ...AGENT_PROMPTS.map(({ prompt }) => ({ prompt, until: settled })),
        ...TEXT_COMMANDS.map(({ prompt, text }) => ({ prompt, until: noticeOf(text) })),
      ],
      { env: run.env },
    );
    const ended = lines.filter((l) => l.type === "tool_execution_end").map((l) => l.toolName);
    expect(ended).toContain("wiki_recall_skill");
    expect(lines.filter((l) => l.type === "agent_end")).toHaveLength(AGENT_PROMPTS.length);
    // No dialog in RPC: a client that does not answer one would wait forever.
    expect(lines.filter((l) => l.method === "select" || l.method === "custom")).toEqual([]);
    expectAgentAnswers(run);
    expectCommandTexts(rpcNotices(lines));
  }, 900_000);

  it("in the terminal UI (interactive, through tmux): every answer is drawn", async () => {
    const run = prepareScenario();
    const pi = startPiTerminal(run.dirs, { env: run.env });
    try {
      await pi.waitFor(/faux-1/);
      pi.submit(TRAJECTORIES_ON.prompt);
      await pi.waitFor(TRAJECTORIES_ON.text);
      for (const { prompt, done } of AGENT_PROMPTS) {
        pi.submit(prompt);
        await pi.waitFor(new RegExp(`^ *${done} *$`, "m"));
      }
      expectAgentAnswers(run);
      // Each command's text (a notice) or its dialog or screen is drawn.
      for (const command of TEXT_COMMANDS) {
        pi.submit(command.prompt);
        await pi.waitFor(command.drawn);
        if (!command.dialog) continue;
        // Keys typed before it has closed would be read with the Escape (as Alt+key).
        pi.press("Escape");
        await pi.waitForGone(command.drawn);
      }
    } finally {
      pi.close();
    }
  }, 900_000);
});
