/**
 * The plugin's MCP server while its runtime is not there yet (a first
 * start from a marketplace clone, or a Node too old to run it): the
 * launcher itself speaks MCP over stdio, so a client connects at once
 * whatever is still installing. It answers the handshake and the lists
 * (`tools/list`, `prompts/list`, `resources/templates/list`) from the
 * listing the real server gave when it was generated (mcp-listing.json,
 * `pnpm plugin:listing`), and holds every call until the runtime is ready,
 * for at most `waitMs`; a call still waiting then, or one made after the
 * install failed, is answered with a clear "still installing" or "failed"
 * error, never a dropped connection. Once the runtime is ready the real
 * server is started as a child, given the client's own `initialize`, and
 * every line from then on is passed through both ways; the client is told
 * that the tool and resource lists changed, so it reads the real ones
 * (the working-memory tools, the vault's pages).
 *
 * Plain JavaScript with Node's own modules only: it runs before anything is
 * installed, on any Node.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const LISTING = join(dirname(fileURLToPath(import.meta.url)), "mcp-listing.json");
/** The id of the `initialize` the launcher sends the real server for the client. */
const HANDOFF_ID = "llm-wiki-launch:initialize";
/** JSON-RPC's "internal error": the request was fine, the server cannot serve it now. */
const UNAVAILABLE = -32603;

/** The listing the plugin ships (written by scripts/plugin-listing.ts from the real server). */
export function readListing() {
  return JSON.parse(readFileSync(LISTING, "utf8"));
}

/**
 * Serves MCP on this process's stdin/stdout until the runtime is ready.
 * `state()` returns `{ kind: "ready", file }`, `{ kind: "installing", message }`
 * or `{ kind: "failed", message }` (a failure that will not clear while this
 * process runs: an install that failed, a Node too old); it is asked every
 * `pollMs`. `args` go to the real server.
 */
export function serveWhileInstalling({ state, args = [], waitMs = 25_000, pollMs = 500 }) {
  const listing = readListing();
  /** Requests read before the handoff, in order, with when each came. */
  const queue = [];
  let initialize;
  let child;
  let handedOver = false;
  let inputEnded = false;
  let current = state();

  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const reply = (id, result) => send({ jsonrpc: "2.0", id, result });
  const fail = (id, message) => send({ jsonrpc: "2.0", id, error: { code: UNAVAILABLE, message } });

  /** Answers a held request that can no longer wait: a tool call gets a tool error the model reads. */
  function answerUnavailable(entry, message) {
    if (entry.message.method === "tools/call") {
      reply(entry.message.id, { content: [{ type: "text", text: message }], isError: true });
    } else fail(entry.message.id, message);
  }

  function initializeResult(params) {
    const asked = params?.protocolVersion;
    const protocolVersion = listing.protocolVersions.includes(asked)
      ? asked
      : listing.protocolVersions[0];
    const notice =
      current.kind === "ready" ? "" : `\n\nNot ready yet: ${current.message ?? "starting"}`;
    return {
      protocolVersion,
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true },
      },
      serverInfo: listing.serverInfo,
      instructions: `${listing.instructions}${notice}`,
    };
  }

  /** What the launcher answers itself; false for what must wait for the real server. */
  function answerStatically(message) {
    switch (message.method) {
      case "initialize":
        initialize = message;
        reply(message.id, initializeResult(message.params));
        return true;
      case "ping":
        reply(message.id, {});
        return true;
      case "tools/list":
        reply(message.id, { tools: listing.tools });
        return true;
      case "prompts/list":
        reply(message.id, { prompts: listing.prompts });
        return true;
      case "resources/templates/list":
        reply(message.id, { resourceTemplates: listing.resourceTemplates });
        return true;
      case "resources/list":
        // The vault's pages come with the real server (resources/list_changed).
        reply(message.id, { resources: [] });
        return true;
      default:
        return false;
    }
  }

  function readLine(line) {
    if (line.trim() === "") return;
    if (handedOver) {
      child.stdin.write(`${line}\n`);
      return;
    }
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      return;
    }
    if (message === null || typeof message !== "object") return;
    const isRequest = typeof message.method === "string" && message.id !== undefined;
    if (isRequest && answerStatically(message)) return;
    if (message.method === "notifications/initialized") return;
    if (message.method === "notifications/cancelled") {
      const at = queue.findIndex((e) => e.message.id === message.params?.requestId);
      if (at >= 0) queue.splice(at, 1);
      return;
    }
    if (isRequest && current.kind === "failed") {
      answerUnavailable({ message }, current.message);
      return;
    }
    queue.push({ message, line, at: Date.now() });
    tick();
  }

  /** Starts the real server and gives it the client's handshake; the queue follows its answer. */
  function handOver(file) {
    child = spawn(process.execPath, [file, ...args], {
      stdio: ["pipe", "pipe", "inherit"],
      env: process.env,
    });
    let pending = "";
    let initialized = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      if (initialized) {
        process.stdout.write(chunk);
        return;
      }
      pending += chunk;
      let end = pending.indexOf("\n");
      while (end >= 0 && !initialized) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          message = undefined;
        }
        if (message?.id === HANDOFF_ID) {
          initialized = true;
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
          );
          handedOver = true;
          for (const entry of queue.splice(0)) child.stdin.write(`${entry.line}\n`);
          send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
          send({ jsonrpc: "2.0", method: "notifications/resources/list_changed" });
          if (pending !== "") process.stdout.write(pending);
          pending = "";
          if (inputEnded) child.stdin.end();
        } else if (line.trim() !== "") process.stdout.write(`${line}\n`);
        end = pending.indexOf("\n");
      }
    });
    child.on("exit", (code, signal) => {
      process.exitCode = code ?? (signal ? 1 : 0);
      process.exit();
    });
    child.stdin.on("error", () => {
      // The server left; its exit ends this process.
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: HANDOFF_ID, method: "initialize", params: initialize.params })}\n`,
    );
  }

  let timer;
  function tick() {
    if (child) return;
    current = state();
    if (current.kind === "ready" && initialize) {
      clearInterval(timer);
      handOver(current.file);
      return;
    }
    const now = Date.now();
    for (let i = queue.length - 1; i >= 0; i -= 1) {
      const entry = queue[i];
      if (entry.message.id === undefined) continue;
      if (current.kind === "failed") answerUnavailable(entry, current.message);
      else if (now - entry.at >= waitMs) answerUnavailable(entry, stillInstalling(current));
      else continue;
      queue.splice(i, 1);
    }
    if (inputEnded) finish();
  }

  function stillInstalling(now) {
    return `${now.message ?? "llm-wiki is starting"} Try the call again in a minute.`;
  }

  /** The client has left: every request read is answered, then this process exits. */
  function finish() {
    if (child) return;
    for (const entry of queue.splice(0)) {
      if (entry.message.id !== undefined) answerUnavailable(entry, stillInstalling(current));
    }
    clearInterval(timer);
    process.stdout.write("", () => process.exit(0));
  }

  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffered += chunk;
    let end = buffered.indexOf("\n");
    while (end >= 0) {
      const line = buffered.slice(0, end).replace(/\r$/, "");
      buffered = buffered.slice(end + 1);
      readLine(line);
      end = buffered.indexOf("\n");
    }
  });
  process.stdin.on("end", () => {
    if (buffered !== "") readLine(buffered);
    buffered = "";
    inputEnded = true;
    if (handedOver) child.stdin.end();
    else if (!child) finish();
  });
  timer = setInterval(tick, pollMs);
}
