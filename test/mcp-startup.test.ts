/**
 * What the stdio server checks at startup (mcp/startup-index.ts), run as a
 * real child process on real vaults indexed beforehand: with no `wiki/`
 * folder changed since the registry was saved, the first recall answers from
 * that registry (the same answer a full check gives) and the check runs
 * right after; a page added while no server ran is seen at once; a page
 * edited in place while no server ran is found once the check has run,
 * whether a tool call or the idle time started it; a client that leaves
 * while the check runs ends the server at the check's next slice.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { createStartupIndex } from "../mcp/startup-index.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { initializeRequest, isolatedEnv, SERVER, spawnRawServer } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

interface Running {
  client: Client;
  stderr(): string;
}

const running: Client[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
  await closeServices();
  removeTempDirs();
});

async function startServer(vault: string): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", vault],
    cwd: REPO,
    env: isolatedEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "llm-wiki-startup-test", version: "0.0.0" });
  await client.connect(transport);
  running.push(client);
  return { client, stderr: () => stderr };
}

async function recall(server: Running, query: string): Promise<RecallResult> {
  const result = (await server.client.callTool({
    name: "wiki_recall",
    arguments: { query },
  })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return metaResult<RecallResult>(result);
}

/** Resolves once `probe` gives a value; throws after `guardMs` (a hang guard, not a timing assertion). */
async function eventually<T>(probe: () => Promise<T | undefined>, guardMs = 60_000): Promise<T> {
  const until = Date.now() + guardMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`gave up after ${guardMs} ms`);
    await sleep(100);
  }
}

/** A vault indexed (and its registry saved) by a service that has since gone. */
async function indexedVault(): Promise<TempVault> {
  const vault = makeTempVault({
    pages: {
      "concepts/harbour": pageText(
        { type: "concept", title: "Harbour crane" },
        "The harbour crane schedule rotates weekly.\n",
      ),
      "concepts/tides": pageText(
        { type: "concept", title: "Tide tables" },
        "Tide tables decide when the crane may lift.\n",
      ),
      "sources/log": pageText({ type: "source", title: "Crane log" }, "Lifts per week.\n"),
    },
  });
  const built = await serviceFor(vault.root).reindex({ scope: "all" });
  expect(built.ok).toBe(true);
  await closeServices();
  return vault;
}

function ids(result: RecallResult): Array<[string, number]> {
  return result.results.map((r) => [r.id, r.score]);
}

describe("the server's startup check", () => {
  it("answers the first recall from the registry as last saved, as a full check would", async () => {
    const vault = await indexedVault();
    const expected = await serviceFor(vault.root).recall({ query: "harbour crane schedule" });
    await closeServices();
    const server = await startServer(vault.root);
    const first = await recall(server, "harbour crane schedule");
    expect(ids(first)).toEqual(ids(expected));
    expect(first.results[0]?.id).toBe("concepts/harbour");
    // Nothing was stale, so the check that follows the answer updates nothing.
    expect(server.stderr()).not.toContain("updating it in the background");
  });

  it("sees a page added while no server ran in the very first recall", async () => {
    const vault = await indexedVault();
    vault.writePage(
      "concepts/quasar",
      pageText({ type: "concept", title: "Quasar lantern" }, "A lamp.\n"),
    );
    const server = await startServer(vault.root);
    const first = await recall(server, "Quasar lantern");
    expect(first.results.map((r) => r.id)).toContain("concepts/quasar");
  });

  it("finds a page edited in place while no server ran once the check after the first answer has run", async () => {
    const vault = await indexedVault();
    const marker = `zq${Date.now().toString(36)}marker`;
    writeFileSync(
      vault.pageFile("concepts/tides"),
      pageText({ type: "concept", title: "Tide tables" }, `Tide tables now say ${marker}.\n`),
    );
    const server = await startServer(vault.root);
    await recall(server, "tide tables");
    const found = await eventually(async () => {
      const again = await recall(server, marker);
      return again.results.some((r) => r.id === "concepts/tides") ? again : undefined;
    });
    expect(found.results[0]?.id).toBe("concepts/tides");
    // The line may still be in the pipe when the answer arrives (a loaded machine).
    const said = `index stale at ${vault.root}; updating it in the background`;
    await eventually(async () => (server.stderr().includes(said) ? true : undefined));
    expect(server.stderr()).toContain(said);
  });

  it("runs the check on its own when no tool call comes", async () => {
    const vault = await indexedVault();
    const marker = `zq${Date.now().toString(36)}idle`;
    writeFileSync(
      vault.pageFile("concepts/tides"),
      pageText({ type: "concept", title: "Tide tables" }, `Tide tables now say ${marker}.\n`),
    );
    const server = await startServer(vault.root);
    await eventually(async () =>
      server.stderr().includes("updating it in the background") ? true : undefined,
    );
    const found = await eventually(async () => {
      const again = await recall(server, marker);
      return again.results.some((r) => r.id === "concepts/tides") ? again : undefined;
    });
    expect(found.results.map((r) => r.id)).toContain("concepts/tides");
  });
});

describe("the startup check, when the client leaves", () => {
  it("stops between two slices: the server exits within its deadline without finishing the check", {
    timeout: 180_000,
  }, async () => {
    const pages: Record<string, string> = {};
    const page = (i: number) =>
      pageText(
        { type: "concept", title: `Page ${i} ${randomWord(4, 9)}` },
        `${randomWords(120, 3, 9)}\n`,
      );
    for (let i = 0; i < 3_000; i += 1) pages[`concepts/p${i}`] = page(i);
    const vault = makeTempVault({ pages });
    const built = await serviceFor(vault.root).reindex({ scope: "all" });
    expect(built.ok).toBe(true);
    await closeServices();
    // Every page edited in place while no server ran: the first recall answers
    // from the saved registry, and the check after it parses every page again.
    for (let i = 0; i < 3_000; i += 1) writeFileSync(vault.pageFile(`concepts/p${i}`), page(i));

    const server = spawnRawServer(vault.root);
    try {
      await server.send(initializeRequest(1));
      await server.waitFor((messages) => messages.some((m) => m.id === 1));
      await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await server.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "wiki_recall", arguments: { query: "page" } },
      });
      await server.waitFor((messages) => messages.some((m) => m.id === 2));
      // The check starts a turn after that answer: leave at once.
      server.child.stdin.end();
      // 0: cleanup finished within the server's 2 s deadline (1 when it had to give up on it).
      expect(await server.exited(), server.stderr()).toBe(0);
      expect(server.stderr()).toContain("standard input closed; stopping");
      // Stopped before its end: it never came to the index status it would find stale.
      expect(server.stderr()).not.toContain("updating it in the background");
    } finally {
      server.child.kill();
    }
  });
});

/** The active vault's handle of `service`. */
function activeHandle(service: WikiService) {
  const [vault] = service.resolveVaults("active");
  if (!vault) throw new Error("no vault");
  return service.handles.get(vault);
}

describe("the startup check, in process", () => {
  it("lets recall answer from the saved registry until a tool call was answered, then checks", async () => {
    const vault = await indexedVault();
    const service = serviceFor(vault.root);
    const lines: string[] = [];
    const startup = createStartupIndex(service, (line) => lines.push(line), { idleMs: 600_000 });
    startup.start();
    expect(activeHandle(service).answersFromSaved()).toBe(true);
    const first = await service.recall({ query: "harbour crane schedule" });
    expect(first.results[0]?.id).toBe("concepts/harbour");
    expect(activeHandle(service).answersFromSaved()).toBe(true);
    startup.answered();
    // The check starts a turn after the answer, then runs in slices.
    await new Promise((done) => setImmediate(done));
    await startup.checked();
    expect(activeHandle(service).answersFromSaved()).toBe(false);
    expect(lines).toEqual([]);
    await startup.stop();
  });

  it("checks at once when a wiki/ folder changed while no server ran", async () => {
    const vault = await indexedVault();
    vault.writePage("concepts/quasar", pageText({ type: "concept", title: "Quasar lantern" }));
    const service = serviceFor(vault.root);
    const lines: string[] = [];
    const startup = createStartupIndex(service, (line) => lines.push(line));
    startup.start();
    expect(activeHandle(service).answersFromSaved()).toBe(false);
    await startup.checked();
    expect(lines).toEqual([`index stale at ${vault.root}; updating it in the background`]);
    await startup.stop();
  });

  it("walks the personal vault answering from its saved registry in the check at once too", async () => {
    const personal = await indexedVault();
    const vault = await indexedVault();
    vault.writePage("concepts/quasar", pageText({ type: "concept", title: "Quasar lantern" }));
    const service = serviceFor(vault.root, { home: personal.root, discover: true });
    const own = service.resolveVaults("all").find((v) => v.root === personal.root);
    if (!own) throw new Error("the personal vault was not found");
    const startup = createStartupIndex(service, () => undefined);
    startup.start();
    expect(activeHandle(service).answersFromSaved()).toBe(false);
    // Walked now, not left on its saved registry until some later refresh.
    expect(service.handles.get(own).answersFromSaved()).toBe(false);
    await startup.stop();
  });
});
