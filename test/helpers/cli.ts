/**
 * The real CLI (`cli/llm-wiki.ts`) in a child process, as a person runs it:
 * only PATH and the variables a test names reach it, so neither the user's
 * vaults nor their settings can leak in.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { runBin } from "./shipped-package.ts";

export const CLI = join(import.meta.dirname, "..", "..", "cli", "llm-wiki.ts");

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
}

/** Runs `llm-wiki <args>` to completion. */
export function runCli(args: string[], options: CliOptions): CliRun {
  const out = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", ...options.env },
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
    env: { PATH: process.env.PATH ?? "", ...options.env },
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  });
}
