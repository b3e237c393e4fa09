/**
 * Gemini CLI gets the memory from `llm-wiki setup gemini`: the MCP server
 * and its hooks in the one `.gemini/settings.json`, in Gemini CLI's own
 * shape (events SessionStart, BeforeAgent, SessionEnd, PreCompress; timeouts
 * in milliseconds; JSON on stdout, since Gemini CLI shows plain text to the
 * user rather than giving it to the model). The command it writes, run as
 * Gemini CLI runs it (through a shell, its hook input on stdin), answers a
 * prompt about the example vault with the recall block as
 * `hookSpecificOutput.additionalContext`.
 */
import { execSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCli } from "./helpers/cli.ts";
import { commandsOnPath } from "./helpers/path-commands.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
/** `llm-wiki` and `llm-wiki-mcp` on PATH, running what the other specs run. */
const commands = () =>
  commandsOnPath({ cli: CLI, mcp: join(import.meta.dirname, "..", "bin", "llm-wiki-mcp.js") });
const ASKED = "how do we keep the cache consistent after a note changes";

interface Handler {
  type: string;
  name?: string;
  command: string;
  timeout: number;
}
type Settings = Record<string, unknown> & {
  hooks: Record<string, Array<{ hooks: Handler[] }>>;
};

/** The input Gemini CLI gives a hook: its base fields and the event's own. */
function geminiInput(cwd: string, event: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: randomUUID(),
    transcript_path: join(cwd, "session.jsonl"),
    cwd,
    hook_event_name: event,
    timestamp: new Date().toISOString(),
    ...extra,
  });
}

describe("llm-wiki setup gemini", () => {
  it("writes the server and Gemini-shaped hooks into one settings file, keeping the user's own keys; remove restores it", () => {
    const root = makeTempDir("llm-wiki-gemini-");
    const home = makeTempDir("llm-wiki-gemini-home-");
    // A long hook deadline: a loaded machine must not turn the answer into "not in time".
    // No warm hook process: the command below runs outside runCli, and the process would outlive the spec.
    const env = {
      HOME: home,
      WIKI_HOME: home,
      LLM_WIKI_HOOK_DEADLINE_MS: "600000",
      LLM_WIKI_HOOK_SERVER: "off",
    };
    cpSync(EXAMPLE, root, {
      recursive: true,
      filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
    });
    const path = join(root, ".gemini", "settings.json");
    const own = {
      ui: { theme: "GitHub" },
      hooks: { AfterTool: [{ hooks: [{ type: "command", command: "true" }] }] },
    };
    mkdirSync(join(root, ".gemini"));
    writeFileSync(path, `${JSON.stringify(own, null, 2)}\n`);
    const before = snapshotFiles(root);

    const set = runCli(["setup", "gemini"], { cwd: root, env });
    expect(set.status, set.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(path, "utf8")) as Settings;
    expect(settings.ui).toEqual(own.ui);
    expect(settings.hooks.AfterTool).toEqual(own.hooks.AfterTool);
    expect((settings.mcpServers as Record<string, unknown>)["llm-wiki"]).toBeDefined();
    const handler = (event: string): Handler => {
      const groups = settings.hooks[event] ?? [];
      expect(groups, event).toHaveLength(1);
      return groups[0]?.hooks[0] as Handler;
    };
    for (const [event, kind] of [
      ["SessionStart", "session-start --json"],
      ["BeforeAgent", "user-prompt --json"],
      ["SessionEnd", "session-end --json"],
      ["PreCompress", "pre-compact --json"],
    ] as const) {
      const h = handler(event);
      expect(h.command.endsWith(` hook ${kind}`), h.command).toBe(true);
      expect(h.timeout).toBe(10_000);
      expect(h.type).toBe("command");
    }
    // Claude Code's event names are not Gemini CLI's: none is written here.
    expect(settings.hooks.UserPromptSubmit).toBeUndefined();

    // Run as Gemini CLI runs it: a shell, the input on stdin, JSON back on
    // stdout; the project's file names the command an install puts on PATH.
    const onPath = { ...env, PATH: `${commands()}:${process.env.PATH ?? ""}` };
    const out = execSync(handler("BeforeAgent").command, {
      cwd: root,
      input: geminiInput(root, "BeforeAgent", { prompt: ASKED }),
      env: onPath,
      encoding: "utf8",
    });
    const answer = JSON.parse(out) as { hookSpecificOutput?: { additionalContext?: string } };
    const context = answer.hookSpecificOutput?.additionalContext ?? "";
    expect(context).toContain('<wiki-recall source="llm-wiki">');
    expect(context).toContain("</wiki-recall>");
    const unrelated = execSync(handler("BeforeAgent").command, {
      cwd: root,
      input: geminiInput(root, "BeforeAgent", { prompt: "write a haiku about autumn leaves" }),
      env: onPath,
      encoding: "utf8",
    });
    expect(unrelated.trim() === "" || !unrelated.includes("wiki-recall")).toBe(true);

    // The recording hooks answer JSON too (working memory is off here): Gemini
    // CLI would show their stderr line to the user were stdout empty.
    const ended = execSync(handler("SessionEnd").command, {
      cwd: root,
      input: geminiInput(root, "SessionEnd", { reason: "exit" }),
      env: onPath,
      encoding: "utf8",
    });
    expect(JSON.parse(ended)).toEqual({});

    // Again: nothing changes. Removed: the user's file as it was.
    const again = snapshotFiles(root);
    expect(runCli(["setup", "gemini"], { cwd: root, env }).stdout).toContain("already set up");
    expect(snapshotFiles(root).get(".gemini/settings.json")).toEqual(
      again.get(".gemini/settings.json"),
    );
    const removed = runCli(["setup", "gemini", "--remove"], { cwd: root, env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(own);
    expect(before.get(".gemini/settings.json")?.toString("utf8")).toBe(readFileSync(path, "utf8"));
  });

  it("a BeforeAgent prompt that carries the session's priming in <hook_context> (gemini -p) is recalled on the user's words alone", () => {
    const root = makeTempDir("llm-wiki-gemini-");
    const home = makeTempDir("llm-wiki-gemini-home-");
    const env = { HOME: home, WIKI_HOME: home, LLM_WIKI_HOOK_DEADLINE_MS: "600000" };
    cpSync(EXAMPLE, root, {
      recursive: true,
      filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
    });
    const hook = (kind: string, input: string) =>
      runCli(["hook", kind], { cwd: root, env, input }).stdout;
    // What `gemini -p` sends: the SessionStart context, escaped, before the prompt.
    const priming = hook("session-start", geminiInput(root, "SessionStart", { source: "startup" }));
    expect(priming).toContain("<wiki-recall");
    const escaped = priming
      .replaceAll("&", "&amp;")
      .replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;");
    const wrapped = `<hook_context>${escaped}</hook_context>\n\n${ASKED}`;
    const plain = hook("user-prompt", geminiInput(root, "BeforeAgent", { prompt: ASKED }));
    const carried = hook("user-prompt", geminiInput(root, "BeforeAgent", { prompt: wrapped }));
    expect(plain).toContain("<wiki-recall");
    expect(carried).toBe(plain);
  });
});
