/**
 * Real git repositories for tests: `git init` in a folder, with commits
 * made by a fixed test identity and no user configuration read (the user's
 * hooks, signing or templates must not run here).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";

const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? "",
  HOME: devNull,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: devNull,
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
};

/** Runs git in `dir` with the test identity; returns stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "commit.gpgsign=false", ...args], {
    cwd: dir,
    env: ENV,
    encoding: "utf8",
  });
}

/**
 * Makes `dir` a repository on `branch` with one commit per subject (each
 * changes `log.txt`); the vault's files are left untracked.
 */
export function makeRepo(dir: string, branch: string, subjects: readonly string[]): void {
  git(dir, "init", "-q", "-b", branch);
  subjects.forEach((subject, i) => {
    writeFileSync(join(dir, "log.txt"), `${i}\n`);
    git(dir, "add", "log.txt");
    git(dir, "commit", "-q", "-m", subject);
  });
}
