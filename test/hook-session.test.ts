/**
 * `llm-wiki hook stop|session-end|pre-compact` through the real CLI process:
 * with working memory on, the session's transcript (Claude Code's JSONL,
 * Codex's rollout JSONL, Gemini CLI's saved chat — generated afresh, with
 * random tool calls, planted secrets, hostile bytes and a truncated last
 * line) becomes one trajectory page, redacted, that later Stop calls replace
 * rather than duplicate; off by default, when nothing is written at all; any
 * input exits 0; and the next session start says trajectories wait.
 */
import { randomInt } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { corpusSeed, corpusSeedNote, secretCorpus } from "./helpers/secret-corpus.ts";
import { makeTempDir, makeTempVault, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

const SEED = corpusSeed();
/** One-line secrets: they travel inside JSON arguments and one-line tool output. */
const SECRETS = secretCorpus(SEED)
  .filter((c) => !c.text.includes("\n") && c.pieces === undefined)
  .sort(() => Math.random() - 0.5)
  .slice(0, 6);
const HOSTILE = "\u0000\u001b[31m\u202e\ud800 ## Heading [link](http://x) ";

interface Env {
  home: string;
  env: NodeJS.ProcessEnv;
}

function homeWith(trajectories: boolean | undefined): Env {
  const home = makeTempDir("llm-wiki-hook-session-home-");
  mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
  if (trajectories !== undefined)
    writeFileSync(
      join(home, ".config", "llm-wiki", "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories } }),
    );
  return {
    home,
    env: { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
  };
}

interface Call {
  name: string;
  args: Record<string, unknown>;
  output: string;
  error: boolean;
}

/** Random tool calls, secrets planted in arguments and results, hostile bytes in some. */
function randomCalls(count: number): Call[] {
  return Array.from({ length: count }, (_, i) => {
    const secret = SECRETS[i % SECRETS.length];
    return {
      name: randomWord(3, 8),
      args: {
        command: `${randomWords(2)} ${i % 2 === 0 && secret ? secret.text : randomWord()}`,
        note: i % 3 === 0 ? HOSTILE : randomWords(2),
      },
      output: `${randomWords(3)} ${i % 2 === 1 && secret ? secret.text : ""} ${i % 4 === 0 ? HOSTILE : ""}`,
      error: randomInt(4) === 0,
    };
  });
}

/** Claude Code's transcript: one JSON object a line, as its hook's `transcript_path` names. */
function claudeTranscript(task: string, calls: Call[], last: string): string {
  const lines: unknown[] = [
    { type: "user", sessionId: "s", message: { role: "user", content: task } },
  ];
  calls.forEach((c, i) => {
    lines.push({
      type: "assistant",
      message: {
        role: "assistant",
        model: "claude-test",
        content: [
          { type: "text", text: randomWords(4) },
          { type: "tool_use", id: `toolu_${i}`, name: c.name, input: c.args },
        ],
      },
    });
    lines.push({
      type: "user",
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: `toolu_${i}`,
            content: [{ type: "text", text: c.output }],
            ...(c.error ? { is_error: true } : {}),
          },
        ],
      },
    });
  });
  lines.push({
    type: "assistant",
    message: { role: "assistant", content: [{ type: "text", text: last }] },
  });
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\nnot json at all \u0000\n{"type":"user","message":{"role":"us`;
}

function codexTranscript(task: string, calls: Call[], last: string): string {
  const item = (payload: unknown) =>
    JSON.stringify({ timestamp: "t", type: "response_item", payload });
  const lines = [
    JSON.stringify({ type: "session_meta", payload: { id: "x" } }),
    JSON.stringify({ type: "turn_context", payload: { model: "gpt-test" } }),
    item({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context>cwd</environment_context>" }],
    }),
    item({ type: "message", role: "user", content: [{ type: "input_text", text: task }] }),
  ];
  calls.forEach((c, i) => {
    lines.push(
      item({
        type: "function_call",
        name: c.name,
        arguments: JSON.stringify(c.args),
        call_id: `call_${i}`,
      }),
    );
    lines.push(
      item({
        type: "function_call_output",
        call_id: `call_${i}`,
        output: JSON.stringify({ output: c.output, metadata: { exit_code: c.error ? 1 : 0 } }),
      }),
    );
  });
  lines.push(
    item({ type: "message", role: "assistant", content: [{ type: "output_text", text: last }] }),
  );
  return `${lines.join("\n")}\n{"truncated`;
}

function geminiTranscript(task: string, calls: Call[], last: string): string {
  return JSON.stringify(
    {
      sessionId: "g",
      messages: [
        { id: "1", type: "user", content: task },
        {
          id: "2",
          type: "gemini",
          content: randomWords(3),
          toolCalls: calls.map((c) => ({
            id: randomWord(),
            name: c.name,
            args: c.args,
            result: [],
            resultDisplay: c.output,
            status: c.error ? "error" : "success",
          })),
        },
        { id: "3", type: "gemini", content: last },
      ],
    },
    null,
    2,
  );
}

/**
 * Gemini CLI's newer saved chat, appended as JSONL: a metadata line, message
 * records by id (a tool call recorded first bare, then again with its
 * result), a message rewound away, and a torn last line.
 */
function geminiJsonlTranscript(task: string, calls: Call[], last: string): string {
  const rewound = `${randomWords(3)} ${TASK_MARK}-rewound`;
  const reply = {
    id: "m2",
    type: "gemini",
    model: "gemini-test",
    content: [{ text: randomWords(3) }],
  };
  const lines: unknown[] = [
    { sessionId: "g", projectHash: "h", startTime: "2026-12-01T00:00:00Z", kind: "main" },
    // What Gemini CLI itself writes first: its session context, as a checkpoint.
    {
      $set: {
        messages: [
          { id: "c0", type: "user", content: [{ text: `<session_context>\n${CONTEXT_MARK}\n` }] },
        ],
      },
    },
    { id: "m0", type: "user", content: [{ text: rewound }] },
    { $rewindTo: "m0" },
    // What hooks added comes before the prompt (our recall block among it)...
    {
      id: "m1",
      type: "user",
      content: [
        {
          text: `<hook_context>&lt;wiki-recall&gt;${CONTEXT_MARK}&lt;/wiki-recall&gt;</hook_context>\n\n${task}`,
        },
        // Or after it, as a part of its own.
        { text: `<hook_context>${CONTEXT_MARK}</hook_context>` },
      ],
    },
    reply,
    {
      ...reply,
      toolCalls: calls.map((c, i) => ({
        id: `t${i}`,
        name: c.name,
        args: c.args,
        status: "executing",
      })),
    },
    {
      ...reply,
      toolCalls: calls.map((c, i) => ({
        id: `t${i}`,
        name: c.name,
        args: c.args,
        result: [{ functionResponse: { response: { output: c.output } } }],
        resultDisplay: c.output,
        status: c.error ? "error" : "success",
      })),
    },
    { $set: { lastUpdated: "2026-12-01T00:05:00Z" } },
    { id: "m3", type: "gemini", content: last },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"id":"m4","ty`;
}

function hook(kind: string, env: Env, input: unknown, cwd?: string) {
  return runCli(["hook", kind], {
    env: env.env,
    input: typeof input === "string" ? input : JSON.stringify(input),
    ...(cwd ? { cwd } : {}),
    timeout: 60_000,
  });
}

function trajectoryFiles(root: string): string[] {
  try {
    return readdirSync(join(root, ".llm-wiki", "wiki", "trajectories")).sort();
  } catch {
    return [];
  }
}

const FORMATS = {
  "claude-code": claudeTranscript,
  codex: codexTranscript,
  gemini: geminiTranscript,
  "gemini-jsonl": geminiJsonlTranscript,
} as const;

describe(`hook stop/session-end/pre-compact (${corpusSeedNote(SEED)})`, () => {
  for (const [format, make] of Object.entries(FORMATS)) {
    it(`${format}: one redacted trajectory per session, replaced on later Stops, never duplicated`, () => {
      const env = homeWith(true);
      const vault = makeTempVault();
      const task = `${randomWords(5)} ${TASK_MARK}`;
      const calls = randomCalls(6 + randomInt(10));
      const transcript = join(makeTempDir("llm-wiki-transcript-"), "session.jsonl");
      const last = `done ${randomWords(4)}`;
      writeFileSync(transcript, make(task, calls.slice(0, 3), last));
      const input = {
        session_id: randomWord(),
        transcript_path: transcript,
        cwd: vault.root,
        hook_event_name: "Stop",
      };
      const first = hook("stop", env, input);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toBe("");
      expect(first.stderr).toMatch(/trajectory created trajectories\/TRJ-/);
      const [file] = trajectoryFiles(vault.root);
      expect(trajectoryFiles(vault.root)).toHaveLength(1);
      const page = () =>
        readFileSync(join(vault.paths.wiki, "trajectories", file as string), "utf8");
      expect(page()).toContain(TASK_MARK);
      expect(page()).toContain("type: trajectory");
      expect(page()).toContain(`client: ${format.replace(/-jsonl$/, "")}`);
      expect(page()).not.toContain(`${TASK_MARK}-rewound`);
      expect(page()).not.toContain(CONTEXT_MARK);

      // The same Stop again changes nothing; a longer session replaces the page.
      const before = page();
      expect(hook("stop", env, input).stderr).toMatch(/trajectory unchanged/);
      expect(page()).toBe(before);
      writeFileSync(transcript, make(task, calls, last));
      for (const kind of ["stop", "pre-compact", "session-end"]) {
        const again = hook(kind, env, { ...input, hook_event_name: kind });
        expect(again.status, again.stderr).toBe(0);
      }
      expect(trajectoryFiles(vault.root)).toEqual([file]);
      const text = page();
      expect(text).toMatch(new RegExp(`tool_call_count: ${calls.length}\\b`));
      for (const c of calls) expect(text).toContain(c.name);
      for (const s of SECRETS) expect(text, s.kind).not.toContain(s.secret);
      for (const ch of ["\u0000", "\u001b", "\u202e"]) expect(text).not.toContain(ch);
      expect(text).not.toContain("\n## Heading");
      const events = readFileSync(vault.paths.events, "utf8");
      expect(events).toContain('"trajectory_captured"');
      expect(events).toContain('"trajectory_updated"');
      for (const s of SECRETS) expect(events, s.kind).not.toContain(s.secret);

      // The next session start says one trajectory waits.
      const start = hook("session-start", env, { cwd: vault.root, source: "startup" });
      expect(start.status).toBe(0);
      expect(start.stdout).toMatch(/1 recorded trajectory page\(s\) wait for distillation/);
    });
  }

  it("a page edited by hand, or another session, is never replaced", () => {
    const env = homeWith(true);
    const vault = makeTempVault();
    const transcript = join(makeTempDir("llm-wiki-transcript-"), "s.jsonl");
    const calls = randomCalls(3);
    writeFileSync(transcript, claudeTranscript(randomWords(4), calls, "ok"));
    const input = { session_id: "a", transcript_path: transcript, cwd: vault.root };
    expect(hook("stop", env, input).status).toBe(0);
    const [file] = trajectoryFiles(vault.root);
    const path = join(vault.paths.wiki, "trajectories", file as string);
    const edited = `${readFileSync(path, "utf8")}\nA note by hand.\n`;
    writeFileSync(path, edited);
    writeFileSync(transcript, claudeTranscript(randomWords(4), randomCalls(5), "ok"));
    expect(hook("stop", env, input).stderr).toMatch(/kept .*edited/);
    expect(readFileSync(path, "utf8")).toBe(edited);
    expect(hook("stop", env, { ...input, session_id: "b" }).stderr).toMatch(/created/);
    expect(trajectoryFiles(vault.root)).toHaveLength(2);
  });

  it("off by default: nothing read, nothing written, the vault byte-identical", () => {
    for (const env of [homeWith(undefined), homeWith(false)]) {
      const vault = makeTempVault();
      const transcript = join(makeTempDir("llm-wiki-transcript-"), "s.jsonl");
      writeFileSync(transcript, claudeTranscript(randomWords(4), randomCalls(4), "ok"));
      const before = snapshotFiles(vault.root);
      for (const kind of ["stop", "session-end", "pre-compact"]) {
        const run = hook(kind, env, {
          session_id: "x",
          transcript_path: transcript,
          cwd: vault.root,
        });
        expect(run.status).toBe(0);
        expect(run.stdout).toBe("");
        expect(run.stderr).toMatch(/working memory is off/);
      }
      expect(snapshotFiles(vault.root)).toEqual(before);
    }
  });

  it("never blocks: any input exits 0 with a reason on stderr and nothing written", () => {
    const env = homeWith(true);
    const vault = makeTempVault();
    const dir = makeTempDir("llm-wiki-transcript-");
    const real = join(dir, "real.jsonl");
    writeFileSync(real, claudeTranscript(randomWords(3), randomCalls(2), "ok"));
    const link = join(dir, "link.jsonl");
    symlinkSync(real, link);
    const garbage = join(dir, "garbage.jsonl");
    writeFileSync(garbage, Buffer.from(Array.from({ length: 50_000 }, () => randomInt(256))));
    const before = snapshotFiles(vault.root);
    const inputs: unknown[] = [
      "",
      "garbage \u0000",
      "[]",
      { cwd: vault.root },
      { cwd: vault.root, transcript_path: join(dir, "missing.jsonl") },
      { cwd: vault.root, transcript_path: "relative.jsonl" },
      { cwd: vault.root, transcript_path: link },
      { cwd: vault.root, transcript_path: dir },
      { cwd: vault.root, transcript_path: "/dev/zero" },
      { cwd: vault.root, transcript_path: garbage },
      { cwd: vault.root, transcript_path: 42 },
      "x".repeat(2 * 1024 * 1024),
    ];
    for (const input of inputs) {
      const run = hook("stop", env, input);
      expect(run.status, String(input).slice(0, 80)).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^llm-wiki hook: /);
    }
    expect(snapshotFiles(vault.root)).toEqual(before);
  });
});

const TASK_MARK = `task${randomInt(1e9)}`;
/** Text a client adds to the session that no user typed. */
const CONTEXT_MARK = `context${randomInt(1e9)}`;
