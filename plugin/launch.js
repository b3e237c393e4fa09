#!/usr/bin/env node
/**
 * The Claude Code plugin's entry: `node launch.js cli <args…>` runs the
 * `llm-wiki` command line, `node launch.js mcp` the MCP server, each from
 * the bundled build (`dist/`), which starts in a fraction of the time the
 * TypeScript sources take.
 *
 * A plugin installed from the marketplace is a bare git clone: no
 * `node_modules`, no `dist/`. Its runtime is then built from the clone
 * itself (runtime.js: the package's files, its dependencies in the lean
 * form, `dist/`), once, in the background, into the plugin's data folder
 * (`CLAUDE_PLUGIN_DATA`, else `~/.llm-wiki/plugin-runtime`); it needs the
 * npm registry for the dependencies, not this package on it. No hook waits
 * for it: the session-start hook starts it and tells the user and the
 * model so (the hook's JSON `systemMessage` and context), a prompt's hook
 * answers nothing until it is done, and the MCP server answers the
 * handshake and its tool list at once and holds each call until the
 * runtime is ready (mcp-waiting.js), so the first session has its tools. A
 * failed install is retried at a hook after ten minutes; its log is named
 * in the message.
 *
 * Under a Node older than the package needs, the hooks say so where the
 * user sees it, and the MCP server still connects, answering every call
 * with that line.
 *
 * Plain JavaScript with Node's own modules only: it runs before anything is
 * installed. A hook exits 0 whatever happens (Claude Code blocks a prompt
 * on exit 2).
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  isSupportedNode,
  nodeTooOldLine,
  requireSupportedNode,
  userNotice,
} from "../bin/node-check.js";
import { serveWhileInstalling } from "./mcp-waiting.js";
import {
  ensureParent,
  installRuntime,
  manifestOf,
  PACKAGE,
  pluginRuntimeDir,
  runtimeEntry,
} from "./runtime.js";

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), "..");
/** An install older than this that still holds the lock is taken as dead. */
const STALE_LOCK_MS = 30 * 60_000;
/** How long after a failed install the next one is tried. */
const RETRY_AFTER_MS = 10 * 60_000;
/** How long an MCP call waits for the runtime before it is told the install is still running. */
const CALL_WAIT_MS = 25_000;

const [mode, ...rest] = process.argv.slice(2);
const hook = mode === "cli" && rest[0] === "hook";

function version() {
  return manifestOf(ROOT).version;
}

function runtimeDir() {
  return pluginRuntimeDir(version());
}

/** True when the package's dependencies resolve from `dir` (a folder above it holds them). */
function dependenciesFrom(dir) {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules", "@tobilu", "qmd", "package.json"))) return true;
    if (dirname(at) === at) return false;
  }
}

/** The bundled module for `entry` ("cli/llm-wiki", "mcp/index"), or undefined while there is none. */
function bundled(entry) {
  const own = join(ROOT, "dist", `${entry}.js`);
  if (existsSync(own) && dependenciesFrom(ROOT)) return own;
  return runtimeEntry(runtimeDir(), entry);
}

function ageMs(path) {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Starts the background install unless one runs or failed lately; returns
 * what the user should know: "installing" or "failed".
 */
function ensureInstall() {
  const dir = runtimeDir();
  const lock = `${dir}.installing`;
  const failed = `${dir}.failed`;
  const failedAge = ageMs(failed);
  if (failedAge !== undefined && failedAge < RETRY_AFTER_MS) return "failed";
  const lockAge = ageMs(lock);
  if (lockAge !== undefined && lockAge < STALE_LOCK_MS) return "installing";
  ensureParent(dir);
  rmSync(lock, { force: true });
  let fd;
  try {
    fd = openSync(lock, "wx");
  } catch {
    return "installing";
  }
  writeFileSync(fd, `${JSON.stringify({ pid: process.pid, started: new Date().toISOString() })}\n`);
  closeSync(fd);
  rmSync(failed, { force: true });
  const child = spawn(process.execPath, [HERE, "--install"], {
    detached: true,
    stdio: "ignore",
    env: process.env,
  });
  child.unref();
  return "installing";
}

/** `--install`: builds the runtime from this clone (or installs LLM_WIKI_PLUGIN_PACKAGE), then marks it ready. */
function install() {
  const dir = runtimeDir();
  try {
    const spec = process.env.LLM_WIKI_PLUGIN_PACKAGE || undefined;
    const done = installRuntime({ root: ROOT, dir, spec, log: `${dir}.log` });
    if (!done.ok) writeFileSync(`${dir}.failed`, `${done.message}\n`);
  } catch (error) {
    writeFileSync(`${dir}.failed`, `${error instanceof Error ? error.message : error}\n`);
  } finally {
    rmSync(`${dir}.installing`, { force: true });
  }
}

function notInstalled(state) {
  const log = `${runtimeDir()}.log`;
  let why = "";
  try {
    why = readFileSync(`${runtimeDir()}.failed`, "utf8").trim();
  } catch {
    // No failure recorded.
  }
  return state === "failed"
    ? `llm-wiki: installing the memory's runtime (${PACKAGE} ${version()}) failed${why ? ` (${why})` : ""}; it is tried again in ten minutes (log: ${log}).`
    : `llm-wiki: the memory's runtime (${PACKAGE} ${version()}, lean: about 210 MB, built from the plugin's own files) is being installed in the background, once; recall and the wiki tools start when it is done, in a minute or two (log: ${log}).`;
}

/** Runs `file` in this process, as if Node had been started on it with `args`. */
async function run(file, args) {
  process.argv = [process.argv[0] ?? process.execPath, file, ...args];
  await import(pathToFileURL(file).href);
}

/** The MCP server: the real one when its runtime is there, else the launcher's own until it is. */
function mcp() {
  const oldNode = !isSupportedNode(process.versions.node);
  const file = oldNode ? undefined : bundled("mcp/index");
  if (file !== undefined) return run(file, rest);
  if (oldNode) process.stderr.write(`${nodeTooOldLine("llm-wiki-mcp")}\n`);
  const waitMs = Number(process.env.LLM_WIKI_PLUGIN_CALL_WAIT_MS);
  serveWhileInstalling({
    args: rest,
    waitMs: Number.isInteger(waitMs) && waitMs >= 0 ? waitMs : CALL_WAIT_MS,
    state() {
      if (oldNode) return { kind: "failed", message: nodeTooOldLine("llm-wiki") };
      const ready = bundled("mcp/index");
      if (ready !== undefined) return { kind: "ready", file: ready };
      const state = ensureInstall();
      return { kind: state, message: notInstalled(state) };
    },
  });
}

async function main() {
  if (mode === "--install") return install();
  if (mode === "mcp") return mcp();
  if (mode !== "cli") {
    process.stderr.write("usage: node launch.js cli <args…> | mcp\n");
    process.exit(2);
  }
  requireSupportedNode(
    hook ? "llm-wiki hook" : "llm-wiki",
    hook ? 0 : 2,
    hook ? rest[1] : undefined,
  );
  const file = bundled("cli/llm-wiki");
  if (file !== undefined) return run(file, rest);
  const state = ensureInstall();
  const message = notInstalled(state);
  process.stderr.write(`${message}\n`);
  // The session's first hook tells the user (systemMessage) and the model (context).
  if (hook && rest[1] === "session-start") {
    process.stdout.write(`${userNotice(message, "SessionStart")}\n`);
  }
  process.exitCode = hook ? 0 : 1;
}

try {
  await main();
} catch (error) {
  process.stderr.write(`llm-wiki plugin: ${error instanceof Error ? error.message : error}\n`);
  process.exitCode = hook ? 0 : 1;
}
