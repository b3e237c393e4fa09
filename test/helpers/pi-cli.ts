/**
 * The real `pi` command in a child process, with the extension from this
 * checkout and Pi's faux model (`pi-faux-extension.ts`): print mode (`-p`),
 * JSON mode (`--mode json`, one event per line on stdout) and RPC mode
 * (`--mode rpc`, JSON lines on stdin and stdout). HOME and Pi's agent folder
 * are the test's, so neither the user's settings nor their trust decisions
 * reach it. `env` adds variables: the faux model's script and request log
 * (`LLM_WIKI_FAUX_SCRIPT`, `LLM_WIKI_FAUX_LOG`).
 */
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { codeCacheEnv } from "./code-cache-env.ts";
import { EXTENSION } from "./pi-session.ts";

/** Pi's command-line entry, beside its main module in the installed package. */
export const PI_CLI = join(
  dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent"))),
  "cli.js",
);
const FAUX = join(import.meta.dirname, "pi-faux-extension.ts");

export interface PiCliDirs {
  home: string;
  agentDir: string;
  project: string;
}

/** Pi's command line (after Node) in `mode` (`[]`: the terminal UI), with the extension and the faux model. */
export function piArgs(mode: string[]): string[] {
  return [
    PI_CLI,
    ...mode,
    "--no-session",
    "-e",
    EXTENSION,
    "-e",
    FAUX,
    "--provider",
    "faux",
    "--model",
    "faux-1",
  ];
}

/** What a run adds to Pi's environment. */
export interface PiRunOptions {
  env?: Record<string, string>;
}

/** Pi's environment: only PATH, the test's HOME and agent folder, no personal vault, and `env`. */
export function piEnv(dirs: PiCliDirs, options: PiRunOptions = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: dirs.home,
    WIKI_HOME: join(dirs.home, "no-personal"),
    PI_CODING_AGENT_DIR: dirs.agentDir,
    ...codeCacheEnv(),
    ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
    ...options.env,
  };
}

/** `pi -p <prompt…>` in the project (several prompts run one after the other), to its end. */
export function piPrint(
  dirs: PiCliDirs,
  prompt: string | string[],
  options: PiRunOptions = {},
): { status: number | null; stdout: string; stderr: string } {
  const prompts = typeof prompt === "string" ? [prompt] : prompt;
  const out = spawnSync(process.execPath, [...piArgs(["-p"]), ...prompts], {
    cwd: dirs.project,
    env: piEnv(dirs, options),
    encoding: "utf8",
    // A hang guard, not a measurement.
    timeout: 300_000,
  });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** One JSON line Pi wrote in JSON or RPC mode. */
export type RpcLine = Record<string, unknown>;

function parseLine(text: string): RpcLine {
  try {
    return JSON.parse(text) as RpcLine;
  } catch {
    return { unparsed: text };
  }
}

/** `pi --mode json <prompt…>` in the project, to its end: its event lines and standard error. */
export function piJson(
  dirs: PiCliDirs,
  prompts: string[],
  options: PiRunOptions = {},
): { status: number | null; lines: RpcLine[]; stderr: string } {
  const out = spawnSync(process.execPath, [...piArgs(["--mode", "json"]), ...prompts], {
    cwd: dirs.project,
    env: piEnv(dirs, options),
    encoding: "utf8",
    // A hang guard, not a measurement.
    timeout: 300_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  const lines = out.stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(parseLine);
  return { status: out.status, lines, stderr: out.stderr };
}

/**
 * `pi --mode rpc` in the project: sends each prompt, waits until a line
 * satisfies `until` for it, then closes Pi's standard input. Returns every
 * line Pi wrote.
 */
export async function piRpc(
  dirs: PiCliDirs,
  steps: Array<{ prompt: string; until: (line: RpcLine) => boolean }>,
  options: PiRunOptions = {},
): Promise<RpcLine[]> {
  const child = spawn(process.execPath, piArgs(["--mode", "rpc"]), {
    cwd: dirs.project,
    env: piEnv(dirs, options),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const lines: RpcLine[] = [];
  const waiters: Array<() => void> = [];
  const reader = createInterface({ input: child.stdout });
  reader.on("line", (text) => {
    lines.push(parseLine(text));
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  // A hang guard, not a measurement: a step that never comes fails with what Pi said.
  const guard = setTimeout(() => child.kill("SIGKILL"), 300_000);
  try {
    for (const [index, step] of steps.entries()) {
      const from = lines.length;
      child.stdin.write(
        `${JSON.stringify({ id: `p${index}`, type: "prompt", message: step.prompt })}\n`,
      );
      for (;;) {
        if (lines.slice(from).some(step.until)) break;
        const woke = await Promise.race([
          new Promise<boolean>((resolve) => waiters.push(() => resolve(true))),
          exited.then(() => false),
        ]);
        if (!woke && !lines.slice(from).some(step.until)) {
          throw new Error(
            `pi --mode rpc ended before "${step.prompt}" answered:\n${JSON.stringify(lines)}\n${stderr}`,
          );
        }
      }
    }
  } finally {
    child.stdin.end();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
    clearTimeout(guard);
  }
  return lines;
}

/** The messages of Pi's RPC notices (`extension_ui_request`, method `notify`), in order. */
export function rpcNotices(lines: readonly RpcLine[]): string[] {
  return lines
    .filter((l) => l.type === "extension_ui_request" && l.method === "notify")
    .map((l) => String(l.message));
}
