/**
 * The plugin's MCP server on a first start, as Claude Code meets it: a
 * marketplace clone with nothing installed, the runtime's install still
 * running. The launcher answers the handshake and the tool list at once
 * (from plugin/mcp-listing.json, which must be what the real server lists),
 * holds a call until the runtime is ready and then answers it from the real
 * server, and tells the client the lists changed. A call that cannot wait
 * is told the install is running, one after a failed install that it
 * failed; an older Node gets its one line as every call's answer. None of
 * them loses the connection.
 *
 * The install is made deliberately slow by an `npm` first on PATH that
 * waits for the test to release it, then runs the real npm on a stand-in
 * runtime tarball (offline): the test checks the handshake while the
 * install is held, so nothing here depends on timing.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSupportedNode, REQUIRED_NODE } from "../bin/node-check.js";
import { LISTING_FILE, readServerListing } from "../scripts/plugin-listing.ts";
import { childEnv } from "./helpers/index-services.ts";
import {
  answered,
  initializeRequest,
  type RawServer,
  responseTo,
  spawnRawProcess,
  type WireMessage,
} from "./helpers/mcp-child.ts";
import { fakeRuntimeTarball, pluginClone } from "./helpers/plugin-runtime.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");
const listing = JSON.parse(readFileSync(LISTING_FILE, "utf8")) as {
  tools: Array<{ name: string }>;
};

let clone = "";
let tarball = "";
const running: RawServer[] = [];

beforeAll(() => {
  clone = pluginClone();
  tarball = fakeRuntimeTarball();
}, 300_000);
afterAll(() => {
  for (const server of running) server.child.kill();
  removeTempDirs();
});

/** A folder with an `npm` that waits until `release` exists, then runs the real npm. */
function heldNpm(): { bin: string; release: string } {
  const bin = makeTempDir("llm-wiki-held-npm-");
  const release = join(bin, "release");
  const npm = execFileSync("bash", ["-c", "command -v npm"], { encoding: "utf8" }).trim();
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\nwhile [ ! -e '${release}' ]; do sleep 0.1; done\nexec '${npm}' "$@"\n`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  return { bin, release };
}

function example(): string {
  const vault = join(makeTempDir("llm-wiki-plugin-mcp-vault-"), "acme-notes");
  cpSync(EXAMPLE, vault, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  return vault;
}

function launch(cwd: string, env: NodeJS.ProcessEnv, node = process.execPath): RawServer {
  const server = spawnRawProcess(node, [join(clone, "plugin", "launch.js"), "mcp"], { cwd, env });
  running.push(server);
  return server;
}

function call(id: number, name: string, args: object = {}): object {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

function text(message: WireMessage): string {
  const content = (message.result?.content ?? []) as Array<{ text?: string }>;
  return content.map((c) => c.text ?? "").join("\n");
}

describe("the plugin's static listing", () => {
  it("is what the real server lists (regenerate with pnpm plugin:listing)", async () => {
    expect(JSON.parse(await readServerListing())).toEqual(listing);
  }, 120_000);
});

describe("the plugin's MCP server on a first start, its runtime still installing", () => {
  it("answers the handshake and lists its tools at once; a call waits for the runtime, then the real server answers it", async () => {
    const held = heldNpm();
    const runtime = makeTempDir("llm-wiki-plugin-runtime-");
    const env = childEnv({
      PATH: `${held.bin}:${process.env.PATH ?? ""}`,
      LLM_WIKI_PLUGIN_RUNTIME: runtime,
      LLM_WIKI_PLUGIN_PACKAGE: tarball,
      // Long enough that the held call is answered by the real server, not by the launcher.
      LLM_WIKI_PLUGIN_CALL_WAIT_MS: "600000",
    });
    const server = launch(example(), env);
    await server.send(initializeRequest(1));
    await server.waitFor(answered(1));
    const init = responseTo(server.messages, 1).result ?? {};
    expect(init.serverInfo).toMatchObject({ name: "llm-wiki" });
    expect(init.capabilities).toMatchObject({ tools: { listChanged: true } });
    expect(String(init.instructions)).toContain("being installed");
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await server.waitFor(answered(2));
    const tools = (responseTo(server.messages, 2).result?.tools ?? []) as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(listing.tools.map((t) => t.name));
    expect(tools.map((t) => t.name)).toContain("wiki_recall");
    await server.send(call(3, "wiki_status"));
    await server.send({ jsonrpc: "2.0", id: 4, method: "ping" });
    await server.waitFor(answered(4));
    // Still installing: the call is held, not failed.
    expect(server.messages.some((m) => m.id === 3)).toBe(false);
    writeFileSync(held.release, "");
    await server.waitFor(answered(3), 300_000);
    const status = responseTo(server.messages, 3);
    expect(status.result?.isError, text(status)).not.toBe(true);
    expect(text(status)).toMatch(/pages/i);
    expect(server.messages.some((m) => m.method === "notifications/tools/list_changed")).toBe(true);
    // From now on the real server answers, through the launcher.
    await server.send({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    await server.waitFor(answered(5));
    expect(responseTo(server.messages, 5).result?.tools).toEqual(tools);
    server.child.stdin.end();
    expect(await server.exited()).toBe(0);
  }, 600_000);

  it("a call that cannot wait is told the runtime is installing; the connection stays", async () => {
    const held = heldNpm();
    const env = childEnv({
      PATH: `${held.bin}:${process.env.PATH ?? ""}`,
      LLM_WIKI_PLUGIN_RUNTIME: makeTempDir("llm-wiki-plugin-runtime-"),
      LLM_WIKI_PLUGIN_PACKAGE: tarball,
      LLM_WIKI_PLUGIN_CALL_WAIT_MS: "0",
    });
    const server = launch(makeTempDir("llm-wiki-plugin-cwd-"), env);
    await server.send(initializeRequest(1));
    await server.send(call(2, "wiki_recall", { query: "cache" }));
    await server.waitFor(answered(2));
    const answer = responseTo(server.messages, 2);
    expect(answer.result?.isError).toBe(true);
    expect(text(answer)).toContain("is being installed in the background");
    expect(text(answer)).toContain("Try the call again");
    await server.send({ jsonrpc: "2.0", id: 3, method: "ping" });
    await server.waitFor(answered(3));
    writeFileSync(held.release, "");
    server.child.stdin.end();
    expect(await server.exited()).toBe(0);
  }, 300_000);

  it("after a failed install every call says so, with the log, and the connection stays", async () => {
    const runtime = makeTempDir("llm-wiki-plugin-runtime-");
    const env = childEnv({
      LLM_WIKI_PLUGIN_RUNTIME: runtime,
      LLM_WIKI_PLUGIN_PACKAGE: join(makeTempDir("llm-wiki-missing-"), "no-such.tgz"),
    });
    const server = launch(makeTempDir("llm-wiki-plugin-cwd-"), env);
    await server.send(initializeRequest(1));
    await server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await server.waitFor(answered(2));
    await server.send(call(3, "wiki_status"));
    await server.waitFor(answered(3), 300_000);
    const answer = responseTo(server.messages, 3);
    expect(answer.result?.isError).toBe(true);
    expect(text(answer)).toContain("failed");
    expect(text(answer)).toContain(".log");
    await server.send(call(4, "wiki_status"));
    await server.waitFor(answered(4));
    expect(text(responseTo(server.messages, 4))).toContain("failed");
    server.child.stdin.end();
    expect(await server.exited()).toBe(0);
  }, 600_000);

  it("under an older Node it connects, lists its tools, and answers each call with the Node it needs", async () => {
    const old = ["/usr/bin/node", "/usr/local/bin/node"].find((node) => {
      const v = spawnSync(node, ["--version"], { encoding: "utf8" });
      return v.status === 0 && !isSupportedNode(v.stdout.trim());
    });
    // This machine and CI's have the system's Node 20 beside the project's Node 22.
    expect(old, `a Node older than ${REQUIRED_NODE} in /usr/bin or /usr/local/bin`).toBeDefined();
    const runtime = makeTempDir("llm-wiki-plugin-runtime-");
    const env = childEnv({ LLM_WIKI_PLUGIN_RUNTIME: runtime });
    const server = launch(makeTempDir("llm-wiki-plugin-cwd-"), env, old);
    await server.send(initializeRequest(1));
    await server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await server.send(call(3, "wiki_recall", { query: "anything" }));
    await server.waitFor(answered(3));
    expect(responseTo(server.messages, 2).result?.tools).toEqual(listing.tools);
    const answer = responseTo(server.messages, 3);
    expect(answer.result?.isError).toBe(true);
    expect(text(answer)).toContain(`needs Node.js ${REQUIRED_NODE}`);
    expect(server.stderr()).toContain(REQUIRED_NODE);
    server.child.stdin.end();
    expect(await server.exited()).toBe(0);
  }, 300_000);
});
