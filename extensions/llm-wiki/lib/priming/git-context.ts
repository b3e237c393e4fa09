/**
 * What git says the session is about: the current branch, a handful of
 * recent commit subjects and the names of files changed in the work tree.
 * Read with `git` run directly (never a shell) with fixed arguments, a short
 * timeout, bounded output and an environment in which git runs no hook,
 * pager, prompt or fsmonitor and reads no system or global configuration
 * (where filters such as git-lfs would be defined). Everything it returns is
 * data for a search query, never run or printed as is. Outside a
 * repository, without git, or on any failure: an empty context.
 */
import { execFile } from "node:child_process";
import { devNull } from "node:os";

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

/**
 * Settings for every call: no hooks (none of these commands runs one, and
 * the path points nowhere besides), no fsmonitor daemon command, no pager,
 * no optional index lock, no replace objects.
 */
const CONFIG_ARGS = [
  "--no-pager",
  "--no-optional-locks",
  "-c",
  `core.hooksPath=${devNull}`,
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "color.ui=false",
  "-c",
  "log.showSignature=false",
];

/**
 * The child's environment: the parent's, minus every `GIT_*` variable (a
 * hook's `GIT_DIR` or `GIT_INDEX_FILE` would point git elsewhere), plus
 * variables that keep git from prompting, paging, or reading system and
 * global configuration.
 */
export function gitEnv(parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined || key.toUpperCase().startsWith("GIT_")) continue;
    if (key === "PAGER" || key === "LESS" || key === "LV") continue;
    env[key] = value;
  }
  return {
    ...env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    LC_ALL: "C",
  };
}

/**
 * Runs `git <args>` in `cwd`; resolves to its stdout (possibly cut), or
 * undefined on failure or after `timeoutMs`. The deadline is checked only
 * once the I/O that was waiting has been read: a caller that keeps the
 * event loop busy past it (a hook loading its modules while git runs, a
 * session start) would otherwise kill, or count as timed out, a git that
 * answered in time.
 */
function git(
  cwd: string,
  args: readonly string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      const child = execFile(
        "git",
        [...CONFIG_ARGS, ...args],
        {
          cwd,
          env,
          maxBuffer: MAX_OUTPUT_BYTES,
          encoding: "utf8",
          windowsHide: true,
          shell: false,
        },
        (error, stdout) => {
          clearTimeout(timer);
          if (timedOut) return resolve(undefined);
          if (!error) return resolve(stdout);
          // Output over the bound: what arrived is still a valid prefix to read.
          const code = (error as { code?: unknown }).code;
          resolve(code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" ? stdout : undefined);
        },
      );
      timer = setTimeout(() => {
        // Timers run before the loop polls for I/O; `setImmediate` runs after
        // it, when a git that already exited has been seen to.
        setImmediate(() => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          timedOut = true;
          child.kill("SIGKILL");
        });
      }, timeoutMs);
    } catch {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
}

/** Whether a repository path lies in a vault folder (`.llm-wiki/`). */
function inVault(path: string): boolean {
  return path.split("/").includes(".llm-wiki");
}

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
  const env = gitEnv(parentEnv);
  const [status, log] = await Promise.all([
    git(
      cwd,
      [
        "status",
        "--porcelain=v2",
        "--branch",
        "-z",
        "--untracked-files=normal",
        "--ignore-submodules=all",
      ],
      timeoutMs,
      env,
    ),
    git(
      cwd,
      [
        "log",
        `--max-count=${maxSubjects}`,
        "--no-merges",
        "--format=%s%x00",
        "--no-show-signature",
      ],
      timeoutMs,
      env,
    ),
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
