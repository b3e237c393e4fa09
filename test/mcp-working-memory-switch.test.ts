/**
 * `wiki_working_memory`: session recording turned on or off from any MCP
 * client, the Claude Code plugin's included (a plugin-only install has no
 * `llm-wiki` command). Through the real server as a child process: it
 * reports the setting without changing it, writes it where the CLI, the
 * server and every client's hooks read it (keeping the file's other keys),
 * and the next server start offers the trajectory tools.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { SERVER } from "./helpers/mcp-child.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  removeTempDirs();
});

async function connect(home: string, vault: string): Promise<Client> {
  const client = new Client({ name: "test", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault],
      env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      stderr: "ignore",
    }),
  );
  clients.push(client);
  return client;
}

function text(result: unknown): string {
  return ((result as CallToolResult).content as Array<{ text?: string }>)
    .map((c) => c.text ?? "")
    .join("\n");
}

describe("wiki_working_memory", () => {
  it("reports, turns recording on where the hooks read it, and the next start offers the trajectory tools", async () => {
    const home = makeTempDir("llm-wiki-wm-switch-home-");
    const settings = join(home, ".config", "llm-wiki", "settings.json");
    mkdirSync(join(settings, ".."), { recursive: true });
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { recallMaxChars: 7000 }, other: 1 }));
    const vault = makeTempVault();
    const client = await connect(home, vault.root);
    const status = await client.callTool({ name: "wiki_working_memory", arguments: {} });
    expect(text(status)).toContain("is off");
    expect(JSON.parse(readFileSync(settings, "utf8"))["llm-wiki"].trajectories).toBeUndefined();
    const on = await client.callTool({
      name: "wiki_working_memory",
      arguments: { enabled: true },
    });
    expect(on.isError, text(on)).not.toBe(true);
    expect(text(on)).toContain("working memory is on");
    expect(text(on)).toContain(settings);
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual({
      "llm-wiki": { recallMaxChars: 7000, trajectories: true },
      other: 1,
    });
    const next = await connect(home, vault.root);
    const names = (await next.listTools()).tools.map((t) => t.name);
    expect(names).toContain("wiki_capture_trajectory");
    const off = await next.callTool({ name: "wiki_working_memory", arguments: { enabled: false } });
    expect(text(off)).toContain("is off");
    expect(JSON.parse(readFileSync(settings, "utf8"))["llm-wiki"].trajectories).toBe(false);
  }, 120_000);

  it("refuses an argument of the wrong type", async () => {
    const client = await connect(makeTempDir("llm-wiki-wm-switch-home-"), makeTempVault().root);
    await expect(
      client.callTool({ name: "wiki_working_memory", arguments: { enabled: "yes" } }),
    ).rejects.toThrow(/enabled/);
  }, 120_000);
});
