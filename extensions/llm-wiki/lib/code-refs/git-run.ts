/**
 * The only way this project runs git: `git` spawned with fixed arguments
 * (never a shell), names read from pages only after `--` or on standard
 * input, and an environment and `-c` settings that keep the repository's
 * and the user's configuration from running anything: no system or global
 * config, no hooks, no pager, no fsmonitor, no external diff or textconv,
 * literal pathspecs (`*` and `:(…)` mean themselves), no prompt, no
 * optional locks, and a timeout.
 */
import { execFileSync } from "node:child_process";

/**
 * Runs `git <args>` in `cwd`; its standard output, or undefined when git
 * failed or is missing. `noMatchIsEmpty`: exit status 1 is "nothing found"
 * (`git grep`), an empty answer rather than a failure.
 */
export type GitRunner = (
  args: readonly string[],
  options: { cwd: string; input?: string; noMatchIsEmpty?: boolean },
) => string | undefined;

const TIMEOUT_MS = 10_000;
const MAX_OUTPUT = 64 * 1024 * 1024;

/** Settings given on every call, ahead of the subcommand. */
const SAFE_CONFIG = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.pager=cat",
  "-c",
  "diff.external=",
  "-c",
  "core.quotePath=false",
  "--no-pager",
  "--literal-pathspecs",
] as const;

/** The environment git runs with: the caller's PATH and HOME, nothing that configures git. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_* and friends would redirect or reconfigure git.
    if (!key.startsWith("GIT_") && value !== undefined) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_PAGER: "cat",
    PAGER: "cat",
    LC_ALL: "C",
  };
}

/** The real runner: `git` from PATH through `execFileSync`, no shell. */
export const runGit: GitRunner = (args, { cwd, input, noMatchIsEmpty }) => {
  try {
    return execFileSync("git", [...SAFE_CONFIG, ...args], {
      cwd,
      env: gitEnv(),
      encoding: "utf8",
      input: input ?? "",
      maxBuffer: MAX_OUTPUT,
      timeout: TIMEOUT_MS,
      stdio: ["pipe", "pipe", "ignore"],
      windowsHide: true,
    });
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    const stdout = (error as { stdout?: unknown }).stdout;
    if (noMatchIsEmpty && status === 1 && (stdout === "" || stdout === undefined)) return "";
    return undefined;
  }
};
