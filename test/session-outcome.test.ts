/**
 * A recorded session's outcome follows its tool calls, in every host: every
 * call failed → `failure`, some → `partial`, none → `success`, whatever the
 * agent said after them (issue 38: a session whose only call failed was
 * recorded as a success, and recall then offered it as the way to do the
 * task). Driven through the real CLI process (`hook stop` on Claude Code,
 * Codex and Gemini CLI transcripts, `trajectory capture`), the real MCP
 * server (`wiki_capture_trajectory`) and a real Pi session (its bash tool,
 * `wiki_capture_trajectory`, `/wiki-record`). An outcome the caller gives is
 * kept; a page that did not succeed says so in its title (one made from the
 * task), its description and the top of its body, which is what recall
 * shows. The cases are drawn from a seed (SESSION_OUTCOME_SEED replays one).
 */
import { randomInt } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Outcome } from "../extensions/llm-wiki/lib/trajectories/steps.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { runCli } from "./helpers/cli.ts";
import { CorpusRandom, HEX, LOWER } from "./helpers/corpus-random.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { piPerTest } from "./helpers/pi-session.ts";
import { makeTempDir, makeTempVault, type TempVault } from "./helpers/temp-vault.ts";

const SEED = Number(process.env.SESSION_OUTCOME_SEED) || randomInt(1, 2 ** 31);
const at = `seed ${SEED} (SESSION_OUTCOME_SEED replays it)`;
const r = new CorpusRandom(SEED);

const REPO = join(import.meta.dirname, "..");

// Fresh folders and a stubbed HOME for every test; the Pi specs start sessions in them.
const pi = piPerTest("llm-wiki-session-outcome-");

const word = () => r.chars(LOWER, r.between(5, 9));
const words = (n: number) => Array.from({ length: n }, word).join(" ");

type Kind = "all" | "some" | "none";
const KINDS: readonly Kind[] = ["all", "some", "none"];
const EXPECTED: Record<Kind, Outcome> = { all: "failure", some: "partial", none: "success" };
const WHICH: Record<Kind, string> = { all: "every", some: "some", none: "no" };

/** Which of `n` calls fail: every one, at least one but not all (n ≥ 2), or none. */
function failures(kind: Kind, n: number): boolean[] {
  if (kind === "all") return Array.from({ length: n }, () => true);
  if (kind === "none") return Array.from({ length: n }, () => false);
  const out = Array.from({ length: n }, () => r.int(2) === 0);
  const failing = r.int(n);
  out[failing] = true;
  out[(failing + 1 + r.int(n - 1)) % n] = false;
  return out;
}

interface Call {
  name: string;
  command: string;
  output: string;
  failed: boolean;
  /** How a client's transcript writes the call (see each transcript); random when unset. */
  form?: number;
}

function calls(kind: Kind, n = kind === "some" ? r.between(2, 7) : r.between(1, 5)): Call[] {
  return failures(kind, n).map((failed) => ({
    name: r.pick(["Bash", "Edit", "Read", "shell", "run_shell_command"]),
    command: `${word()} ${word()}`,
    output: words(3),
    failed,
  }));
}

/** What a page made from `task` must say for `calls`. */
function expectOutcome(
  page: ReturnType<typeof readPage>,
  task: string,
  given: readonly Call[],
  note: string,
) {
  const failed = given.filter((c) => c.failed).length;
  const outcome: Outcome =
    failed === 0 ? "success" : failed === given.length ? "failure" : "partial";
  const counted = `(${failed} of ${given.length} tool calls failed)`;
  expect(page.frontmatter.outcome, note).toBe(outcome);
  expect(page.body, note).toContain(
    `## Outcome\n\n${outcome}: ${given.length} tool calls (${failed} failed)`,
  );
  const description = String(page.frontmatter.description);
  if (outcome === "failure") {
    expect(page.title, note).toBe(`Failed: ${task}`);
    expect(description, note).toBe(
      `Failed attempt ${counted}: what did not work, not a recipe. Task: ${task}`,
    );
    expect(page.body, note).toContain(`_Failed attempt ${counted}`);
  } else if (outcome === "partial") {
    expect(page.title, note).toBe(`Partly failed: ${task}`);
    expect(description.startsWith(`Partly failed ${counted}: `), note).toBe(true);
    expect(description.endsWith(`Task: ${task}`), note).toBe(true);
    expect(page.body, note).toContain(`_Partly failed ${counted}`);
  } else {
    expect(page.title, note).toBe(task);
    expect(description, note).toBe(task);
    expect(page.body, note).not.toMatch(/failed \(|Failed/);
  }
}

function readPage(root: string, file: string) {
  const rel = `wiki/trajectories/${file}`;
  const bytes = readFileSync(join(root, ".llm-wiki", rel));
  const parsed = parsePage(`trajectories/${file.replace(/\.md$/, "")}`, rel, bytes);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
  return { title: parsed.page.title, frontmatter: parsed.page.frontmatter, body: parsed.page.body };
}

function trajectoryFiles(root: string): string[] {
  try {
    return readdirSync(join(root, ".llm-wiki", "wiki", "trajectories")).sort();
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------- transcripts

const FINAL = "All done: the task is finished and everything worked.";

/** Claude Code: a failed call is `is_error`, or only `<tool_use_error>` text (both are read). */
function claudeTranscript(task: string, given: readonly Call[]): string {
  const lines: unknown[] = [
    { type: "user", sessionId: "s", message: { role: "user", content: task } },
  ];
  given.forEach((c, i) => {
    lines.push({
      type: "assistant",
      message: {
        role: "assistant",
        model: "claude-test",
        content: [
          { type: "text", text: words(3) },
          { type: "tool_use", id: `toolu_${i}`, name: c.name, input: { command: c.command } },
        ],
      },
    });
    // Form 0: the failure only in the text; else `is_error`.
    const flagged = (c.form ?? r.int(3)) !== 0;
    const text = c.failed && !flagged ? `<tool_use_error>${c.output}</tool_use_error>` : c.output;
    lines.push({
      type: "user",
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: `toolu_${i}`,
            content: r.int(2) === 0 ? text : [{ type: "text", text }],
            ...(c.failed && flagged ? { is_error: true } : {}),
          },
        ],
      },
    });
  });
  lines.push({ type: "assistant", message: { role: "assistant", content: FINAL } });
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

/**
 * Codex: the exit code in the shell tool's JSON, or in the text header of
 * `shell_command` / `apply_patch` (`Exit code: N`) or `exec_command`
 * (`Process exited with code N`); a command's own output may print either
 * line without being its exit code.
 */
function codexOutput(c: Call): string {
  const code = c.failed ? r.between(1, 127) : 0;
  const printed = `Exit code: ${r.between(1, 9)}\nProcess exited with code ${r.between(1, 9)}`;
  const output = `${c.output}\n${printed}`;
  const wall = `Wall time: 0.${r.between(1, 9)} seconds`;
  switch (c.form ?? r.int(3)) {
    case 0:
      return JSON.stringify({ output, metadata: { exit_code: code, duration_seconds: 0.1 } });
    case 1:
      return `Exit code: ${code}\n${wall}\nOutput:\n${output}`;
    default:
      return `Chunk ID: ${r.chars(HEX, 6)}\n${wall}\nProcess exited with code ${code}\nOriginal token count: ${r.between(1, 99)}\nOutput:\n${output}`;
  }
}

function codexTranscript(task: string, given: readonly Call[]): string {
  const item = (payload: unknown) =>
    JSON.stringify({ timestamp: "t", type: "response_item", payload });
  const lines = [
    JSON.stringify({ type: "session_meta", payload: { id: "x" } }),
    JSON.stringify({ type: "turn_context", payload: { model: "gpt-test" } }),
    item({ type: "message", role: "user", content: [{ type: "input_text", text: task }] }),
  ];
  given.forEach((c, i) => {
    lines.push(
      item({
        type: "function_call",
        name: c.name,
        arguments: JSON.stringify({ command: c.command }),
        call_id: `call_${i}`,
      }),
      item({ type: "function_call_output", call_id: `call_${i}`, output: codexOutput(c) }),
    );
  });
  lines.push(
    item({ type: "message", role: "assistant", content: [{ type: "output_text", text: FINAL }] }),
  );
  return `${lines.join("\n")}\n`;
}

function geminiTranscript(task: string, given: readonly Call[]): string {
  return JSON.stringify({
    sessionId: "g",
    messages: [
      { id: "1", type: "user", content: task },
      {
        id: "2",
        type: "gemini",
        content: words(3),
        toolCalls: given.map((c, i) => ({
          id: `t${i}`,
          name: c.name,
          args: { command: c.command },
          resultDisplay: c.output,
          status: c.failed ? ["error", "cancelled"][(c.form ?? r.int(2)) % 2] : "success",
        })),
      },
      { id: "3", type: "gemini", content: FINAL },
    ],
  });
}

const FORMATS = {
  "claude-code": claudeTranscript,
  codex: codexTranscript,
  gemini: geminiTranscript,
} as const;

function hookEnv(): NodeJS.ProcessEnv {
  const home = makeTempDir("llm-wiki-session-outcome-home-");
  mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
  writeFileSync(
    join(home, ".config", "llm-wiki", "settings.json"),
    JSON.stringify({ "llm-wiki": { trajectories: true } }),
  );
  return { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
}

function stop(env: NodeJS.ProcessEnv, vault: TempVault, transcript: string, session: string) {
  const run = runCli(["hook", "stop"], {
    env,
    input: JSON.stringify({
      session_id: session,
      transcript_path: transcript,
      cwd: vault.root,
      hook_event_name: "Stop",
    }),
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run;
}

describe(`hook stop records the outcome the tool calls show (${at})`, () => {
  for (const kind of KINDS) {
    it(`${EXPECTED[kind]} when ${WHICH[kind]} tool call failed, in each client's transcript`, () => {
      const env = hookEnv();
      for (const [format, make] of Object.entries(FORMATS)) {
        const vault = makeTempVault();
        const task = words(4);
        const given = calls(kind);
        const note = `${format}, ${given.map((c) => (c.failed ? "x" : "o")).join("")}, ${at}`;
        const transcript = join(makeTempDir("llm-wiki-transcript-"), "session.jsonl");
        writeFileSync(transcript, make(task, given));
        expect(stop(env, vault, transcript, word()).stderr, note).toMatch(/trajectory created/);
        const files = trajectoryFiles(vault.root);
        expect(files, note).toHaveLength(1);
        expectOutcome(readPage(vault.root, files[0] as string), task, given, note);
      }
    });
  }

  it("each client's way of marking a failed call counts, and a command's printed exit code does not", () => {
    const env = hookEnv();
    const forms = { "claude-code": 2, codex: 3, gemini: 2 } as const;
    for (const [format, make] of Object.entries(FORMATS)) {
      const vault = makeTempVault();
      const task = words(4);
      // Every form failed and every form succeeded, in a random order.
      const count = forms[format as keyof typeof forms];
      const given: Call[] = Array.from({ length: count * 2 }, (_, i) => ({
        ...(calls("none", 1)[0] as Call),
        failed: i < count,
        form: i % count,
      }));
      for (let i = given.length - 1; i > 0; i--) {
        const j = r.int(i + 1);
        [given[i], given[j]] = [given[j] as Call, given[i] as Call];
      }
      const note = `${format}, ${JSON.stringify(given.map((c) => [c.failed, c.form]))}, ${at}`;
      const transcript = join(makeTempDir("llm-wiki-transcript-"), "session.jsonl");
      writeFileSync(transcript, make(task, given));
      stop(env, vault, transcript, word());
      const [file] = trajectoryFiles(vault.root);
      const page = readPage(vault.root, file as string);
      expectOutcome(page, task, given, note);
      // Each failed call is marked on its own step, and no other is.
      const marks = page.body.split("\n").filter((l) => /^\d+\. \*\*/.test(l));
      expect(
        marks.map((l) => l.includes(" → error")),
        note,
      ).toEqual(given.map((c) => c.failed));
    }
  });

  it("a Claude Code session whose only call failed is a failure, and recall shows it as one", () => {
    const env = hookEnv();
    const vault = makeTempVault();
    const task = words(4);
    const only: Call[] = [{ ...calls("all", 1)[0], failed: true } as Call];
    const transcript = join(makeTempDir("llm-wiki-transcript-"), "session.jsonl");
    writeFileSync(transcript, claudeTranscript(task, only));
    const session = word();
    stop(env, vault, transcript, session);
    const [file] = trajectoryFiles(vault.root);
    expectOutcome(readPage(vault.root, file as string), task, only, at);

    // What a model is shown for the same question says the attempt failed.
    const recalled = runCli(["recall", task, "--vault", vault.root], { env, timeout: 60_000 });
    expect(recalled.status, recalled.stderr).toBe(0);
    expect(recalled.stdout, at).toContain(`Failed: ${task}`);
    expect(recalled.stdout, at).toContain("Failed attempt (1 of 1 tool calls failed)");

    // The session goes on and its later calls work: the same page, now partial.
    const more = calls("none");
    writeFileSync(transcript, claudeTranscript(task, [...only, ...more]));
    expect(stop(env, vault, transcript, session).stderr, at).toMatch(/trajectory updated/);
    expect(trajectoryFiles(vault.root)).toEqual([file]);
    expectOutcome(readPage(vault.root, file as string), task, [...only, ...more], at);
    const events = readFileSync(vault.paths.events, "utf8").trim().split("\n");
    const outcomes = events
      .map((l) => JSON.parse(l) as { kind?: string; outcome?: string })
      .filter((e) => e.kind?.startsWith("trajectory_"))
      .map((e) => `${e.kind}:${e.outcome}`);
    expect(outcomes, at).toEqual(["trajectory_captured:failure", "trajectory_updated:partial"]);
  });
});

// ---------------------------------------------------------------- explicit capture

/** Steps as an MCP client or `trajectory capture` passes them. */
function stepsOf(task: string, given: readonly Call[]) {
  return [
    { role: "user", text: task },
    ...given.flatMap((c) => [
      { role: "assistant", text: words(2) },
      {
        role: "tool",
        tool: c.name,
        args: { command: c.command },
        text: c.output,
        ...(c.failed ? { error: true } : r.int(2) === 0 ? { error: false } : {}),
      },
    ]),
    { role: "assistant", text: FINAL },
  ];
}

/** An outcome other than `not`, as a caller might state it. */
function otherOutcome(not: Outcome): Outcome {
  return r.pick((["success", "failure", "partial"] as const).filter((o) => o !== not));
}

describe(`trajectory capture on the command line (${at})`, () => {
  it("derives the outcome from the steps' errors, and keeps one the caller gives", () => {
    const vault = makeTempVault();
    const settings = join(makeTempDir("llm-wiki-session-outcome-settings-"), "settings.json");
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { trajectories: true } }));
    const env = {
      HOME: vault.root,
      WIKI_HOME: join(vault.root, "none"),
      LLM_WIKI_SETTINGS: settings,
    };
    const capture = (steps: unknown, extra: string[] = []) => {
      const run = runCli(["trajectory", "capture", "--steps", "-", "--json", ...extra], {
        cwd: vault.root,
        env,
        input: JSON.stringify(steps),
      });
      expect(run.status, run.stderr).toBe(0);
      const path = (JSON.parse(run.stdout) as { path: string }).path;
      return readPage(vault.root, path.split("/").at(-1) as string);
    };
    for (const kind of KINDS) {
      const task = words(4);
      const given = calls(kind);
      const note = `${kind}, ${at}`;
      expectOutcome(capture(stepsOf(task, given)), task, given, note);
      const stated = otherOutcome(EXPECTED[kind]);
      const kept = capture(stepsOf(task, given), ["--outcome", stated]);
      expect(kept.frontmatter.outcome, note).toBe(stated);
    }
  });
});

describe(`wiki_capture_trajectory over MCP (${at})`, () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it("derives the outcome from the steps' errors, keeps a stated outcome and the caller's title", async () => {
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-session-outcome-mcp-home-");
    mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
    writeFileSync(
      join(home, ".config", "llm-wiki", "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories: true } }),
    );
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SERVER, "--vault", vault.root],
        cwd: REPO,
        env: { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
        stderr: "pipe",
      }),
    );
    clients.push(client);
    const capture = async (args: Record<string, unknown>) => {
      const result = (await client.callTool({
        name: "wiki_capture_trajectory",
        arguments: args,
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const path = (result.structuredContent as { path: string }).path;
      return readPage(vault.root, path.split("/").at(-1) as string);
    };
    for (const kind of KINDS) {
      const task = words(4);
      const given = calls(kind);
      const note = `${kind}, ${at}`;
      expectOutcome(await capture({ steps: stepsOf(task, given) }), task, given, note);

      // The caller's title stays as given; the description still says how it went.
      const title = `Do ${words(2)}`;
      const titled = await capture({ title, steps: stepsOf(task, given) });
      expect(titled.title, note).toBe(title);
      expect(titled.frontmatter.outcome, note).toBe(EXPECTED[kind]);
      if (kind !== "none")
        expect(String(titled.frontmatter.description), note).toMatch(
          /^(Failed attempt|Partly failed) \(/,
        );

      const stated = otherOutcome(EXPECTED[kind]);
      const kept = await capture({ outcome: stated, steps: stepsOf(task, given) });
      expect(kept.frontmatter.outcome, note).toBe(stated);
    }
  });
});

// ---------------------------------------------------------------- Pi

describe(`working memory in Pi (${at})`, () => {
  function piVault(): void {
    makeTempVault({ root: pi.dirs.project });
    writeFileSync(
      join(pi.dirs.agentDir, "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories: true } }),
    );
  }

  /** The bash calls for `given`: a failed call exits non-zero, so Pi marks its result an error. */
  function bashCalls(given: readonly Call[]) {
    return given.map((c) =>
      fauxToolCall("bash", {
        command: c.failed ? `echo ${c.output}; exit ${r.between(1, 9)}` : `echo ${c.output}`,
      }),
    );
  }

  it("wiki_capture_trajectory without an outcome records the one the session's calls show", async () => {
    piVault();
    const harness = await pi.start();
    const stated = new Map<string, Outcome>();
    for (const kind of KINDS) {
      const given = calls(kind).map((c) => ({ ...c, name: "bash" }));
      const title = `Task ${word()}`;
      harness.script(...bashCalls(given), fauxToolCall("wiki_capture_trajectory", { title }), "ok");
      await harness.session.prompt(`please ${words(3)}`);
      stated.set(title, EXPECTED[kind]);
      // A stated outcome is kept, whatever the calls show.
      const keptTitle = `Kept ${word()}`;
      const keep = otherOutcome(EXPECTED[kind]);
      harness.script(
        ...bashCalls(given),
        fauxToolCall("wiki_capture_trajectory", { title: keptTitle, outcome: keep }),
        "ok",
      );
      await harness.session.prompt(`please ${words(3)}`);
      stated.set(keptTitle, keep);
    }
    const pages = trajectoryFiles(pi.dirs.project).map((f) => readPage(pi.dirs.project, f));
    expect(pages.map((p) => p.title).sort()).toEqual([...stated.keys()].sort());
    for (const page of pages) {
      expect(page.frontmatter.outcome, `${page.title}, ${at}`).toBe(stated.get(page.title));
      expect(page.frontmatter.tools, at).toEqual(["bash"]);
    }
  });

  it("/wiki-record titles a failed task as one", async () => {
    piVault();
    const harness = await pi.start();
    for (const kind of KINDS) {
      const given = calls(kind).map((c) => ({ ...c, name: "bash" }));
      const task = `please ${words(3)}`;
      harness.script(...bashCalls(given), "done, it all worked");
      await harness.session.prompt(task);
      await harness.session.prompt("/wiki-record");
      const files = trajectoryFiles(pi.dirs.project);
      const page = readPage(pi.dirs.project, files.at(-1) as string);
      expectOutcome(page, task, given, `${kind}, ${at}`);
    }
    expect(trajectoryFiles(pi.dirs.project)).toHaveLength(KINDS.length);
  });
});
