/**
 * Hook mode and session priming, timed as users meet them: the bundled
 * `llm-wiki hook user-prompt` / `hook session-start` from spawn to exit
 * (Claude Code runs it once per prompt; budget 300 ms at 1k pages), and what
 * priming adds to a first turn in-process (git calls included; budget 50 ms
 * at 10k pages), measured after the turn's automatic recall opened the store
 * — with git read at session start as Pi does, and without that head start.
 * The vault's folder is made a git repository with a few commits first.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";
import { createWikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";

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
  git("init", "-q", "-b", "feature/topic-3-cache");
  for (const subject of ["Tune topic 3 cache eviction", "Note 7 latency fix", "Refactor sync"]) {
    writeFileSync(join(dir, "change.txt"), subject);
    git("add", "change.txt");
    git("commit", "-q", "-m", subject);
  }
  writeFileSync(join(dir, "work-in-progress.ts"), "// edited\n");
}

export interface HookSpawnTimes {
  userPromptMs: number;
  sessionStartMs: number;
}

/** Medians in milliseconds from spawning `bin hook …` to its exit. */
export function measureHookSpawn(vault: string, bin: string, runs = 7): HookSpawnTimes {
  const time = (kind: string, input: object): number => {
    const samples: number[] = [];
    for (let i = 0; i <= runs; i += 1) {
      const t = performance.now();
      const r = spawnSync(process.execPath, [bin, "hook", kind], {
        input: JSON.stringify(input),
        encoding: "utf8",
        env: process.env,
      });
      const ms = performance.now() - t;
      if (r.status !== 0) throw new Error(`hook ${kind} exited ${r.status}: ${r.stderr}`);
      // The first run fills Node's compile cache, as a user's first prompt does.
      if (i > 0) samples.push(ms);
    }
    return median(samples);
  };
  return {
    userPromptMs: time("user-prompt", {
      hook_event_name: "UserPromptSubmit",
      cwd: vault,
      session_id: "bench",
      prompt: "what is note 7 about in topic 3",
    }),
    sessionStartMs: time("session-start", {
      hook_event_name: "SessionStart",
      cwd: vault,
      session_id: "bench",
      source: "startup",
    }),
  };
}

/** What priming costs a first turn, medians in milliseconds. */
export interface PrimingCost {
  /** Pi's path: git read at session start (`prefetchPriming`), priming at the first turn. */
  primeMs: number;
  /** Of that, the wait for git (0 when the session-start read was done). */
  gitMs: number;
  /** Priming with git read at the first turn itself (no session start before it). */
  coldPrimeMs: number;
  /** Of that, the git calls. */
  coldGitMs: number;
}

/**
 * Median milliseconds priming adds to a first turn (fresh service each run,
 * store already open by the turn's automatic recall), as Pi runs it — git
 * read at session start — and without that head start.
 */
export async function measurePrimingCost(vault: string, runs = 7): Promise<PrimingCost> {
  const once = async (prefetch: boolean): Promise<{ ms: number; gitMs: number }> => {
    const service = createWikiService({ cwd: vault, env: process.env });
    try {
      if (prefetch) service.prefetchPriming();
      service.status();
      await service.recall({ query: "what is note 7 about", policy: "automatic" });
      const t = performance.now();
      const result = await service.prime();
      return { ms: performance.now() - t, gitMs: result.gitMs };
    } finally {
      await service.close();
    }
  };
  const warm: Array<{ ms: number; gitMs: number }> = [];
  const cold: Array<{ ms: number; gitMs: number }> = [];
  for (let i = 0; i < runs; i += 1) {
    warm.push(await once(true));
    cold.push(await once(false));
  }
  return {
    primeMs: median(warm.map((r) => r.ms)),
    gitMs: median(warm.map((r) => r.gitMs)),
    coldPrimeMs: median(cold.map((r) => r.ms)),
    coldGitMs: median(cold.map((r) => r.gitMs)),
  };
}
