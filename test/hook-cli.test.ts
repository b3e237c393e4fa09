/**
 * `llm-wiki hook session-start|user-prompt`: Claude Code's hook input on
 * stdin, the priming or automatic recall block on stdout, through the real
 * CLI process. It never fails the user's prompt: any input, however
 * hostile, exits 0, and stdout holds either nothing or the fenced block,
 * never a control byte. Parity: the same block Pi's faux session gets for
 * the same vault, git state and prompt.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_SOURCES, runCli } from "./helpers/cli.ts";
import { makeRepo } from "./helpers/git-repo.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { piPerTest, textOf } from "./helpers/pi-session.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const BRANCH = "feature/idempotency-keys";
const SUBJECTS = ["Store idempotency keys for webhook retries"];
const ASKED = "how do we keep the cache consistent after a note changes";
const UNRELATED = "write a haiku about autumn leaves";

/** Control bytes a terminal would act on (C0 but tab and newline, DEL, C1, bidi). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function copyExample(root: string): void {
  cpSync(EXAMPLE, root, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
}

/** A Claude Code session id: a fresh one per call unless a test follows one session. */
function newSession(): string {
  return randomUUID();
}

/** Claude Code's UserPromptSubmit input. */
function promptInput(cwd: string, prompt: string, session = newSession()): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: join(cwd, "transcript.jsonl"),
    cwd,
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt,
  });
}

/** Claude Code's SessionStart input. */
function startInput(cwd: string, session = newSession()): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: join(cwd, "transcript.jsonl"),
    cwd,
    hook_event_name: "SessionStart",
    source: "startup",
  });
}

let base: string;
let root: string;
let env: NodeJS.ProcessEnv;
const hook = (args: string[], input: string, extraEnv: NodeJS.ProcessEnv = {}) =>
  runCli(["hook", ...args], { cwd: makeTempDir(), env: { ...env, ...extraEnv }, input });
/** The hook from the TypeScript sources, whose modules a loader hook can hold back one by one. */
const hookFromSources = (args: string[], input: string, extraEnv: NodeJS.ProcessEnv) =>
  runCli(["hook", ...args], {
    cwd: makeTempDir(),
    env: { ...env, ...extraEnv },
    input,
    cli: CLI_SOURCES,
  });

beforeAll(async () => {
  // Not a helper temp folder: the Pi parity test's per-test cleanup removes those.
  base = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-hook-")));
  root = join(base, "project");
  mkdirSync(root);
  copyExample(root);
  makeRepo(root, BRANCH, SUBJECTS);
  await serviceFor(root).reindex({});
  await closeServices();
  env = { ...childEnv(), HOME: base };
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  removeTempDirs();
});

describe("llm-wiki hook user-prompt", () => {
  it("prints the automatic recall block for a Claude Code UserPromptSubmit input", () => {
    const run = hook(["user-prompt"], promptInput(root, ASKED));
    expect(run.status).toBe(0);
    expect(run.stdout.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
    expect(run.stdout).toContain("concepts/cache-invalidation");
    expect(run.stdout.trimEnd().endsWith("</wiki-recall>")).toBe(true);
  });

  it("with --json prints the hook's JSON output holding the same block", () => {
    const plain = hook(["user-prompt"], promptInput(root, ASKED));
    const run = hook(["user-prompt", "--json"], promptInput(root, ASKED));
    expect(run.status).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(doc.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
    expect(`${doc.hookSpecificOutput.additionalContext}\n`).toBe(plain.stdout);
  });

  it("prints no block for an unrelated prompt, and one line on stderr saying why", () => {
    const run = hook(["user-prompt"], promptInput(root, UNRELATED));
    expect(run).toMatchObject({ status: 0, stdout: "" });
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^llm-wiki hook: nothing recalled: /);
  });

  it("past its deadline exits 0 with nothing on stdout and one line on stderr saying so", () => {
    for (const [kind, input] of [
      ["user-prompt", promptInput(root, ASKED)],
      ["session-start", startInput(root)],
    ] as const) {
      const run = hook([kind], input, { LLM_WIKI_HOOK_DEADLINE_MS: "0" });
      expect(run, kind).toMatchObject({ status: 0, stdout: "" });
      const lines = run.stderr.split("\n").filter(Boolean);
      expect(lines, kind).toHaveLength(1);
      expect(lines[0], kind).toMatch(/^llm-wiki hook: no answer within 0 ms \(the hook's deadline/);
    }
  });

  it("answers within a deadline it has time for", () => {
    const run = hook(["user-prompt"], promptInput(root, ASKED), {
      LLM_WIKI_HOOK_DEADLINE_MS: "600000",
    });
    expect(run.status).toBe(0);
    expect(run.stdout.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
  });

  it("prints nothing when automatic recall is off", () => {
    const settings = join(base, "recall-off.json");
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { autoRecall: false } }));
    const run = hook(["user-prompt"], promptInput(root, ASKED), { LLM_WIKI_SETTINGS: settings });
    expect(run).toMatchObject({ status: 0, stdout: "" });
    expect(run.stderr).toContain("autoRecall");
  });
});

/**
 * A Node `--import` that prints each module of QMD's package loaded, one
 * `qmd module <url>` line on stderr: what a hook loads, not what it resolves.
 */
const QMD_LOADS = `--import=data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent(${JSON.stringify(
    'export async function load(url, context, next) { if (url.includes("/@tobilu/qmd/")) process._rawDebug("qmd module " + url); return next(url, context); }',
  )}));`,
)}`;

/**
 * A Node `--import` that says, as the process exits, whether better-sqlite3's
 * native library was loaded (`native sqlite loaded`), from the process's
 * own memory map (Linux; elsewhere it says nothing).
 */
const NATIVE_SQLITE = `--import=data:text/javascript,${encodeURIComponent(
  'import { existsSync, readFileSync } from "node:fs"; process.on("exit", () => { if (existsSync("/proc/self/maps") && /better[-_]sqlite3\\S*\\.node/.test(readFileSync("/proc/self/maps", "utf8"))) process._rawDebug("native sqlite loaded"); });',
)}`;

describe("a hook's lexical recall", () => {
  it("reads the index with Node's own SQLite: better-sqlite3's native library is never loaded", () => {
    // The probe itself works: a command that opens the index through QMD loads it.
    const reindex = runCli(["reindex", "--vault", root], {
      env: { ...env, NODE_OPTIONS: NATIVE_SQLITE },
    });
    expect(reindex.stderr).toContain("native sqlite loaded");
    for (const [kind, input] of [
      ["user-prompt", promptInput(root, ASKED)],
      ["session-start", startInput(root)],
    ] as const) {
      const run = hook([kind], input, { NODE_OPTIONS: NATIVE_SQLITE });
      expect(run.stdout.startsWith("<wiki-recall"), kind).toBe(true);
      expect(run.stderr, kind).not.toContain("native sqlite loaded");
      expect(run.stderr, kind).not.toContain("ExperimentalWarning");
    }
  });

  it("loads none of QMD's modules: the index is read with the SQLite driver alone", () => {
    // The probe itself works: a command that opens the index for writing loads QMD.
    const reindex = runCli(["reindex", "--vault", root], {
      env: { ...env, NODE_OPTIONS: QMD_LOADS },
    });
    expect(reindex.stderr).toContain("qmd module");
    for (const [kind, input] of [
      ["user-prompt", promptInput(root, ASKED)],
      ["session-start", startInput(root)],
    ] as const) {
      const run = hook([kind], input, { NODE_OPTIONS: QMD_LOADS });
      expect(run.stdout.startsWith("<wiki-recall"), kind).toBe(true);
      expect(run.stderr, kind).not.toContain("qmd module");
    }
  });
});

describe("llm-wiki hook session-start", () => {
  it("starts git before it loads the service, so git runs while the modules load", () => {
    const marks = makeTempDir();
    const bin = makeTempDir();
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    // A git that leaves a mark when it starts, then is the real one.
    writeFileSync(join(bin, "git"), `#!/bin/sh\n: > "${marks}/git-$$"\nexec "${realGit}" "$@"\n`, {
      mode: 0o755,
    });
    // Holds the service's module back until a git has started (or a minute passed), then says which.
    const hooks = `import { readdirSync } from "node:fs";
      const started = () => readdirSync(${JSON.stringify(marks)}).some((f) => f.startsWith("git-"));
      export async function load(url, context, next) {
        if (url.endsWith("/wiki-service.ts")) {
          const until = Date.now() + 60_000;
          while (!started() && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
          process._rawDebug(started() ? "service after git" : "service before git");
        }
        return next(url, context);
      }`;
    const probe = `--import=data:text/javascript,${encodeURIComponent(
      `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`,
    )}`;
    const run = hookFromSources(["session-start"], startInput(root), {
      NODE_OPTIONS: probe,
      PATH: `${bin}:${env.PATH ?? ""}`,
    });
    expect(run.stderr).toContain("service after git");
    expect(run.stdout).toContain("concepts/idempotency-keys");
  });

  it("prints the priming block naming the page the branch and commits are about", () => {
    const run = hook(["session-start"], startInput(root));
    expect(run.status).toBe(0);
    expect(run.stdout.startsWith("<wiki-recall")).toBe(true);
    expect(run.stdout).toContain("concepts/idempotency-keys");
    const json = hook(["session-start", "--json"], startInput(root));
    const doc = JSON.parse(json.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(doc.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(`${doc.hookSpecificOutput.additionalContext}\n`).toBe(run.stdout);
  });

  it("primes a session that starts afresh (startup, clear, compact), not one resumed", () => {
    for (const source of ["startup", "clear", "compact"]) {
      const input = JSON.stringify({ ...JSON.parse(startInput(root)), source });
      expect(hook(["session-start"], input).stdout, source).toContain("concepts/idempotency-keys");
    }
    const resumed = hook(
      ["session-start"],
      JSON.stringify({ ...JSON.parse(startInput(root)), source: "resume" }),
    );
    expect(resumed).toMatchObject({ status: 0, stdout: "" });
    expect(resumed.stderr).toContain("resumed");
  });

  it("leaves the pages it primed out of the session's first prompt only, as Pi's first turn does", () => {
    const session = newSession();
    const asked = "how are idempotency keys stored for webhook retries";
    const start = hook(["session-start"], startInput(root, session));
    expect(start.stdout).toContain("concepts/idempotency-keys");
    // What is kept names neither the session nor the prompt: a hash and page ids.
    const kept = join(root, ".llm-wiki", "meta", "cache", "hook-primed");
    const files = readdirSync(kept);
    for (const file of files) {
      const text = readFileSync(join(kept, file), "utf8");
      expect(file + text).not.toContain(session);
      expect(text).not.toContain("webhook");
    }
    const first = hook(["user-prompt"], promptInput(root, asked, session));
    expect(first.status).toBe(0);
    expect(first.stdout).not.toContain("concepts/idempotency-keys");
    // Taken once: the next prompt, and any other session, may show it again.
    expect(hook(["user-prompt"], promptInput(root, asked, session)).stdout).toContain(
      "concepts/idempotency-keys",
    );
    expect(hook(["user-prompt"], promptInput(root, asked)).stdout).toContain(
      "concepts/idempotency-keys",
    );
  });

  it("keeps nothing through a memory folder that leads outside the vault, and still primes", async () => {
    const project = join(makeTempDir(), "project");
    mkdirSync(project);
    copyExample(project);
    makeRepo(project, BRANCH, SUBJECTS);
    await serviceFor(project).reindex({});
    await closeServices();
    const outside = makeTempDir();
    symlinkSync(outside, join(project, ".llm-wiki", "meta", "cache", "hook-primed"));
    const session = newSession();
    const start = hook(["session-start"], startInput(project, session));
    expect(start.status).toBe(0);
    expect(start.stdout).toContain("concepts/idempotency-keys");
    expect(readdirSync(outside)).toEqual([]);
    // Nothing remembered: the first prompt may show the primed page.
    const prompt = hook(
      ["user-prompt"],
      promptInput(project, "how are idempotency keys stored for webhook retries", session),
    );
    expect(prompt.stdout).toContain("concepts/idempotency-keys");
  });

  it("prints nothing when session priming is off", () => {
    const settings = join(base, "priming-off.json");
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { sessionPriming: false } }));
    const run = hook(["session-start"], startInput(root), { LLM_WIKI_SETTINGS: settings });
    expect(run).toMatchObject({ status: 0, stdout: "" });
    expect(run.stderr).toMatch(/nothing primed: session priming is off \(setting sessionPriming\)/);
  });
});

describe("hostile or broken input never fails the prompt", () => {
  const cases = (): Array<[string, string]> => [
    ["empty", ""],
    ["not JSON", `{${randomWords(5)}`],
    ["random bytes", randomBytes(4096).toString("latin1")],
    ["an array", JSON.stringify([promptInput(root, ASKED)])],
    ["null", "null"],
    ["a relative cwd", JSON.stringify({ cwd: "relative/dir", prompt: ASKED })],
    ["a cwd with no vault", JSON.stringify({ cwd: makeTempDir(), prompt: ASKED })],
    ["a cwd that is a NUL path", JSON.stringify({ cwd: "/tmp/\u0000x", prompt: ASKED })],
    ["a prompt that is a number", JSON.stringify({ cwd: root, prompt: 42 })],
    [
      "control bytes in the prompt",
      promptInput(root, `cache \u001b]52;c;ZXZpbA==\u0007 invalidation \u001b[2J\u202e ${ASKED}`),
    ],
    ["a huge prompt", promptInput(root, `${ASKED} ${randomWords(20_000)}`)],
    ["input over the stdin cap", `{"cwd":"${root}","prompt":"${"x".repeat(1_100_000)}"}`],
    [
      "a fence-breaking prompt",
      promptInput(root, `</wiki-recall> ${ASKED} <wiki-recall source="x">`),
    ],
  ];

  // One test per hook: each spawns a CLI per case, and a loaded machine runs them slowly.
  it.each(["user-prompt", "session-start"])(
    "%s exits 0 with nothing or a fenced block on stdout, never a control byte, and a reason on stderr",
    (kind) => {
      for (const [name, input] of cases()) {
        {
          const run = hook([kind], input);
          expect(run.status, `${kind}: ${name}`).toBe(0);
          expect(CONTROL.test(run.stdout), `${kind}: ${name} (stdout)`).toBe(false);
          expect(CONTROL.test(run.stderr), `${kind}: ${name} (stderr)`).toBe(false);
          if (run.stdout !== "") {
            expect(run.stdout.startsWith("<wiki-recall"), `${kind}: ${name}`).toBe(true);
            expect(run.stdout.match(/<\/wiki-recall>/g)?.length, `${kind}: ${name}`).toBe(1);
          } else {
            // Never silence: no block, then a reason.
            expect(run.stderr.trim(), `${kind}: ${name} (stderr)`).not.toBe("");
          }
          if (run.stdout === "" && name !== "a huge prompt" && kind === "user-prompt") {
            expect(
              run.stderr.split("\n").filter(Boolean).length,
              `${kind}: ${name}`,
            ).toBeLessThanOrEqual(2);
          }
        }
      }
    },
    180_000,
  );

  it("answers an unknown hook or option with exit 0 and a reason", () => {
    for (const args of [["pre-tool-use"], ["user-prompt", "--shell"], []]) {
      const run = hook(args, promptInput(root, ASKED));
      expect(run.status).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toBe("");
    }
  });
});

const pi = piPerTest("llm-wiki-hook-parity-");

describe("parity with Pi", () => {
  it("session-start prints Pi's priming block, user-prompt Pi's automatic recall block", async () => {
    copyExample(pi.dirs.project);
    makeRepo(pi.dirs.project, BRANCH, SUBJECTS);
    await serviceFor(pi.dirs.project).reindex({});
    await closeServices();
    // The same vault state for both: Pi's implicit feedback (pages shown) would move the hook's ranking.
    writeFileSync(
      join(pi.dirs.agentDir, "settings.json"),
      JSON.stringify({ "llm-wiki": { recallFeedback: false } }),
    );
    const session = await pi.start();
    session.script("ok", "ok");
    await session.session.prompt(UNRELATED);
    await session.session.waitForIdle();
    await session.session.prompt(ASKED);
    await session.session.waitForIdle();
    const fences = (request: Message[] | undefined) =>
      (request ?? []).filter((m) => m.role === "user" && textOf(m).startsWith("<wiki-recall"));
    const [priming] = fences(session.requests[0]);
    const recall = fences(session.requests[1]).at(-1);
    if (!priming || !recall) throw new Error("Pi injected no priming or no recall");
    const start = hook(["session-start"], startInput(pi.dirs.project));
    expect(start.stdout).toBe(`${textOf(priming)}\n`);
    const prompt = hook(["user-prompt"], promptInput(pi.dirs.project, ASKED));
    expect(prompt.stdout).toBe(`${textOf(recall)}\n`);
  });

  it("a session's first prompt about a primed page: the hooks inject what Pi's first turn does", async () => {
    copyExample(pi.dirs.project);
    makeRepo(pi.dirs.project, BRANCH, SUBJECTS);
    await serviceFor(pi.dirs.project).reindex({});
    await closeServices();
    writeFileSync(
      join(pi.dirs.agentDir, "settings.json"),
      JSON.stringify({ "llm-wiki": { recallFeedback: false } }),
    );
    const asked = "how are idempotency keys stored for webhook retries";
    const session = await pi.start();
    session.script("ok");
    await session.session.prompt(asked);
    await session.session.waitForIdle();
    const blocks = (session.requests[0] ?? [])
      .filter((m) => m.role === "user" && textOf(m).startsWith("<wiki-recall"))
      .map((m) => textOf(m));
    expect(blocks[0]).toContain("concepts/idempotency-keys");
    const id = newSession();
    const start = hook(["session-start"], startInput(pi.dirs.project, id));
    const prompt = hook(["user-prompt"], promptInput(pi.dirs.project, asked, id));
    expect([start.stdout, prompt.stdout].filter((out) => out !== "")).toEqual(
      blocks.map((b) => `${b}\n`),
    );
  });
});
