/**
 * The thin client of the warm hook process. `llm-wiki hook session-start`
 * and `hook user-prompt` are a fresh process per event, and loading the
 * bundle costs most of their time; a warm process (cli/hook-server.ts) has
 * it loaded. The build's launcher (`dist/cli/llm-wiki.js`) calls
 * `answerWarm` before it loads anything else: it connects to the socket
 * for this build and environment (hook-socket.js), checks the process's
 * identity, sends the hook's arguments, working folder and input, and
 * writes back the answer's stdout, stderr and exit status. On any failure
 * (turned off, no private folder, no socket, refused, another identity, no
 * answer in time, a malformed answer) it returns `{ done: false }` and the
 * launcher runs the hook in-process exactly as without a warm process,
 * with the input already read when it was. No socket, or a dead one
 * (a crashed process leaves its file): it starts a fresh process for the
 * next hook, detached, and does not wait for it.
 *
 * Plain JavaScript with Node's own modules only.
 */
import { createRequire } from "node:module";
import {
  HOOK_STDIN_MAX_BYTES,
  HOOK_STDIN_TIMEOUT_MS,
  hookDeadlineMs,
  WARM_PROTOCOL,
  WARM_RETRY_MS,
  warmEnabled,
  warmFailedMarker,
  warmSocket,
} from "./hook-socket.js";

const require = createRequire(import.meta.url);

/** How long the client waits for the process to say who it is. */
const HELLO_MS = 1_000;
/** Most bytes of an answer (a recall block is a few kB). */
const ANSWER_MAX_BYTES = 8 * 1024 * 1024;
/** The hooks a warm process answers. */
export const WARM_HOOKS = ["session-start", "user-prompt"];

/**
 * Reads the hook's input whole: at most `max` bytes, within `timeoutMs`.
 * Resolves to what happened, never rejects: `{ kind: "bytes", bytes }`,
 * `{ kind: "tty" }`, `{ kind: "over" }`, `{ kind: "timeout" }` or
 * `{ kind: "error", message }` (cli/hook-input.ts says each to the user).
 */
export function readHookStdin(max = HOOK_STDIN_MAX_BYTES, timeoutMs = HOOK_STDIN_TIMEOUT_MS) {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    if (stdin.isTTY) {
      resolve({ kind: "tty" });
      return;
    }
    const chunks = [];
    let size = 0;
    const finish = (outcome) => {
      clearTimeout(timer);
      stdin.removeAllListeners("data");
      stdin.removeAllListeners("end");
      stdin.removeAllListeners("error");
      stdin.pause();
      if (outcome.kind !== "bytes") stdin.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMs);
    stdin.on("data", (chunk) => {
      size += chunk.length;
      if (size > max) finish({ kind: "over" });
      else chunks.push(chunk);
    });
    stdin.once("end", () => finish({ kind: "bytes", bytes: Buffer.concat(chunks) }));
    stdin.once("error", (error) =>
      finish({ kind: "error", message: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/**
 * Starts the warm process for `launcher` (the build's `dist/cli/llm-wiki.js`),
 * detached, unless one failed to start at `socketPath` lately; never throws.
 */
function startWarm(launcher, socketPath) {
  try {
    const { statSync } = require("node:fs");
    const failed = statSync(warmFailedMarker(socketPath), { throwIfNoEntry: false });
    if (failed && Date.now() - failed.mtimeMs < WARM_RETRY_MS) return;
    const { spawn } = require("node:child_process");
    const child = spawn(process.execPath, [launcher, "hook", "serve"], {
      detached: true,
      stdio: "ignore",
      cwd: "/",
      env: process.env,
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The next hook tries again; this one answers in-process.
  }
}

/** The request line for the process, the input as base64. */
function requestLine(key, argv, cwd, stdin) {
  const input =
    stdin.kind === "bytes"
      ? { kind: "bytes", base64: stdin.bytes.toString("base64") }
      : stdin.kind === "error"
        ? { kind: "error", message: stdin.message }
        : { kind: stdin.kind };
  return `${JSON.stringify({ v: WARM_PROTOCOL, key, argv, cwd, stdin: input })}\n`;
}

/** The answer when it has the expected shape, else undefined. */
function parseAnswer(line) {
  let doc;
  try {
    doc = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== "object" || doc.v !== WARM_PROTOCOL) return undefined;
  if (typeof doc.stdout !== "string" || typeof doc.stderr !== "string") return undefined;
  if (!Number.isInteger(doc.code) || doc.code < 0 || doc.code > 255) return undefined;
  return doc;
}

/**
 * Asks the warm process to answer `argv` (`[kind, ...options]`, after
 * `hook`) for the build whose launcher is `launcherUrl` (its `file:` URL). Resolves to
 * `{ done: true }` once its answer is written, else `{ done: false, stdin }`
 * with the input when it was read (the in-process hook must not read it
 * again).
 */
export async function answerWarm(launcherUrl, argv) {
  const env = process.env;
  if (!WARM_HOOKS.includes(argv[0]) || !warmEnabled(env)) return { done: false };
  const { dirname } = require("node:path");
  const launcher = require("node:url").fileURLToPath(launcherUrl);
  const socket = warmSocket(dirname(launcher), env);
  if (socket.refused !== undefined) return { done: false };
  let cwd;
  try {
    cwd = process.cwd();
  } catch {
    return { done: false };
  }
  const net = require("node:net");
  // Read while the process is reached; the in-process hook gets it if that fails, never a second read.
  const reading = readHookStdin();
  return new Promise((resolve) => {
    let settled = false;
    let phase = "hello";
    let buffered = "";
    let timer;
    const conn = net.createConnection(socket.path);
    const fail = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      reading.then((stdin) => resolve({ done: false, stdin }));
    };
    timer = setTimeout(fail, HELLO_MS);
    conn.setEncoding("utf8");
    conn.on("error", (error) => {
      // No process listens (none yet, or a crashed one's file): start one for the next hook.
      if (phase === "hello" && (error.code === "ENOENT" || error.code === "ECONNREFUSED"))
        startWarm(launcher, socket.path);
      fail();
    });
    conn.on("close", fail);
    conn.on("data", async (chunk) => {
      buffered += chunk;
      if (buffered.length > ANSWER_MAX_BYTES) return fail();
      const nl = buffered.indexOf("\n");
      if (nl < 0) return;
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (phase === "hello") {
        let hello;
        try {
          hello = JSON.parse(line);
        } catch {
          return fail();
        }
        if (hello?.v !== WARM_PROTOCOL || hello.identity !== socket.identity) return fail();
        phase = "answer";
        clearTimeout(timer);
        conn.pause();
        const stdin = await reading;
        if (settled) return;
        // The process enforces the hook's deadline itself; this only guards against one that hangs.
        timer = setTimeout(fail, hookDeadlineMs(env) + 500);
        conn.write(requestLine(socket.key, argv, cwd, stdin));
        conn.resume();
        return;
      }
      const answer = parseAnswer(line);
      if (answer === undefined) return fail();
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      if (answer.stderr !== "") process.stderr.write(answer.stderr);
      if (answer.stdout !== "") process.stdout.write(answer.stdout);
      process.exitCode = answer.code;
      resolve({ done: true });
    });
  });
}
