/**
 * Real git repositories for tests: `git init` in a temp folder and commits
 * with fixed author and committer names and dates, plus a `git` wrapper
 * that logs every invocation (for "no git call while HEAD is unchanged").
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "./temp-vault.ts";

/** The real git, found once. */
export const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

/** Runs the real git in `root` with fixed identities and the given commit date. */
export function git(root: string, args: string[], date = "2025-01-05T12:00:00Z"): string {
  return execFileSync(REAL_GIT, args, {
    cwd: root,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: root,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.com",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.com",
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  });
}

/** `git init` in `root` (branch main). */
export function initRepo(root: string): void {
  git(root, ["init", "-q", "-b", "main"]);
}

/** Stages everything and commits with `message` at `date`; returns the full sha. */
export function commitAll(root: string, message: string, date: string): string {
  git(root, ["add", "-A"], date);
  git(root, ["commit", "-q", "--no-verify", "-m", message], date);
  return git(root, ["rev-parse", "HEAD"]).trim();
}

/** A folder with a `git` that logs each call's arguments to `log`, then runs the real one. */
export function loggingGit(): { bin: string; log: string; calls(): string[] } {
  const bin = makeTempDir("llm-wiki-gitbin-");
  const log = join(bin, "calls.log");
  writeFileSync(log, "");
  mkdirSync(bin, { recursive: true });
  const script = join(bin, "git");
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`);
  chmodSync(script, 0o755);
  return {
    bin,
    log,
    calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean),
  };
}
