/**
 * The MCP server's warm-up after the handshake (lib/recall-warmup.ts, shared by any long-lived host): it
 * opens each vault's index and builds the question parsers before the first
 * call, so it must change no answer (a recall after it equals one without
 * it, and a real server answers a client that waited after the handshake
 * byte for byte as one that asked at once), never stand in a writer's way
 * (the index it opened takes a reindex by another service, whose page the
 * next recall finds), settle quietly on a vault with no index or none at
 * all, creating nothing, and run no step once stopped.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { createRecallWarmup } from "../extensions/llm-wiki/lib/recall-warmup.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

const opened: Array<WikiService | Client> = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await closeServices();
  removeTempDirs();
});

/** A service as the MCP server makes it: lexical-first, no personal vault. */
function serverService(root: string): WikiService {
  const home = makeTempDir("llm-wiki-home-");
  const service = createWikiService({
    cwd: root,
    vault: root,
    env: { ...process.env, HOME: home, WIKI_HOME: home },
    lexicalFirst: true,
  });
  opened.push(service);
  return service;
}

/** A vault of a few pages of fresh random words, indexed by a service that has since gone; its words. */
async function indexedVault(): Promise<{ vault: TempVault; words: string[] }> {
  const words = Array.from({ length: 4 }, () => randomWord(6, 9));
  const pages: Record<string, string> = {};
  words.forEach((word, i) => {
    pages[`concepts/${word}`] = pageText(
      { type: "concept", title: `${word} ${words[(i + 1) % words.length]}` },
      `${word} ${randomWords(30)} ${words[(i + 2) % words.length]}.\n`,
    );
  });
  const vault = makeTempVault({ pages });
  const built = await serviceFor(vault.root).reindex({ scope: "all" });
  expect(built.ok).toBe(true);
  await closeServices();
  return { vault, words };
}

/** A recall's answer without its timings (the only part two identical recalls may differ in). */
function answerOf(result: RecallResult): unknown {
  return JSON.parse(
    JSON.stringify(result, (key, value) =>
      key === "ms" || key === "durationMs" || key === "stages" ? undefined : value,
    ),
  );
}

describe("the MCP server's warm-up after the handshake", () => {
  it("changes no answer: a recall after it equals one made without it", async () => {
    const { vault, words } = await indexedVault();
    const query = `${words[0]} ${words[1]}`;
    const warmed = serverService(vault.root);
    const warmup = createRecallWarmup(warmed);
    warmup.start();
    await warmup.settled();
    const cold = serverService(vault.root);
    const [a, b] = [await warmed.recall({ query }), await cold.recall({ query })];
    expect(a.results.length).toBeGreaterThan(0);
    expect(answerOf(a)).toEqual(answerOf(b));
  });

  it("leaves the index to a writer: another service's reindex goes through and the next recall finds its page", async () => {
    const { vault } = await indexedVault();
    const reader = serverService(vault.root);
    const warmup = createRecallWarmup(reader);
    warmup.start();
    await warmup.settled();
    const marker = randomWord(10, 12);
    vault.writePage("concepts/added", pageText({ type: "concept", title: marker }, `${marker}.\n`));
    const writer = serverService(vault.root);
    const written = await writer.reindex({ scope: "changed" });
    expect(written.ok).toBe(true);
    const found = await reader.recall({ query: marker });
    expect(found.results.map((r) => r.id)).toContain("concepts/added");
  });

  it("settles on a vault never indexed, and on one removed since, creating nothing", async () => {
    const never = makeTempVault({
      pages: { "concepts/lone": pageText({ type: "concept", title: "Lone page" }, "Alone.\n") },
    });
    const before = snapshotFiles(never.root);
    const warmup = createRecallWarmup(serverService(never.root));
    warmup.start();
    await warmup.settled();
    expect(snapshotFiles(never.root)).toEqual(before);

    const { vault } = await indexedVault();
    const gone = serverService(vault.root);
    rmSync(vault.root, { recursive: true, force: true });
    const late = createRecallWarmup(gone);
    late.start();
    await late.settled();
  });

  it("runs no step once stopped, and none when stopped before it started", async () => {
    const ran: number[] = [];
    const service = serverService(makeTempVault().root);
    const warmup = createRecallWarmup(service, () =>
      [0, 1, 2, 3].map((i) => () => {
        ran.push(i);
        if (i === 1) warmup.stop();
      }),
    );
    warmup.start();
    await warmup.settled();
    expect(ran).toEqual([0, 1]);

    const never = createRecallWarmup(service, () => [() => ran.push(99)]);
    never.stop();
    never.start();
    await never.settled();
    expect(ran).not.toContain(99);
  });

  it("gives a client that waited after the handshake the same answer, byte for byte, as one that asked at once", async () => {
    const { vault, words } = await indexedVault();
    const query = `${words[2]} ${words[3]}`;
    // The first server's log of the pages it showed would date them for the second: no log.
    const settings = join(makeTempDir("llm-wiki-settings-"), "settings.json");
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { recallFeedback: false } }));
    const ask = async (pauseMs: number): Promise<CallToolResult> => {
      const client = new Client({ name: "llm-wiki-warmup-test", version: "0.0.0" });
      opened.push(client);
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [SERVER, "--vault", vault.root],
          cwd: REPO,
          env: { ...isolatedEnv(), LLM_WIKI_SETTINGS: settings },
          stderr: "ignore",
        }),
      );
      // Time for the warm-up to run (how much of it ran changes nothing that is asserted).
      if (pauseMs > 0) await sleep(pauseMs);
      return (await client.callTool({
        name: "wiki_recall",
        arguments: { query },
      })) as CallToolResult;
    };
    const atOnce = await ask(0);
    const later = await ask(500);
    expect(atOnce.isError).toBeFalsy();
    expect(JSON.stringify(later.content)).toBe(JSON.stringify(atOnce.content));
  });
});
