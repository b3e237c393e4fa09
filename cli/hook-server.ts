/**
 * `llm-wiki hook serve`: the warm hook process. A hook is a fresh process
 * per event and most of its time is loading the bundle; this process has it
 * loaded and answers `hook session-start` and `hook user-prompt` for the
 * thin client the hooks run (bin/hook-client.js), one request per
 * connection, over a Unix socket in a private per-user folder
 * (bin/hook-socket.js). The client starts it, detached, when none is
 * running; it leaves after `LLM_WIKI_HOOK_SERVER_IDLE_MS` without a request
 * (20 minutes unless set), when its socket is removed or replaced, and never
 * starts when `LLM_WIKI_HOOK_SERVER` turns it off.
 *
 * Each request runs the very code the hook runs in its own process
 * (hook-main.ts `runHook`), with the request's input, working folder and
 * output instead of the process's: a fresh service per request, so settings,
 * vault resolution and the index's own freshness checks are those of a cold
 * hook, and an edit made since the process started is seen. Only the index
 * stores stay open from one request to the next (index/reader-pool.ts):
 * each checks the index's data version before it searches. The socket is
 * named by the process's identity (its build, Node, user and the environment
 * the hooks read), which it says first on every connection: a rebuilt
 * bundle or another environment never reaches it.
 *
 * What a client sends is data, bounded and checked (TypeBox): one JSON line
 * of at most `WARM_REQUEST_MAX_BYTES`, the hook's kind and options, an
 * absolute working folder, and the input's bytes or why there are none.
 */
import { chmodSync, lstatSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { type Static, Type } from "typebox";
import { Value } from "typebox/value";
import type { StdinRead } from "../bin/hook-client.js";
import {
  HOOK_STDIN_MAX_BYTES,
  readWarmHello,
  WARM_MAX_SERVED,
  WARM_PROTOCOL,
  WARM_REQUEST_MAX_BYTES,
  warmEnabled,
  warmFailedMarker,
  warmIdentity,
  warmIdleMs,
  warmSocket,
} from "../bin/hook-socket.js";
import { createReaderPool, type ReaderPool } from "../extensions/llm-wiki/lib/index/reader-pool.ts";
import type { HookIo } from "./hook-command.ts";
import { type GitReader, startGitReader } from "./hook-git.ts";

/** How long a connection may stay without its request line (the client reads its input first). */
const REQUEST_WAIT_MS = 15_000;
/** How often the process checks that its socket is still its own. */
const WATCH_MS = 5_000;

const StdinSchema = Type.Union([
  Type.Object(
    {
      kind: Type.Literal("bytes"),
      base64: Type.String({
        maxLength: Math.ceil((HOOK_STDIN_MAX_BYTES * 4) / 3) + 4,
        pattern: "^[A-Za-z0-9+/]*={0,2}$",
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { kind: Type.Union([Type.Literal("tty"), Type.Literal("over"), Type.Literal("timeout")]) },
    { additionalProperties: false },
  ),
  Type.Object(
    { kind: Type.Literal("error"), message: Type.String({ maxLength: 2_000 }) },
    { additionalProperties: false },
  ),
]);

/** One request: a hook the process answers, its options, the client's working folder and input. */
const RequestSchema = Type.Object(
  {
    v: Type.Literal(WARM_PROTOCOL),
    key: Type.String({ pattern: "^[0-9a-f]{20}$" }),
    argv: Type.Union([
      Type.Tuple([Type.Union([Type.Literal("session-start"), Type.Literal("user-prompt")])]),
      Type.Tuple([
        Type.Union([Type.Literal("session-start"), Type.Literal("user-prompt")]),
        Type.Literal("--json"),
      ]),
    ]),
    cwd: Type.String({ minLength: 1, maxLength: 4_096 }),
    stdin: StdinSchema,
  },
  { additionalProperties: false },
);
type WarmRequest = Static<typeof RequestSchema>;

/** The request in `line` when it is one this process answers, else undefined. */
export function parseWarmRequest(line: string, key: string): WarmRequest | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Value.Check(RequestSchema, doc)) return undefined;
  if (doc.key !== key || !isAbsolute(doc.cwd) || doc.cwd.includes("\0")) return undefined;
  return doc;
}

function stdinOf(request: WarmRequest): StdinRead {
  const s = request.stdin;
  if (s.kind === "bytes") return { kind: "bytes", bytes: Buffer.from(s.base64, "base64") };
  if (s.kind === "error") return { kind: "error", message: s.message };
  return { kind: s.kind };
}

/** Answers one request with `runHook`: what it writes, and its exit status. */
async function answer(
  request: WarmRequest,
  git: GitReader,
  readers: ReaderPool,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const { runHook, safeLine } = await import("./hook-main.ts");
  const stdout: string[] = [];
  const stderr: string[] = [];
  // Past the deadline the hook has said so: what the work still running writes is dropped.
  let open = true;
  const io: HookIo = {
    input: async () => {
      const { stdinBytes } = await import("./hook-input.ts");
      return stdinBytes(stdinOf(request));
    },
    cwd: () => request.cwd,
    out: (text) => {
      if (open) stdout.push(text);
    },
    err: (text) => {
      if (open) stderr.push(text);
    },
    overdue: () => {
      open = false;
    },
    env: process.env,
    readGit: (cwd) => git.read(cwd),
    readers,
  };
  let code = 0;
  try {
    code = await runHook(request.argv, io);
  } catch (error) {
    // As the hook's own process says it before it exits 0.
    const why = error instanceof Error ? error.message : String(error);
    stderr.push(`llm-wiki hook: failed: ${safeLine(why)}\n`);
  }
  open = false;
  return { stdout: stdout.join(""), stderr: stderr.join(""), code };
}

/** True when a process of `identity` answers at `path`. */
async function answersAt(path: string, identity: string): Promise<boolean> {
  const hello = (await readWarmHello(path)) as { identity?: unknown } | undefined;
  return hello?.identity === identity;
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The inode at `path`, or undefined when there is nothing there. */
function inodeAt(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

function currentIdentity(cliDir: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return warmIdentity(cliDir, env);
  } catch {
    return undefined;
  }
}

/**
 * Serves hook requests until idle; resolves to the exit status (0 also when
 * it does not start: turned off, no private folder, another process of its
 * identity already answering).
 */
export async function serveHooks(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (!warmEnabled(env)) return 0;
  // The launcher's folder: `dist/cli/` of this build (`..` of a chunk or of an entry).
  const cliDir = fileURLToPath(new URL("../cli/", import.meta.url));
  const socket = warmSocket(cliDir, env);
  if ("refused" in socket) {
    process.stderr.write(`llm-wiki hook serve: ${socket.refused}\n`);
    return 0;
  }
  const { path, identity, key } = socket;
  if (await answersAt(path, identity)) return 0;
  // Loaded before it listens, so the first request finds them.
  await import("./hook-main.ts");
  await import("./hook-command.ts");
  await import("./hook-answer.ts");
  await import("./hook-input.ts");
  // Session start's git calls, made by a small process: a fork of this one costs far more.
  const git = startGitReader(cliDir, env);
  // Each request's service is fresh; the index stores it read stay open for
  // the next, with what they learnt of the index (index/reader-pool.ts).
  const readers = createReaderPool();

  const idleMs = warmIdleMs(env);
  // Said first on every connection: who answers, and how many hooks it has answered.
  let served = 0;
  const hello = () =>
    `${JSON.stringify({ v: WARM_PROTOCOL, identity, pid: process.pid, served })}\n`;
  let active = 0;
  let idle: NodeJS.Timeout | undefined;
  let leaving = false;
  let ownInode: number | undefined;

  const server = createServer((conn) => serve(conn));
  const leave = () => {
    if (leaving) return;
    leaving = true;
    clearTimeout(idle);
    clearInterval(watch);
    server.close();
    git.close();
    void readers.close();
    // Only our own socket: a newer process may have taken the name.
    if (ownInode !== undefined && inodeAt(path) === ownInode) rmSync(path, { force: true });
    if (active === 0) process.exit(0);
  };
  const touch = () => {
    clearTimeout(idle);
    if (!leaving && active === 0) idle = setTimeout(leave, idleMs);
  };
  // Removed or replaced (a racing start took the name), or its build rebuilt
  // or updated: no client reaches this process any more.
  const watch = setInterval(() => {
    if (inodeAt(path) !== ownInode || currentIdentity(cliDir, env) !== identity) leave();
  }, WATCH_MS);
  watch.unref();

  const serve = (conn: Socket) => {
    active += 1;
    touch();
    let buffered = "";
    let size = 0;
    let answered = false;
    conn.setEncoding("utf8");
    conn.setTimeout(REQUEST_WAIT_MS, () => conn.destroy());
    conn.on("error", () => conn.destroy());
    conn.on("close", () => {
      active -= 1;
      if (leaving && active === 0) process.exit(0);
      touch();
    });
    conn.on("data", (chunk: string) => {
      if (answered) return;
      size += Buffer.byteLength(chunk);
      buffered += chunk;
      const nl = buffered.indexOf("\n");
      if (size > WARM_REQUEST_MAX_BYTES || (nl >= 0 && nl !== buffered.length - 1)) {
        conn.destroy();
        return;
      }
      if (nl < 0) return;
      answered = true;
      const request = parseWarmRequest(buffered.slice(0, nl), key);
      buffered = "";
      if (request === undefined) {
        conn.destroy();
        return;
      }
      conn.setTimeout(0);
      void answer(request, git, readers).then(
        (result) => {
          served += 1;
          conn.end(`${JSON.stringify({ v: WARM_PROTOCOL, ...result })}\n`);
          // A bound on what a long life can accumulate: the next hook starts a fresh process.
          if (served >= WARM_MAX_SERVED) leave();
        },
        () => conn.destroy(),
      );
    });
    conn.write(hello());
  };

  // Listened on a name of its own, then renamed over the shared one: a
  // crashed process's socket file is replaced in one step.
  const own = `${path}.${process.pid}`;
  const failed = warmFailedMarker(path);
  try {
    rmSync(own, { force: true });
    await listen(server, own);
    chmodSync(own, 0o600);
    renameSync(own, path);
  } catch (error) {
    // Said where the hooks look before they start another: not again for a while.
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(`llm-wiki hook serve: cannot listen at ${path}: ${why}\n`);
    writeFileSync(failed, `${why}\n`, { mode: 0o600 });
    server.close();
    rmSync(own, { force: true });
    git.close();
    return 1;
  }
  rmSync(failed, { force: true });
  ownInode = inodeAt(path);
  // A rejection left by a request past its deadline is no reason to leave the others.
  process.on("unhandledRejection", () => {});
  // Ended by a signal: its socket goes with it (a SIGKILL's is replaced by the next process).
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, leave);
  touch();
  return new Promise<number>(() => {});
}
