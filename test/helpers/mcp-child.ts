/**
 * The stdio MCP server as a raw child process: bytes in on stdin, parsed
 * JSON-RPC lines out of stdout, stderr kept, for tests that speak the wire
 * format by hand instead of through the SDK's client.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TEST_BUNDLE } from "./cli.ts";
import { codeCacheEnv } from "./code-cache-env.ts";
import { makeTempDir } from "./temp-vault.ts";

const REPO = join(import.meta.dirname, "..", "..");
/** The server's sources, for specs about the sources themselves. */
export const SERVER_SOURCES = join(REPO, "mcp", "index.ts");
const BUNDLED_SERVER = join(TEST_BUNDLE, "mcp", "index.js");
/**
 * The server's entry as the specs start it: the bundle global setup builds
 * from the current sources (what the package ships; it answers its first
 * request about four times sooner than the TypeScript sources, and the
 * specs start it hundreds of times), the sources when no setup ran.
 */
export const SERVER = existsSync(BUNDLED_SERVER) ? BUNDLED_SERVER : SERVER_SOURCES;

/** One parsed stdout line (every line the server writes must parse). */
export interface WireMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface RawServer {
  child: ChildProcessWithoutNullStreams;
  messages: WireMessage[];
  stderr(): string;
  /** Writes bytes as they are (the caller adds the newline), honouring stdin's backpressure. */
  write(bytes: string | Buffer): Promise<void>;
  /** Writes one JSON-RPC message and its newline. */
  send(message: object): Promise<void>;
  /** Resolves once `pred` holds on the messages so far; rejects after `guardMs` (a hang guard, not a timing assertion). */
  waitFor(pred: (messages: WireMessage[]) => boolean, guardMs?: number): Promise<void>;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited(): Promise<number | string>;
}

/** A home and caches of the test's own, so nothing of the user's leaks in. */
export function isolatedEnv(): Record<string, string> {
  const home = makeTempDir("llm-wiki-mcp-home-");
  return {
    PATH: process.env.PATH ?? "",
    ...codeCacheEnv(),
    HOME: home,
    WIKI_HOME: home,
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
  };
}

/** Spawns the server (`SERVER --vault <vault>`); the caller kills it if a test fails midway. */
export function spawnRawServer(vault: string, env = isolatedEnv()): RawServer {
  return spawnRawProcess(process.execPath, [SERVER, "--vault", vault], { cwd: REPO, env });
}

/** Spawns any stdio MCP server (`command args`) as a raw child; the caller kills it if a test fails midway. */
export function spawnRawProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): RawServer {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const messages: WireMessage[] = [];
  let pending = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    // A line that does not parse throws here and fails the test: stdout is protocol only.
    for (const line of lines) messages.push(JSON.parse(line) as WireMessage);
    wake();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    wake();
  });
  child.once("exit", wake);
  // Writing to a server that already left is part of some tests.
  child.stdin.on("error", () => {});

  const write = (bytes: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (child.stdin.write(bytes)) resolve();
      else child.stdin.once("drain", resolve);
    });

  return {
    child,
    messages,
    stderr: () => stderr,
    write,
    send: (message) => write(`${JSON.stringify(message)}\n`),
    waitFor(pred, guardMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `hang guard: condition not met; stdout: ${JSON.stringify(messages).slice(0, 2000)}; stderr: ${stderr}`,
            ),
          );
        }, guardMs);
        const check = () => {
          if (pred(messages)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(
              new Error(`server exited (${child.exitCode ?? child.signalCode}); stderr: ${stderr}`),
            );
          }
        };
        waiters.add(check);
        check();
      });
    },
    exited() {
      return new Promise((resolve) => {
        const done = () => resolve(child.exitCode ?? child.signalCode ?? "unknown");
        if (child.exitCode !== null || child.signalCode !== null) done();
        else child.once("exit", done);
      });
    },
  };
}

/** The `initialize` request of a raw client. */
export function initializeRequest(id: number | string): object {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    },
  };
}

/** True once a response with `id` has arrived. */
export function answered(id: unknown): (messages: WireMessage[]) => boolean {
  return (messages) => messages.some((m) => m.id === id && (m.result || m.error));
}

/** The response to `id`; throws when there is none. */
export function responseTo(messages: WireMessage[], id: unknown): WireMessage {
  const found = messages.find((m) => m.id === id && (m.result || m.error));
  if (!found) throw new Error(`no response to ${JSON.stringify(id)}`);
  return found;
}
