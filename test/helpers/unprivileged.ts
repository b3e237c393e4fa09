/**
 * The real CLI run by a user who cannot write where the test says so. Tests
 * run as root on CI, and root writes through any mode bits: there the child
 * runs as `nobody` (uid 65534, via util-linux's `setpriv`), and the folders
 * it must read are opened to everyone. As any other user, `chmod a-w` alone
 * makes a folder unwritable, and the child runs as that user.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CLI, type CliRun } from "./cli.ts";
import { makeTempDir } from "./temp-vault.ts";

/** The uid and gid an unprivileged child gets when the tests run as root. */
export const NOBODY = 65534;

const isRoot = process.getuid?.() === 0;

/** Opens `dir` and everything below it for reading (and folders for entering) to everyone. */
export function openToEveryone(dir: string): void {
  const st = statSync(dir);
  chmodSync(dir, st.mode | (st.isDirectory() ? 0o755 : 0o644));
  if (!st.isDirectory()) return;
  for (const entry of readdirSync(dir)) openToEveryone(join(dir, entry));
}

/** Takes write permission away from `path` and everything below it (`chmod -R a-w`). */
export function makeUnwritable(path: string): void {
  const st = statSync(path);
  if (st.isDirectory()) for (const entry of readdirSync(path)) makeUnwritable(join(path, entry));
  chmodSync(path, st.mode & ~0o222);
}

/** Gives write permission back to the owner (`chmod -R u+w`), so temp folders can be removed. */
export function makeWritable(path: string): void {
  const st = statSync(path);
  chmodSync(path, st.mode | 0o200);
  if (st.isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

/**
 * Makes `dir` (and what is below it) belong to the unprivileged user, so that
 * user's own `chmod` works on it, as the user's own vault would.
 */
export function giveToUnprivileged(dir: string): void {
  if (!isRoot) return;
  spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, dir]);
}

/** A home folder the unprivileged user may write to. */
export function unprivilegedHome(): string {
  const home = makeTempDir("llm-wiki-home-");
  openToEveryone(home);
  giveToUnprivileged(home);
  return home;
}

/** Runs `command args…` as the unprivileged user (as this user when not root). */
export function runAsUnprivileged(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; input?: string; timeout?: number },
): CliRun {
  const argv = isRoot
    ? [
        "setpriv",
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "--",
        command,
        ...args,
      ]
    : [command, ...args];
  const [file, ...rest] = argv as [string, ...string[]];
  const out = spawnSync(file, rest, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", ...options.env },
    input: options.input,
    encoding: "utf8",
    timeout: options.timeout ?? 60_000,
  });
  if (out.error) throw out.error;
  return {
    pid: out.pid,
    status: out.status,
    signal: out.signal,
    stdout: out.stdout,
    stderr: out.stderr,
  };
}

/** Runs `llm-wiki <args>` as the unprivileged user. */
export function runCliUnprivileged(
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; input?: string; timeout?: number },
): CliRun {
  return runAsUnprivileged(process.execPath, [CLI, ...args], options);
}
