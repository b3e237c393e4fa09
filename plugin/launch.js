#!/usr/bin/env node
/**
 * The Claude Code plugin's entry: `node launch.js cli <args…>` runs the
 * `llm-wiki` command line, `node launch.js mcp` the MCP server, each from
 * the bundled build (`dist/`), which starts in a fraction of the time the
 * TypeScript sources take.
 *
 * A plugin installed from the marketplace is a bare git clone: no
 * `node_modules`, no `dist/`. Its runtime is then the npm package of the
 * same version, installed once, in the background, into the plugin's data
 * folder (`CLAUDE_PLUGIN_DATA`, else `~/.llm-wiki/plugin-runtime`), in its
 * lean form (no optional packages, no install scripts: the llama.cpp builds
 * for every GPU are 660 MB of the default 870; lexical recall, hooks and the
 * MCP server need none of them, and a model mode then says which package to
 * add). The first install still takes a while, past a hook's timeout, so
 * no hook waits for it: the session-start hook starts it and
 * says so, a prompt's hook answers nothing (one line on stderr) until it is
 * done, and the MCP server waits for it (Claude Code may give up on the
 * server first: `/mcp` reconnects it). A failed install is retried at a
 * hook after ten minutes; its log is named in the message.
 *
 * Plain JavaScript with Node's own modules only: it runs before anything is
 * installed. A hook exits 0 whatever happens (Claude Code blocks a prompt
 * on exit 2).
 */
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { requireSupportedNode } from "../bin/node-check.js";

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), "..");
const PACKAGE = "llm-wiki-memory";
/** An install older than this that still holds the lock is taken as dead. */
const STALE_LOCK_MS = 30 * 60_000;
/** How long after a failed install the next one is tried. */
const RETRY_AFTER_MS = 10 * 60_000;

const [mode, ...rest] = process.argv.slice(2);
const hook = mode === "cli" && rest[0] === "hook";

function version() {
  return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
}

/** Where the package of this version is installed for the plugin. */
function runtimeDir() {
  const base =
    process.env.LLM_WIKI_PLUGIN_RUNTIME ||
    (process.env.CLAUDE_PLUGIN_DATA
      ? join(process.env.CLAUDE_PLUGIN_DATA, "runtime")
      : join(homedir(), ".llm-wiki", "plugin-runtime"));
  return join(base, `v${version()}`);
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
  const dir = runtimeDir();
  const installed = join(dir, "node_modules", PACKAGE, "dist", `${entry}.js`);
  if (existsSync(join(dir, "ready")) && existsSync(installed)) return installed;
  return undefined;
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
  mkdirSync(dirname(dir), { recursive: true });
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

/** The lean install (README "Install size"): what lexical memory needs, nothing built or fetched by scripts. */
const LEAN = ["--omit=optional", "--ignore-scripts"];

/** `--install`: npm installs the package into the runtime folder, then marks it ready. */
function install() {
  const dir = runtimeDir();
  const log = `${dir}.log`;
  const spec = process.env.LLM_WIKI_PLUGIN_PACKAGE || `${PACKAGE}@${version()}`;
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
    const out = openSync(log, "w");
    const args = ["install", "--no-audit", "--no-fund", ...LEAN, spec];
    writeFileSync(out, `npm ${args.join(" ")}\n`);
    const npm = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", args, {
      cwd: dir,
      stdio: ["ignore", out, out],
      shell: process.platform === "win32",
    });
    closeSync(out);
    if (npm.status === 0 && existsSync(join(dir, "node_modules", PACKAGE, "dist"))) {
      writeFileSync(join(dir, "ready"), `${spec}\n`);
    } else {
      writeFileSync(
        `${dir}.failed`,
        `npm exited ${npm.status ?? npm.error?.message}; see ${log}\n`,
      );
    }
  } catch (error) {
    writeFileSync(`${dir}.failed`, `${error instanceof Error ? error.message : error}\n`);
  } finally {
    rmSync(`${dir}.installing`, { force: true });
  }
}

function notInstalled(state) {
  const log = `${runtimeDir()}.log`;
  return state === "failed"
    ? `llm-wiki: installing the memory's runtime (npm ${PACKAGE}@${version()}) failed; it is tried again in ten minutes (log: ${log}).`
    : `llm-wiki: the memory's runtime (npm ${PACKAGE}@${version()}, lean: about 210 MB) is being installed in the background, once; recall starts when it is done (log: ${log}).`;
}

/** Runs `file` in this process, as if Node had been started on it with `args`. */
async function run(file, args) {
  process.argv = [process.argv[0] ?? process.execPath, file, ...args];
  await import(pathToFileURL(file).href);
}

async function main() {
  if (mode === "--install") return install();
  if (mode === "mcp") {
    requireSupportedNode("llm-wiki-mcp");
    let file = bundled("mcp/index");
    while (file === undefined) {
      const state = ensureInstall();
      if (state === "failed") {
        process.stderr.write(`${notInstalled(state)}\n`);
        process.exit(1);
      }
      await new Promise((done) => setTimeout(done, 1000));
      file = bundled("mcp/index");
    }
    return run(file, rest);
  }
  if (mode !== "cli") {
    process.stderr.write("usage: node launch.js cli <args…> | mcp\n");
    process.exit(2);
  }
  requireSupportedNode(hook ? "llm-wiki hook" : "llm-wiki", hook ? 0 : 2);
  const file = bundled("cli/llm-wiki");
  if (file !== undefined) return run(file, rest);
  const state = ensureInstall();
  const message = notInstalled(state);
  process.stderr.write(`${message}\n`);
  // The session's first hook tells the model too, so it can tell the user.
  if (rest[1] === "session-start") process.stdout.write(`${message}\n`);
  process.exitCode = hook ? 0 : 1;
}

try {
  await main();
} catch (error) {
  process.stderr.write(`llm-wiki plugin: ${error instanceof Error ? error.message : error}\n`);
  process.exitCode = hook ? 0 : 1;
}
