/**
 * The real CLI in a child process, as a person runs it: the bundle the
 * suite's global setup builds from the sources (what the package ships;
 * it starts about three times faster than the TypeScript sources, and the
 * specs start it hundreds of times), the sources themselves when no setup
 * ran. Only PATH and the variables a test names reach it, so neither the
 * user's vaults nor their settings can leak in.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { codeCacheEnv } from "./code-cache-env.ts";
import { runBin } from "./shipped-package.ts";

const REPO = join(import.meta.dirname, "..", "..");
/** Where the global setup bundles the bins (under the repository, so dependencies resolve). */
export const TEST_BUNDLE = join(REPO, ".cache", "test-bundle", "dist");
const BUNDLED_CLI = join(TEST_BUNDLE, "cli", "llm-wiki.js");
/** The CLI's sources, for specs about the sources themselves. */
export const CLI_SOURCES = join(REPO, "cli", "llm-wiki.ts");

export const CLI = existsSync(BUNDLED_CLI) ? BUNDLED_CLI : CLI_SOURCES;

/**
 * The child's environment: PATH, the test's variables, and two defaults a
 * test may override. A hook's deadline is wall time: specs on a loaded
 * machine never meet it unless they set one (the deadline's own spec does).
 * The warm hook process would outlive the spec that started it: off unless
 * a spec turns it on (the warm process's own spec does).
 */
export function cliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    ...codeCacheEnv(),
    LLM_WIKI_HOOK_DEADLINE_MS: "600000",
    LLM_WIKI_HOOK_SERVER: "off",
    ...env,
  };
}

export interface CliRun {
  /** The child's process id (for lock files that name it). */
  pid: number;
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The working folder (default: this process's). */
  cwd?: string;
  /** The child's environment besides PATH (e.g. HOME, or `childEnv()`). */
  env: NodeJS.ProcessEnv;
  /** Text written to the child's stdin. */
  input?: string;
  /** Milliseconds before the child is killed: a hang guard (default 120 s). */
  timeout?: number;
  /** The CLI script to run instead of `CLI` (e.g. `CLI_SOURCES`). */
  cli?: string;
}

/** Runs `llm-wiki <args>` to completion. */
export function runCli(args: string[], options: CliOptions): CliRun {
  const out = spawnSync(process.execPath, [options.cli ?? CLI, ...args], {
    cwd: options.cwd,
    env: cliEnv(options.env),
    input: options.input,
    encoding: "utf8",
    timeout: options.timeout ?? 120_000,
  });
  return {
    pid: out.pid,
    status: out.status,
    signal: out.signal,
    stdout: out.stdout,
    stderr: out.stderr,
  };
}

/**
 * Runs `llm-wiki <args>` without blocking this process, so servers the test
 * runs here (a loopback site for `capture --url`) keep answering meanwhile.
 * Resolves with the exit status and both outputs.
 */
export function runCliAsync(
  args: string[],
  options: CliOptions,
): Promise<Pick<CliRun, "status" | "stdout" | "stderr">> {
  return runBin({ command: process.execPath, args: [CLI] }, args, {
    cwd: options.cwd ?? process.cwd(),
    env: cliEnv(options.env),
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  });
}
