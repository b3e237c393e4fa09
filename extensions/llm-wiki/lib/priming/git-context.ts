/**
 * What git says the session is about: the current branch, a handful of
 * recent commit subjects and the names of files changed in the work tree
 * outside any vault (a folder holding nothing but a vault is not listed).
 * Read through the project's runner for untrusted repositories
 * (safety/untrusted-git.ts: no hook, pager, prompt, fsmonitor, filter, diff
 * driver or any other program the repository's own configuration names),
 * with fixed arguments, a short timeout and bounded output. Everything it
 * returns is data for a search query, never run or printed as is. Outside a
 * repository, without git, or on any failure: an empty context.
 */
import { runGitAsync, untrustedGitEnvSync } from "../safety/untrusted-git.ts";

/** What git tells about the work tree at `cwd`; every field may be empty. */
export interface GitContext {
  /** The current branch (undefined when detached, outside a repository or without git). */
  branch?: string;
  /** Subjects of the most recent commits, newest first. */
  subjects: string[];
  /** Paths (relative to the repository's top) of files changed or added in the work tree. */
  files: string[];
}

export interface GitContextOptions {
  /** Per git call; the calls run in parallel. */
  timeoutMs?: number;
  /** Commit subjects read. */
  maxSubjects?: number;
  /** Changed files kept. */
  maxFiles?: number;
}

export const GIT_TIMEOUT_MS = 1_000;
export const GIT_MAX_SUBJECTS = 5;
export const GIT_MAX_FILES = 12;
/** Output read from one call; a huge work tree's status is cut here, not read whole. */
const MAX_OUTPUT_BYTES = 256 * 1024;

/** Whether a repository path lies in a vault folder (`.llm-wiki/`). */
function inVault(path: string): boolean {
  return path.split("/").includes(".llm-wiki");
}

/**
 * What `git status` leaves out: every vault folder, at any depth, from the
 * repository's top. A vault is committed with its project, and at 10k pages
 * checking its files was most of what status cost (measured: 35-40 ms of
 * CPU with the vault tracked, 12-19 ms without it); its files were dropped
 * from the answer anyway. Fixed pathspecs, read with pathspec magic (the
 * runner turns magic off, for names that come from pages).
 */
const OUTSIDE_VAULTS = [
  ":(top,exclude,glob)**/.llm-wiki/**",
  ":(top,exclude,glob)**/.llm-wiki",
] as const;

/** `git status --porcelain=v2 --branch -z`: the branch header and changed paths. */
export function parseStatus(out: string, maxFiles: number): { branch?: string; files: string[] } {
  const files: string[] = [];
  let branch: string | undefined;
  const records = out.split("\0");
  for (let i = 0; i < records.length; i += 1) {
    const rec = records[i] as string;
    if (rec.startsWith("# branch.head ")) {
      const head = rec.slice("# branch.head ".length);
      if (head !== "(detached)" && head !== "") branch = head;
      continue;
    }
    if (rec.startsWith("#") || rec === "") continue;
    let path: string | undefined;
    if (rec.startsWith("1 ")) path = rec.split(" ").slice(8).join(" ");
    else if (rec.startsWith("2 ")) {
      path = rec.split(" ").slice(9).join(" ");
      i += 1; // the original path of a rename follows as its own record
    } else if (rec.startsWith("u ")) path = rec.split(" ").slice(10).join(" ");
    else if (rec.startsWith("? ")) path = rec.slice(2);
    // The vault's own files say nothing about the session's code.
    if (path && files.length < maxFiles && !inVault(path)) files.push(path);
  }
  return branch === undefined ? { files } : { branch, files };
}

/** Reads the git context of `cwd` (two git calls in parallel); empty on any failure. */
export async function readGitContext(
  cwd: string,
  options: GitContextOptions = {},
  parentEnv: NodeJS.ProcessEnv = process.env,
): Promise<GitContext> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  const maxSubjects = options.maxSubjects ?? GIT_MAX_SUBJECTS;
  // The repository is not trusted: its configuration is listed first, and
  // every program it names (filters, diff drivers, fsmonitor …) blanked.
  // Listed synchronously (a few ms), so both reads still start at the call:
  // priming describes the session as it began.
  const env = untrustedGitEnvSync(cwd, parentEnv, timeoutMs);
  if (env === undefined) return { files: [], subjects: [] };
  const run = (args: readonly string[]) =>
    runGitAsync(cwd, args, { env, timeoutMs, maxBytes: MAX_OUTPUT_BYTES });
  const [status, log] = await Promise.all([
    run([
      "--no-literal-pathspecs",
      "status",
      "--porcelain=v2",
      "--branch",
      "-z",
      "--untracked-files=normal",
      "--ignore-submodules=all",
      "--",
      ...OUTSIDE_VAULTS,
    ]),
    run([
      "log",
      `--max-count=${maxSubjects}`,
      "--no-merges",
      "--format=%s%x00",
      "--no-show-signature",
    ]),
  ]);
  const parsed =
    status === undefined ? { files: [] } : parseStatus(status, options.maxFiles ?? GIT_MAX_FILES);
  const subjects =
    log === undefined
      ? []
      : log
          .split("\0")
          .map((s) => s.trim())
          .filter((s) => s !== "")
          .slice(0, maxSubjects);
  return { ...parsed, subjects };
}
