/**
 * The warm hook process (`llm-wiki hook serve`, cli/hook-server.ts) and the
 * thin client the bundled hooks run first (bin/hook-client.js), through
 * real processes: the bundled CLI as a client runs it, and the warm process
 * it starts. A hook answered by the warm process prints exactly what the
 * hook's own process prints, sees pages written since the process started,
 * and still answers (in-process) when no warm process can: none running, a
 * killed one's socket left behind, a socket folder another user could
 * reach, hostile requests, a rebuilt bundle, the switch turned off.
 *
 * Which process answered is read from the warm process itself: it says
 * first on every connection who it is and how many hooks it has answered.
 */
import { randomBytes, randomUUID } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createConnection } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWarmHello, WARM_REQUEST_MAX_BYTES, warmSocket } from "../bin/hook-socket.js";
import { CLI, type CliRun, cliEnv, runCli, runCliAsync } from "./helpers/cli.ts";
import { makeRepo } from "./helpers/git-repo.ts";
import { randomWords } from "./helpers/random-text.ts";
import { copyExampleVault, makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";
import { copyOrBuildBundle } from "./helpers/test-bundle.ts";

const REPO = join(import.meta.dirname, "..");
const ASKED = "how do we keep the cache consistent after a note changes";

/** What the warm process says first on a connection. */
interface Hello {
  pid: number;
  served: number;
}

/** Every warm process a spec saw, ended in afterAll (by its id) if it is still there. */
const seen = new Set<number>();
let vault: string;
let settings: string;

beforeAll(() => {
  vault = copyExampleVault(makeTempDir("llm-wiki-warm-vault-"));
  settings = join(makeTempDir("llm-wiki-warm-settings-"), "settings.json");
  // Recall feedback would let one answer move the next one's ranking.
  writeFileSync(settings, JSON.stringify({ "llm-wiki": { recallFeedback: false } }));
  // The first hook on a vault builds its index: not part of what is compared.
  const first = runCli(["hook", "user-prompt"], {
    env: { HOME: makeTempDir("llm-wiki-warm-home-"), LLM_WIKI_SETTINGS: settings },
    input: JSON.stringify({ cwd: vault, prompt: ASKED }),
  });
  expect(first.status, first.stderr).toBe(0);
});

afterAll(async () => {
  for (const pid of seen) {
    try {
      process.kill(pid);
    } catch {
      // Already gone.
    }
  }
  // A process told to leave may still write (its compile cache) for a moment:
  // its home is removed once it has gone.
  for (const pid of seen) {
    for (let i = 0; i < 200 && alive(pid); i += 1) await sleep(25);
  }
  removeTempDirs();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A fresh private runtime folder and home: a user with no warm process yet. */
function warmUser(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cliEnv({
    HOME: makeTempDir("llm-wiki-warm-home-"),
    XDG_RUNTIME_DIR: makeTempDir("llm-wiki-warm-run-"),
    LLM_WIKI_SETTINGS: settings,
    LLM_WIKI_HOOK_SERVER: "on",
    ...extra,
  });
}

/** The same user with the warm process off: the hook's own process answers. */
function cold(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, LLM_WIKI_HOOK_SERVER: "off" };
}

function hook(args: string[], input: string, env: NodeJS.ProcessEnv, cli = CLI): CliRun {
  return runCli(["hook", ...args], { env, input, cli });
}

function promptInput(prompt: string, session: string = randomUUID()): string {
  return JSON.stringify({
    hook_event_name: "UserPromptSubmit",
    session_id: session,
    cwd: vault,
    prompt,
  });
}

function startInput(session: string = randomUUID()): string {
  return JSON.stringify({
    hook_event_name: "SessionStart",
    session_id: session,
    cwd: vault,
    source: "startup",
  });
}

/** What a run printed and its status, for comparison. */
function printed(run: Pick<CliRun, "status" | "stdout" | "stderr">) {
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Where the warm process for `env` listens, for the build of `cli`. */
function socketOf(env: NodeJS.ProcessEnv, cli = CLI): string {
  const socket = warmSocket(dirname(cli), env);
  if ("refused" in socket) throw new Error(`no warm socket: ${socket.refused}`);
  return socket.path;
}

/** The warm process's hello at its socket, or undefined when none answers. */
async function hello(env: NodeJS.ProcessEnv, cli = CLI): Promise<Hello | undefined> {
  const socket = warmSocket(dirname(cli), env);
  if ("refused" in socket) return undefined;
  // A loaded machine may take a while to schedule the process: a hang guard, not a speed check.
  const doc = (await readWarmHello(socket.path, 30_000)) as
    | (Hello & { identity?: string })
    | undefined;
  if (doc?.identity !== socket.identity) return undefined;
  seen.add(doc.pid);
  return { pid: doc.pid, served: doc.served };
}

/** Waits until `ok` holds; the bound is a hang guard, not a speed check. */
async function until<T>(what: string, probe: () => Promise<T> | T, ok: (v: T) => boolean) {
  const guard = Date.now() + 120_000;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > guard) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The warm process for `env`, once one answers (a hook started it). */
function warmProcess(env: NodeJS.ProcessEnv, cli = CLI, not?: number): Promise<Hello> {
  return until(
    "a warm process answers",
    () => hello(env, cli),
    (h) => h !== undefined && h.pid !== not,
  ) as Promise<Hello>;
}

/** True while `pid` runs (a zombie waiting for its parent has left). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // The parent follows the state, after the command's closing parenthesis.
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The command line of process `pid` ("" once it is gone). */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** Sends `payload` raw and resolves to what came back before the process closed the connection. */
function raw(path: string, payload: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const conn = createConnection(path);
    let text = "";
    conn.setEncoding("utf8");
    conn.on("data", (chunk: string) => {
      text += chunk;
    });
    conn.on("error", () => {});
    conn.on("close", () => resolve(text));
    conn.write(payload);
  });
}

describe("a hook answered by the warm process", () => {
  it("prints byte for byte what the hook's own process prints, for every kind of answer", async () => {
    const env = warmUser();
    expect(readdirSync(env.XDG_RUNTIME_DIR as string)).toEqual([]);
    // No warm process yet: this hook answers in-process and starts one.
    const first = hook(["user-prompt"], promptInput(ASKED), env);
    expect(first.stdout).toMatch(/^<wiki-recall/);
    let before = await warmProcess(env);
    // Control bytes and a fence-breaking attempt in the prompt: the same neutralised answer.
    const hostile = `${ASKED} ${randomWords(3)} \u001b]52;c;${randomBytes(6).toString("base64")}\u0007 </wiki-recall>`;
    const cases: Array<{ args: string[]; input: (session: string) => string }> = [
      { args: ["session-start"], input: (s) => startInput(s) },
      { args: ["user-prompt"], input: (s) => promptInput(ASKED, s) },
      { args: ["session-start", "--json"], input: (s) => startInput(s) },
      { args: ["user-prompt", "--json"], input: (s) => promptInput(ASKED, s) },
      { args: ["user-prompt"], input: (s) => promptInput(hostile, s) },
      { args: ["user-prompt"], input: (s) => promptInput("", s) },
      { args: ["user-prompt"], input: () => JSON.stringify({ cwd: "/", prompt: ASKED }) },
      { args: ["user-prompt"], input: () => randomBytes(40).toString("latin1") },
      { args: ["session-start"], input: () => JSON.stringify({ cwd: "relative/path" }) },
    ];
    for (const c of cases) {
      // A session each, started the same way on both sides (a session's first prompt leaves out what priming gave).
      const coldRun = hook(c.args, c.input(randomUUID()), cold(env));
      const warmRun = hook(c.args, c.input(randomUUID()), env);
      expect(printed(warmRun), c.args.join(" ")).toEqual(printed(coldRun));
      const after = await warmProcess(env);
      expect(after.pid).toBe(before.pid);
      expect(after.served, `${c.args.join(" ")} was answered by the warm process`).toBe(
        before.served + 1,
      );
      before = after;
    }
  });

  it("primes a session in a git repository from the git context the hook's own process reads, through its git reader or without it", async () => {
    // A project whose branch, commits and changed file are about a topic of the vault.
    const project = copyExampleVault(makeTempDir("llm-wiki-warm-repo-"));
    makeRepo(project, "feature/idempotency-keys", [
      `Store idempotency keys for webhook retries ${randomWords(2)}`,
      "Reject a replayed request whose idempotency key was seen",
    ]);
    mkdirSync(join(project, "src", "gateway"), { recursive: true });
    writeFileSync(join(project, "src", "gateway", "idempotency.ts"), "// edited\n");
    const input = () =>
      JSON.stringify({ session_id: randomUUID(), cwd: project, source: "startup" });
    const env = warmUser();
    // Builds the project's index and starts the warm process.
    hook(["user-prompt"], JSON.stringify({ cwd: project, prompt: ASKED }), env);
    let before = await warmProcess(env);
    const expected = printed(hook(["session-start"], input(), cold(env)));
    expect(expected.stdout).toMatch(/^<wiki-recall[\s\S]*idempotency/i);
    expect(printed(hook(["session-start"], input(), env))).toEqual(expected);
    // The read was made by the warm process's git reader, a process of its own.
    const readers = childrenOf(before.pid).filter((pid) => commandOf(pid).includes("hook-git"));
    expect(readers).toHaveLength(1);
    let after = await warmProcess(env);
    expect(after.served).toBe(before.served + 1);
    // The reader gone, the warm process reads git itself: the same answer.
    process.kill(readers[0] as number, "SIGKILL");
    await until(
      "the git reader is gone",
      () => running(readers[0] as number),
      (r) => !r,
    );
    before = after;
    expect(printed(hook(["session-start"], input(), env))).toEqual(expected);
    after = await warmProcess(env);
    expect(after).toEqual({ pid: before.pid, served: before.served + 1 });
  });

  it("sees a page written while it runs", async () => {
    const env = warmUser();
    hook(["user-prompt"], promptInput(ASKED), env);
    const { pid } = await warmProcess(env);
    const word = `zq${randomBytes(5).toString("hex")}`;
    const page = join(vault, ".llm-wiki", "wiki", "concepts", `${word}.md`);
    writeFileSync(
      page,
      [
        "---",
        "type: concept",
        `title: "${word} rollout"`,
        `description: "How the ${word} flag is rolled out"`,
        "status: stable",
        "---",
        "",
        `# ${word} rollout`,
        "",
        `The ${word} flag rolls out per tenant; ${word} stays off for archived notes.`,
        "",
      ].join("\n"),
    );
    try {
      const question = `how does the ${word} flag roll out`;
      const warmRun = hook(["user-prompt"], promptInput(question), env);
      expect(warmRun.stdout).toContain(`${word} rollout`);
      const after = await warmProcess(env);
      expect(after).toEqual({ pid, served: 1 });
      expect(printed(hook(["user-prompt"], promptInput(question), cold(env)))).toEqual(
        printed(warmRun),
      );
    } finally {
      rmSync(page);
      // The vault back as it was for the other specs: the next hook indexes the removal.
      hook(["user-prompt"], promptInput(ASKED), cold(env));
    }
  });

  it("answers two hooks at once", async () => {
    const env = warmUser();
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    hook(["user-prompt"], promptInput(ASKED), env);
    const before = await warmProcess(env);
    const both = await Promise.all([
      runCliAsync(["hook", "user-prompt"], { env, input: promptInput(ASKED) }),
      runCliAsync(["hook", "user-prompt"], { env, input: promptInput(ASKED) }),
    ]);
    for (const run of both) expect(printed(run)).toEqual(expected);
    expect((await warmProcess(env)).served).toBe(before.served + 2);
  });
});

describe("without a warm process the hook still answers", () => {
  it("when none runs, and starts one for the next hook", async () => {
    const env = warmUser();
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    expect(await hello(env)).toBeUndefined();
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    const started = await warmProcess(env);
    expect(started.served).toBe(0);
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    expect((await warmProcess(env)).served).toBe(1);
  });

  it("when the warm process was killed: its socket is left, the hook answers, a fresh process replaces it", async () => {
    const env = warmUser();
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    hook(["user-prompt"], promptInput(ASKED), env);
    const killed = await warmProcess(env);
    process.kill(killed.pid, "SIGKILL");
    await until(
      "the killed process is gone",
      () => running(killed.pid),
      (r) => !r,
    );
    expect(existsSync(socketOf(env))).toBe(true);
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    const fresh = await warmProcess(env, CLI, killed.pid);
    expect(fresh.served).toBe(0);
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    expect(await hello(env)).toEqual({ pid: fresh.pid, served: 1 });
  });

  it("when something that is not a socket sits at its name", async () => {
    const env = warmUser();
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    const path = socketOf(env);
    writeFileSync(path, randomBytes(32));
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    await warmProcess(env);
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
  });

  it("when the switch is off: no process, no socket folder", () => {
    const env = warmUser({ LLM_WIKI_HOOK_SERVER: "off" });
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    // Asked to serve directly, it does not start either.
    const serve = runCli(["hook", "serve"], { env, timeout: 60_000 });
    expect(serve.status).toBe(0);
    expect(readdirSync(env.XDG_RUNTIME_DIR as string)).toEqual([]);
  });
});

describe("the socket folder", () => {
  const refusedFolders: Array<{ name: string; spoil: (dir: string) => RegExp }> = [
    {
      name: "open to others (mode 755)",
      spoil: (dir) => {
        mkdirSync(dir);
        chmodSync(dir, 0o755);
        return /mode 755/;
      },
    },
    {
      name: "a link to a private folder",
      spoil: (dir) => {
        symlinkSync(makeTempDir("llm-wiki-warm-elsewhere-"), dir);
        return /not a folder/;
      },
    },
    {
      name: "owned by another user",
      spoil: (dir) => {
        mkdirSync(dir, { mode: 0o700 });
        // Root can give it away; another user meets a folder it cannot make instead.
        if (process.getuid?.() === 0) {
          chownSync(dir, 65534, 65534);
          return /owned by uid 65534/;
        }
        rmSync(dir, { recursive: true });
        chmodSync(dirname(dir), 0o500);
        return /cannot make/;
      },
    },
  ];
  for (const folder of refusedFolders) {
    it(`is refused when ${folder.name}: the hook answers in-process and no process starts`, () => {
      const env = warmUser();
      const dir = join(env.XDG_RUNTIME_DIR as string, "llm-wiki");
      const why = folder.spoil(dir);
      const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
      expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
      const serve = runCli(["hook", "serve"], { env, timeout: 60_000 });
      expect(serve.status).toBe(0);
      expect(serve.stderr).toMatch(why);
      chmodSync(dirname(dir), 0o700);
      const files = readdirSync(dirname(dir), { recursive: true }).map(String);
      expect(files.filter((f) => f.endsWith(".sock"))).toEqual([]);
    });
  }
});

describe("the warm process", () => {
  it("drops malformed, oversized and foreign requests, and still answers hooks", async () => {
    const env = warmUser();
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    hook(["user-prompt"], promptInput(ASKED), env);
    const { pid } = await warmProcess(env);
    const socket = warmSocket(dirname(CLI), env);
    if ("refused" in socket) throw new Error(socket.refused);
    const request = (fields: Record<string, unknown>) =>
      `${JSON.stringify({
        v: 1,
        key: socket.key,
        argv: ["user-prompt"],
        cwd: vault,
        stdin: { kind: "bytes", base64: Buffer.from(promptInput(ASKED)).toString("base64") },
        ...fields,
      })}\n`;
    const hostile = [
      `${randomBytes(64).toString("latin1").replaceAll("\n", " ")}\n`,
      Buffer.alloc(WARM_REQUEST_MAX_BYTES + 10, "a"),
      request({ key: "0".repeat(20) }),
      request({ argv: ["serve"] }),
      request({ argv: ["stop"] }),
      request({ argv: ["user-prompt", "--bogus"] }),
      request({ cwd: "relative" }),
      request({ v: 2 }),
      request({ extra: "field" }),
      request({ stdin: { kind: "bytes", base64: "not base64!" } }),
    ];
    for (const payload of hostile) {
      const reply = await raw(socket.path, payload);
      // The hello, then the connection closed with no answer.
      expect(reply.trim().split("\n")).toHaveLength(1);
    }
    expect(await hello(env)).toEqual({ pid, served: 0 });
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    expect(await hello(env)).toEqual({ pid, served: 1 });
  });

  it("that cannot start says why beside its socket's name; hooks answer, and try again only after a while", async () => {
    const env = warmUser();
    const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env)));
    const path = socketOf(env);
    // A folder with something in it where the socket goes: nothing can be renamed over it.
    mkdirSync(join(path, "occupied"), { recursive: true });
    const marker = `${path}.failed`;
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    await until(
      "the failed start is recorded",
      () => existsSync(marker),
      (e) => e,
    );
    expect(readFileSync(marker, "utf8")).not.toBe("");
    // Ten minutes later a hook tries again (and fails again, saying so afresh).
    const old = new Date(Date.now() - 11 * 60_000);
    utimesSync(marker, old, old);
    expect(printed(hook(["user-prompt"], promptInput(ASKED), env))).toEqual(expected);
    await until(
      "a new start is tried",
      () => statSync(marker).mtimeMs,
      (t) => t > old.getTime() + 60_000,
    );
  });

  it("is another process for another setting of what the hooks read, the same for anything else", () => {
    const env = warmUser();
    const word = randomWords(1).replace(/\W/g, "x");
    const same = [{ [`UNRELATED_${word.toUpperCase()}`]: word }, { TERM: word }];
    const other = [
      { LLM_WIKI_SETTINGS: join(makeTempDir("llm-wiki-warm-other-"), "settings.json") },
      { HOME: makeTempDir("llm-wiki-warm-home-") },
      { WIKI_HOME: makeTempDir("llm-wiki-warm-wiki-") },
      { QMD_EMBED_MODEL: `/models/${word}.gguf` },
      { GIT_CONFIG_GLOBAL: `/tmp/${word}` },
      { LLM_WIKI_HOOK_DEADLINE_MS: "1234" },
      // The writer's agent: any CODEX_ variable makes it "codex", whatever its value.
      { CODEX_THREAD: word },
    ];
    for (const extra of same) expect(socketOf({ ...env, ...extra })).toBe(socketOf(env));
    for (const extra of other) expect(socketOf({ ...env, ...extra })).not.toBe(socketOf(env));
    expect(socketOf({ ...env, CODEX_A: "1" })).toBe(socketOf({ ...env, CODEX_B: "2" }));
  });

  it("ended by SIGTERM, takes its socket with it", async () => {
    const env = warmUser();
    hook(["user-prompt"], promptInput(ASKED), env);
    const { pid } = await warmProcess(env);
    process.kill(pid, "SIGTERM");
    await until(
      "the process leaves",
      () => running(pid),
      (r) => !r,
    );
    expect(existsSync(socketOf(env))).toBe(false);
  });

  it("leaves by itself after its idle time, removing its socket", async () => {
    const env = warmUser({ LLM_WIKI_HOOK_SERVER_IDLE_MS: "1000" });
    // Looked for while the hook that starts it still runs: it may leave before that hook does.
    const [{ pid }] = await Promise.all([
      warmProcess(env),
      runCliAsync(["hook", "user-prompt"], { env, input: promptInput(ASKED) }),
    ]);
    await until(
      "the idle process leaves",
      () => running(pid),
      (r) => !r,
    );
    expect(existsSync(socketOf(env))).toBe(false);
  });

  it("is never asked by a rebuilt bundle: a new process answers it, the old one leaves", async () => {
    const dist = join(REPO, ".cache", `hook-warm-${randomBytes(4).toString("hex")}`, "dist");
    try {
      await copyOrBuildBundle(dirname(dirname(CLI)), dist);
      const cli = join(dist, "cli", "llm-wiki.js");
      const env = warmUser();
      const expected = printed(hook(["user-prompt"], promptInput(ASKED), cold(env), cli));
      hook(["user-prompt"], promptInput(ASKED), env, cli);
      const old = await warmProcess(env, cli);
      const oldSocket = socketOf(env, cli);
      // A rebuild writes the hook entry anew.
      const later = new Date(Date.now() + 5_000);
      utimesSync(join(dist, "cli", "hook.bundle.js"), later, later);
      expect(socketOf(env, cli)).not.toBe(oldSocket);
      expect(printed(hook(["user-prompt"], promptInput(ASKED), env, cli))).toEqual(expected);
      const fresh = await warmProcess(env, cli);
      expect(fresh.pid).not.toBe(old.pid);
      await until(
        "the old process leaves",
        () => running(old.pid),
        (r) => !r,
      );
      expect(existsSync(oldSocket)).toBe(false);
    } finally {
      rmSync(dirname(dist), { recursive: true, force: true });
    }
  });
});
