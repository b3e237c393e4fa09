/**
 * How the warm hook process reads a session's git context: through its git
 * reader (hook-git-helper.ts), a small process it starts once, so the warm
 * process never forks per hook. The answer is the reader's
 * `readGitContext(cwd)`, the same call a hook makes in its own process.
 * The reader gone, broken or silent past its bound: the read is made here,
 * as in a hook's own process — the answer never depends on which read it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  GIT_TIMEOUT_MS,
  type GitContext,
  readGitContext,
} from "../extensions/llm-wiki/lib/priming/git-context.ts";

/** The helper's file in a build's `cli/` folder, and beside the sources. */
const HELPER_FILES = ["hook-git.bundle.js", "hook-git-helper.ts"];
/**
 * Longest wait for the reader's answer: its three git calls have a bound of
 * GIT_TIMEOUT_MS each (the first alone, the other two together), plus its
 * start. Past it the read is made here.
 */
const ANSWER_WAIT_MS = 3 * GIT_TIMEOUT_MS + 1_000;

/** Reads a work tree's git context; `close` ends the reader's process. */
export interface GitReader {
  read(cwd: string): Promise<GitContext>;
  close(): void;
}

/**
 * Starts the git reader for the build whose `cli/` folder is `cliDir`.
 * Without its file, or when it does not start, every read is made in this
 * process.
 */
export function startGitReader(cliDir: string, env: NodeJS.ProcessEnv): GitReader {
  const file = HELPER_FILES.map((name) => join(cliDir, name)).find((f) => existsSync(f));
  let child: ChildProcess | undefined;
  const pending = new Map<number, (context: GitContext | undefined) => void>();
  let next = 0;
  let buffered = "";
  const gone = () => {
    child = undefined;
    for (const settle of pending.values()) settle(undefined);
    pending.clear();
  };
  if (file !== undefined) {
    try {
      child = spawn(process.execPath, [file], {
        stdio: ["pipe", "pipe", "ignore"],
        cwd: "/",
        env,
      });
      child.on("error", gone);
      child.on("exit", gone);
      child.stdin?.on("error", gone);
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          let answer: { id?: unknown; context?: unknown };
          try {
            answer = JSON.parse(line) as typeof answer;
          } catch {
            continue;
          }
          const settle = typeof answer.id === "number" ? pending.get(answer.id) : undefined;
          settle?.(asContext(answer.context));
        }
      });
      // The reader never keeps this process alive on its own.
      child.unref();
    } catch {
      child = undefined;
    }
  }
  return {
    read(cwd) {
      const reader = child;
      if (reader?.stdin === null || reader === undefined) return readGitContext(cwd);
      const id = next++;
      const answered = new Promise<GitContext | undefined>((resolve) => {
        // A reader that stays silent is ended: the next reads are made here at once.
        const timer = setTimeout(() => {
          reader.kill();
          settle(undefined);
        }, ANSWER_WAIT_MS);
        const settle = (context: GitContext | undefined) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(context);
        };
        pending.set(id, settle);
      });
      reader.stdin.write(`${JSON.stringify({ id, cwd })}\n`);
      return answered.then((context) => context ?? readGitContext(cwd));
    },
    close() {
      child?.kill();
      gone();
    },
  };
}

/** A git context as the reader sent it, or undefined when it has another shape. */
function asContext(value: unknown): GitContext | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const { branch, subjects, files } = value as Record<string, unknown>;
  const strings = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((s) => typeof s === "string");
  if (!strings(subjects) || !strings(files)) return undefined;
  if (branch !== undefined && typeof branch !== "string") return undefined;
  return branch === undefined ? { subjects, files } : { branch, subjects, files };
}
