/**
 * Hook mode and session priming, timed as users meet them: the bundled
 * `llm-wiki hook user-prompt` / `hook session-start` from spawn to exit
 * (Claude Code runs it once per prompt; budget 300 ms at 1k pages, 150 ms
 * at 10k with the warm process running), both as a session meets them with
 * the warm hook process running and cold, with none (the first hook of a
 * session, or `LLM_WIKI_HOOK_SERVER=off`), in interleaved runs, and what
 * priming adds to a first turn in-process (git calls included; budget 50 ms
 * at 10k pages), in Pi's order: priming first on a turn that follows the
 * session start at once, git possibly still running — and without the
 * session start's head start.
 * The vault holds a few pages on one invented component (the session's
 * topic), and its folder is made a git repository whose branch and commits
 * are about that component, so both hooks print a block: rendering is timed
 * too, and a run that prints nothing is an error, not a fast figure.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { devNull, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readWarmHello, warmSocket } from "../../bin/hook-socket.js";
import { createWikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";
import { syntheticPageId } from "./synthetic-vault.ts";

/**
 * The session's topic: an invented component no background text names, on
 * a few pages (so its name is evidence for automatic recall), written over
 * synthetic pages the other phases never edit, so the vault keeps N pages.
 */
const TOPIC_PAGES: Array<{ index: number; type: string; title: string; body: string }> = [
  {
    index: 1,
    type: "concept",
    title: "Sigwarden webhook verifier",
    body: "Sigwarden checks the HMAC signature header of every incoming webhook over its body, recomputes it with the shared secret and compares in constant time; Noncekeeper rejects a nonce seen within the replay window.",
  },
  {
    index: 2,
    type: "synthesis",
    title: "Sigwarden key rotation",
    body: "Sigwarden signing keys rotate every quarter. During the overlap Sigwarden accepts both keys; Noncekeeper entries survive a rotation.",
  },
  {
    index: 3,
    type: "analysis",
    title: "Sigwarden replay incident",
    body: "A retried webhook passed Sigwarden twice because Noncekeeper had restarted and lost its nonces; Noncekeeper now persists nonces for a day.",
  },
  {
    index: 5,
    type: "requirement",
    title: "Sigwarden latency budget",
    body: "Sigwarden verifies a webhook within 2 ms at p95, Noncekeeper lookup included.",
  },
];

/** The session's branch, commit subjects and a prompt, all about the topic. */
export const TOPIC = {
  branch: "feature/sigwarden-noncekeeper",
  subjects: ["Sigwarden: reject nonces Noncekeeper has seen", "Tune Noncekeeper retention"],
  // Two of its names: one rare word alone is not enough evidence at 10k pages.
  prompt: "how do sigwarden and noncekeeper reject a replayed webhook",
};

/** Writes the topic pages into a synthetic vault at `root` (before it is indexed). */
export function writeSessionTopic(root: string): void {
  for (const page of TOPIC_PAGES) {
    const file = join(root, ".llm-wiki", "wiki", `${syntheticPageId(page.index)}.md`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      [
        "---",
        `type: ${page.type}`,
        `title: ${page.title}`,
        "status: stable",
        "---",
        "",
        `# ${page.title}`,
        "",
        page.body,
        "",
      ].join("\n"),
    );
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Makes `dir` a git repository with a branch and a few commits (idempotent enough for one run). */
export function makeBenchRepo(dir: string): void {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: devNull,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
  };
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "commit.gpgsign=false", ...args], { cwd: dir, env });
  git("init", "-q", "-b", TOPIC.branch);
  for (const subject of ["Refactor sync", ...[...TOPIC.subjects].reverse()]) {
    writeFileSync(join(dir, "change.txt"), subject);
    git("add", "change.txt");
    git("commit", "-q", "-m", subject);
  }
  mkdirSync(join(dir, "src", "webhooks"), { recursive: true });
  writeFileSync(join(dir, "src", "webhooks", "sigwarden.ts"), "// edited\n");
}

export interface HookSpawnTimes {
  /** With the warm hook process running: how a session's hooks after its first meet it. */
  userPromptMs: number;
  sessionStartMs: number;
  /** With no warm process (the first hook, or `LLM_WIKI_HOOK_SERVER=off`): the hook loads the bundle. */
  coldUserPromptMs: number;
  coldSessionStartMs: number;
  /** Why a hook printed no block, by hook (its stderr line); absent when both printed one. */
  quiet?: Record<string, string>;
}

/** The warm process's pid at `path` once it says the expected identity, else undefined. */
async function warmPid(path: string, identity: string): Promise<number | undefined> {
  const hello = (await readWarmHello(path)) as { identity?: string; pid?: number } | undefined;
  return hello?.identity === identity ? hello.pid : undefined;
}

/**
 * Medians in milliseconds from spawning `bin hook …` to its exit, warm and
 * cold, interleaved run by run so a load that comes and goes weighs on both.
 * The warm process is the bench's own (a private runtime folder), started
 * by a first hook as a session's first hook starts it, and ended after.
 */
export async function measureHookSpawn(
  vault: string,
  bin: string,
  runs = 7,
): Promise<HookSpawnTimes> {
  const quiet: Record<string, string> = {};
  const runtime = mkdtempSync(join(tmpdir(), "llm-wiki-bench-run-"));
  const warmEnv = { ...process.env, XDG_RUNTIME_DIR: runtime, LLM_WIKI_HOOK_SERVER: "on" };
  const coldEnv = { ...warmEnv, LLM_WIKI_HOOK_SERVER: "off" };
  const once = (kind: string, input: object, env: NodeJS.ProcessEnv, timed = true): number => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [bin, "hook", kind], {
      input: JSON.stringify(input),
      encoding: "utf8",
      env,
    });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`hook ${kind} exited ${r.status}: ${r.stderr}`);
    // Silence is a failure (a hook prints its block or says why not). A
    // hook that said why (at 100k pages no page may pass automatic
    // recall's bar) is timed and its reason reported with the figure.
    if (timed && !r.stdout.startsWith("<wiki-recall")) {
      const why = r.stderr.trim();
      if (why === "") throw new Error(`hook ${kind} printed no block and no reason: silence`);
      quiet[kind] = why.split("\n").pop() ?? why;
    }
    return ms;
  };
  const inputs = {
    "user-prompt": {
      hook_event_name: "UserPromptSubmit",
      cwd: vault,
      session_id: "bench",
      prompt: TOPIC.prompt,
    },
    "session-start": {
      hook_event_name: "SessionStart",
      cwd: vault,
      session_id: "bench",
      source: "startup",
    },
  };
  const socket = warmSocket(dirname(bin), warmEnv);
  if ("refused" in socket) throw new Error(`no warm hook process: ${socket.refused}`);
  let pid: number | undefined;
  try {
    // A session's first hook answers cold and starts the warm process (a
    // prompt's: a session start would leave its pages out of the next prompt).
    once("user-prompt", inputs["user-prompt"], warmEnv, false);
    for (const until = Date.now() + 60_000; pid === undefined; ) {
      pid = await warmPid(socket.path, socket.identity);
      if (pid === undefined && Date.now() > until) throw new Error("no warm hook process started");
      if (pid === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    const times = (kind: "user-prompt" | "session-start") => {
      const warm: number[] = [];
      const cold: number[] = [];
      // One untimed round: the first cold run fills Node's compile cache, as a user's first prompt does.
      for (let i = 0; i <= runs; i += 1) {
        const w = once(kind, inputs[kind], warmEnv, i > 0);
        const c = once(kind, inputs[kind], coldEnv, i > 0);
        if (i === 0) continue;
        warm.push(w);
        cold.push(c);
      }
      return { warm: median(warm), cold: median(cold) };
    };
    const prompt = times("user-prompt");
    const start = times("session-start");
    const result: HookSpawnTimes = {
      userPromptMs: prompt.warm,
      sessionStartMs: start.warm,
      coldUserPromptMs: prompt.cold,
      coldSessionStartMs: start.cold,
    };
    return Object.keys(quiet).length > 0 ? { ...result, quiet } : result;
  } finally {
    if (pid !== undefined) {
      try {
        process.kill(pid);
      } catch {
        // Already gone.
      }
    }
    rmSync(runtime, { recursive: true, force: true });
  }
}

/** Median spawn → exit of a cold `llm-wiki recall` (`--auto` unless `auto` is false), and the largest peak RSS of those runs. */
export function measureColdRecall(
  vault: string,
  bin: string,
  runs = 5,
  auto = true,
): { ms: number; peakRssMb?: number } {
  const samples: number[] = [];
  let peak: number | undefined;
  // GNU time reports the child's peak RSS; without it only the time is measured.
  const gnuTime = spawnSync("/usr/bin/time", ["-f", "%M", "true"]).status === 0;
  for (let i = 0; i <= runs; i += 1) {
    const args = [bin, "recall", ...(auto ? ["--auto"] : []), TOPIC.prompt];
    const t = performance.now();
    const r = gnuTime
      ? spawnSync("/usr/bin/time", ["-f", "rss-kb %M", process.execPath, ...args], {
          cwd: vault,
          encoding: "utf8",
          env: process.env,
        })
      : spawnSync(process.execPath, args, { cwd: vault, encoding: "utf8", env: process.env });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`recall exited ${r.status}: ${r.stderr}`);
    const kb = /rss-kb (\d+)/.exec(r.stderr)?.[1];
    if (kb !== undefined) peak = Math.max(peak ?? 0, Math.round(Number(kb) / 1024));
    if (i > 0) samples.push(ms);
  }
  return { ms: median(samples), ...(peak === undefined ? {} : { peakRssMb: peak }) };
}

/** What priming costs a first turn, medians in milliseconds. */
export interface PrimingCost {
  /**
   * Pi's order at its worst: the session starts (git read begun, status),
   * the first prompt arrives at once, priming runs first on that turn, then
   * the turn's automatic recall. The turn's time minus the same turn's
   * without priming: git wait, store open and registry paid by whichever
   * runs first are counted once, on the turn, not hidden in an earlier step.
   */
  addsToFirstTurnMs: number;
  /** `prime()` alone in that order (it opens the store and reads the registry first). */
  primeMs: number;
  /** Of that, the wait for git (the session-start read still running). */
  gitMs: number;
  /** The first turn's automatic recall with no priming before it. */
  turnWithoutPrimingMs: number;
  /** Priming with git read at the first turn itself (no session start before it). */
  coldPrimeMs: number;
  /** Of that, the git calls. */
  coldGitMs: number;
}

/**
 * Median milliseconds priming adds to a first turn, measured the way Pi
 * runs it (session-start.ts, then session-priming.ts before automatic
 * recall on the first turn), with a fresh service per run and no pause
 * between session start and the first prompt, so git may still be running.
 */
export async function measurePrimingCost(vault: string, runs = 7): Promise<PrimingCost> {
  const turn = async (
    prime: "after-session-start" | "cold" | "none",
  ): Promise<{ turnMs: number; primeMs: number; gitMs: number }> => {
    const service = createWikiService({ cwd: vault, env: process.env });
    try {
      // Pi's session_start: git read begun, the project's status read.
      if (prime !== "cold") service.prefetchPriming();
      service.status({ vault: "project" });
      const t = performance.now();
      let primeMs = 0;
      let gitMs = 0;
      if (prime !== "none") {
        const primed = await service.prime();
        primeMs = performance.now() - t;
        gitMs = primed.gitMs;
        if (primed.rendered === "")
          throw new Error("priming found nothing: the topic is not timed");
      }
      await service.recall({ query: TOPIC.prompt, policy: "automatic" });
      return { turnMs: performance.now() - t, primeMs, gitMs };
    } finally {
      await service.close();
    }
  };
  const primed: Array<{ turnMs: number; primeMs: number; gitMs: number }> = [];
  const plain: Array<{ turnMs: number }> = [];
  const cold: Array<{ primeMs: number; gitMs: number }> = [];
  // One untimed round first: this process's first store open loads QMD.
  await turn("none");
  for (let i = 0; i < runs; i += 1) {
    primed.push(await turn("after-session-start"));
    plain.push(await turn("none"));
    cold.push(await turn("cold"));
  }
  const withPriming = median(primed.map((r) => r.turnMs));
  const without = median(plain.map((r) => r.turnMs));
  return {
    addsToFirstTurnMs: Math.max(0, withPriming - without),
    primeMs: median(primed.map((r) => r.primeMs)),
    gitMs: median(primed.map((r) => r.gitMs)),
    turnWithoutPrimingMs: without,
    coldPrimeMs: median(cold.map((r) => r.primeMs)),
    coldGitMs: median(cold.map((r) => r.gitMs)),
  };
}
