/**
 * A team sharing one vault through git, as people do it: one bare
 * repository, one clone per teammate (own `user.name`, `pull.rebase=false`),
 * and rounds in which each teammate, in a shuffled order, writes through the
 * real CLI, commits, runs a plain `git pull` and pushes. Nothing is resolved
 * for them: a pull that leaves a conflicted file is counted (and, so the
 * run can go on, settled the way a hurried person does, keeping their own
 * side, which is what loses the other side's events). Used by the team
 * spec and by `pnpm benchmark:team`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eventLogFiles } from "../../extensions/llm-wiki/lib/vault/event-log-files.ts";
import { vaultPaths } from "../../extensions/llm-wiki/lib/vault/paths.ts";
import { mulberry32 } from "../test-models/mulberry32.ts";

/** One write a teammate makes in a round (through the CLI unless said). */
export interface TeamWrite {
  writer: number;
  round: number;
  /** The page's title; unique across the run. */
  page: string;
  /** The observation's title; unique across the run. */
  observation: string;
}

/** What one pull did. */
export interface PullOutcome {
  writer: number;
  round: number;
  /** Files git left conflicted (vault-relative to the repository). */
  conflicted: string[];
  mergeMs: number;
  /** Tracked files with changes git still saw after the pull (`git status`): none of ours may be. */
  dirty: string[];
  /** Event lines no commit held when the pull ran (the tools' appends since the last commit). */
  uncommittedEvents: number;
}

export interface TeamOptions {
  root: string;
  writers: number;
  rounds: number;
  seed: number;
  /** The CLI entry (`bin/llm-wiki.js`, the sources or the bundle). */
  cli: string;
  /** Called after each writer's pull, before its push (e.g. to time a recall). */
  afterPull?: (clone: string, writer: number, round: number) => void;
  /** Extra writes a teammate makes each round besides the CLI's page and observation. */
  extraWrite?: (clone: string, write: TeamWrite) => void;
  /** Each teammate also captures a source each round (same day, so ids must not meet). */
  capture?: boolean;
  /** How each pull integrates: a merge (default) or `git pull --rebase`. */
  pull?: "merge" | "rebase";
  /**
   * After committing, before pulling, a teammate's agent recalls (with
   * recall feedback on, the default): the log then holds lines no commit
   * has yet when the pull runs.
   */
  recallBeforePull?: boolean;
}

export interface TeamRun {
  bare: string;
  clones: string[];
  writes: TeamWrite[];
  pulls: PullOutcome[];
  /** Order of writers in each round. */
  orders: number[][];
}

/** A small seeded generator (mulberry32): the same seed, the same interleaving. */
export const seededRandom = mulberry32;

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Git as a teammate runs it, with no user or system configuration of this machine. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** Runs git in `cwd`; returns stdout, throws on a failure (with stderr). */
export function runGit(cwd: string, home: string, args: string[]): string {
  return execFileSync("git", args, { cwd, env: gitEnv(home), encoding: "utf8", stdio: "pipe" });
}

/** `git` that may fail: its status and outputs. */
function tryGit(cwd: string, home: string, args: string[]) {
  return spawnSync("git", args, { cwd, env: gitEnv(home), encoding: "utf8" });
}

/**
 * Runs the CLI in `cwd` with `home` as HOME; throws with its output when it
 * exits other than `accept` (lint exits 1 when it finds an error).
 */
export function runTeamCli(
  cli: string,
  cwd: string,
  home: string,
  args: string[],
  accept: readonly number[] = [0],
): string {
  const out = spawnSync(process.execPath, [cli, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CACHE_HOME: join(home, ".cache"),
      // The test suite's shared cache of compiled code, when it runs under one.
      ...(process.env.NODE_COMPILE_CACHE
        ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }
        : {}),
    },
    encoding: "utf8",
    timeout: 120_000,
  });
  if (out.status === null || !accept.includes(out.status)) {
    throw new Error(
      `llm-wiki ${args.join(" ")} failed (${out.status}): ${out.stderr}${out.stdout}`,
    );
  }
  return out.stdout;
}

/** Teammate `i`'s name. */
export function teammate(i: number): { name: string; email: string } {
  return { name: `Teammate ${i}`, email: `t${i}@team.invalid` };
}

function configureClone(clone: string, home: string, i: number): void {
  const who = teammate(i);
  runGit(clone, home, ["config", "user.name", who.name]);
  runGit(clone, home, ["config", "user.email", who.email]);
  runGit(clone, home, ["config", "pull.rebase", "false"]);
  runGit(clone, home, ["config", "commit.gpgsign", "false"]);
}

/**
 * The bare repository and `writers` clones under `root`: the first
 * teammate runs `llm-wiki init` and pushes, the others clone after.
 */
export function setUpTeam(
  root: string,
  writers: number,
  cli: string,
): { bare: string; clones: string[] } {
  const bare = join(root, "shared.git");
  const home = join(root, "home");
  mkdirSync(home, { recursive: true });
  runGit(root, home, ["init", "-q", "--bare", "-b", "main", bare]);
  const clones: string[] = [];
  for (let i = 0; i < writers; i += 1) clones.push(join(root, `clone-${i}`));
  const first = clones[0] as string;
  runGit(root, home, ["clone", "-q", bare, first]);
  configureClone(first, home, 0);
  runGit(first, home, ["checkout", "-q", "-b", "main"]);
  runTeamCli(cli, first, cloneHome(root, 0), ["init", "--name", "team"]);
  runGit(first, home, ["add", "-A"]);
  runGit(first, home, ["commit", "-q", "-m", "vault"]);
  runGit(first, home, ["push", "-q", "origin", "main"]);
  for (let i = 1; i < writers; i += 1) {
    runGit(root, home, ["clone", "-q", bare, clones[i] as string]);
    configureClone(clones[i] as string, home, i);
  }
  return { bare, clones };
}

/** Each teammate's own HOME (settings, caches), so none reads another's. */
export function cloneHome(root: string, i: number): string {
  const home = join(root, `home-${i}`);
  mkdirSync(home, { recursive: true });
  return home;
}

function conflictedFiles(clone: string, home: string): string[] {
  const out = runGit(clone, home, ["diff", "--name-only", "--diff-filter=U"]);
  return out.split("\n").filter((line) => line.length > 0);
}

/** Runs the rounds; never resolves a conflict for the teammates beyond keeping their side. */
export function runTeam(options: TeamOptions): TeamRun {
  const { root, writers, rounds, seed, cli } = options;
  const { bare, clones } = setUpTeam(root, writers, cli);
  const home = join(root, "home");
  const random = seededRandom(seed);
  const writes: TeamWrite[] = [];
  const pulls: PullOutcome[] = [];
  const orders: number[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = shuffled(
      Array.from({ length: writers }, (_, i) => i),
      random,
    );
    orders.push(order);
    for (const writer of order) {
      const clone = clones[writer] as string;
      const write: TeamWrite = {
        writer,
        round,
        page: `Decision ${writer}-${round} on queue ${Math.floor(random() * 1e6)}`,
        observation: `Observed ${writer}-${round} in build ${Math.floor(random() * 1e6)}`,
      };
      writes.push(write);
      const myHome = cloneHome(root, writer);
      runTeamCli(cli, clone, myHome, [
        "page",
        "--type",
        "concept",
        "--title",
        write.page,
        "--content",
        `Teammate ${writer} decided this in round ${round}: ${write.page}.`,
      ]);
      runTeamCli(cli, clone, myHome, [
        "observe",
        "--title",
        write.observation,
        "--content",
        `Teammate ${writer} saw this in round ${round}.`,
      ]);
      if (options.capture) {
        runTeamCli(cli, clone, myHome, [
          "capture",
          "--title",
          `Notes ${write.page}`,
          "--text",
          `Source text captured by teammate ${writer} in round ${round}: ${write.page}.`,
        ]);
      }
      options.extraWrite?.(clone, write);
      runGit(clone, home, ["add", "-A"]);
      runGit(clone, home, ["commit", "-q", "-m", `round ${round} by ${writer}`]);
      if (options.recallBeforePull) {
        // The agent recalls and judges what it was shown: a feedback line in the log.
        const recalled = JSON.parse(
          runTeamCli(cli, clone, myHome, ["recall", write.page, "--mode", "lexical", "--json"]),
        ) as { results?: Array<{ id: string }> };
        const shown = recalled.results?.[0]?.id;
        if (shown) runTeamCli(cli, clone, myHome, ["feedback", shown, "--judgment", "relevant"]);
      }
      const outcome = pullOnce(clone, home, options.pull ?? "merge");
      pulls.push({ writer, round, ...outcome });
      options.afterPull?.(clone, writer, round);
      runGit(clone, home, ["push", "-q", "origin", "HEAD:main"]);
    }
  }
  // Everyone catches up once more, as at the start of the next day.
  for (let writer = 0; writer < writers; writer += 1) {
    const clone = clones[writer] as string;
    const outcome = pullOnce(clone, home, options.pull ?? "merge");
    pulls.push({ writer, round: rounds, ...outcome });
    options.afterPull?.(clone, writer, rounds);
  }
  return { bare, clones, writes, pulls, orders };
}

/** Tracked files with changes in `clone` (modified, staged, conflicted), as `git status` lists them. */
export function dirtyTracked(clone: string, home: string): string[] {
  return runGit(clone, home, ["status", "--porcelain"])
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("??"))
    .map((line) => line.slice(3));
}

/**
 * One plain `git pull` of `main` with nothing committed or stashed first. A
 * pull git refuses (local changes it would overwrite) throws: that is the
 * failure a team must never meet. A conflict is counted and settled the way
 * a hurried person does, keeping their own side (a stopped rebase is given
 * up and merged instead, so the run can go on).
 */
export function pullOnce(
  clone: string,
  home: string,
  how: "merge" | "rebase",
): Omit<PullOutcome, "writer" | "round"> {
  const uncommittedEvents = uncommittedEventLines(clone, home);
  const started = performance.now();
  const pull = tryGit(clone, home, [
    "pull",
    "-q",
    "--no-edit",
    how === "rebase" ? "--rebase" : "--no-rebase",
    "origin",
    "main",
  ]);
  const mergeMs = performance.now() - started;
  const conflicted = pull.status === 0 ? [] : conflictedFiles(clone, home);
  if (pull.status !== 0 && conflicted.length === 0) {
    throw new Error(`git pull${how === "rebase" ? " --rebase" : ""} refused: ${pull.stderr}`);
  }
  if (conflicted.length > 0) {
    if (how === "rebase") {
      runGit(clone, home, ["rebase", "--abort"]);
      tryGit(clone, home, ["pull", "-q", "--no-edit", "--no-rebase", "origin", "main"]);
    }
    const left = conflictedFiles(clone, home);
    if (left.length > 0) {
      runGit(clone, home, ["checkout", "--ours", "--", ...left]);
      runGit(clone, home, ["add", "--", ...left]);
      runGit(clone, home, ["commit", "-q", "--no-edit"]);
    }
  }
  return { conflicted, mergeMs, dirty: dirtyTracked(clone, home), uncommittedEvents };
}

/** Lines of the clone's event log files git does not track yet. */
export function uncommittedEventLines(clone: string, home: string): number {
  let n = 0;
  for (const line of runGit(clone, home, ["status", "--porcelain", "--untracked-files=all"]).split(
    "\n",
  )) {
    const m = /^\?\? (.+\/meta\/events\/[^/]+\.jsonl)$/.exec(line);
    if (m?.[1]) n += readFileSync(join(clone, m[1]), "utf8").split("\n").length - 1;
  }
  return n;
}

/** Every line of a clone's event log, over all its files (`meta/events.jsonl` and the clones' logs). */
export function eventLogLines(clone: string): string[] {
  const lines: string[] = [];
  for (const file of eventLogFiles(vaultPaths(clone, "project"))) {
    const text = readFileSync(file, "utf8");
    if (!text.endsWith("\n")) throw new Error(`${file} ends inside a line`);
    lines.push(...text.split("\n").slice(0, -1));
  }
  return lines;
}

/** Every committed file under `.llm-wiki/` that still holds a conflict marker line. */
export function filesWithMarkers(clone: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      const r = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (r === ".llm-wiki/meta/qmd" || r === ".llm-wiki/meta/cache") continue;
        walk(abs, r);
      } else if (entry.isFile() && /^(<{7}|>{7})( |$)/m.test(readFileSync(abs, "utf8"))) {
        found.push(r);
      }
    }
  };
  walk(join(clone, ".llm-wiki"), ".llm-wiki");
  return found;
}
