/**
 * Working memory over MCP (stdio, the real server as a child process): the
 * trajectory tools are not offered while the `trajectories` setting is off;
 * with it on, a client's steps become a trajectory page (secret redacted,
 * control bytes gone), `wiki_distill_skills` hands the batch and the schema
 * to the client, marks the trajectory only after a cited skill page was
 * written with `wiki_ensure_page`, and `wiki_recall_skill` returns only skill
 * and case pages.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { SERVER } from "./helpers/mcp-child.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");
const TOOLS = ["wiki_capture_trajectory", "wiki_distill_skills", "wiki_recall_skill"];

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  removeTempDirs();
});

async function start(
  trajectories: boolean | undefined,
): Promise<{ client: Client; vault: string }> {
  const home = makeTempDir("llm-wiki-mcp-wm-home-");
  const vault = join(makeTempDir("llm-wiki-mcp-wm-vault-"), "acme");
  cpSync(EXAMPLE, vault, { recursive: true, filter: (src) => !src.split(sep).includes("meta") });
  const settings = join(home, ".config", "llm-wiki", "settings.json");
  mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
  if (trajectories !== undefined) {
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { trajectories } }));
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", vault],
    cwd: REPO,
    env: { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, vault };
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("working memory over MCP", () => {
  it("offers no trajectory tool while the setting is off (the default)", async () => {
    for (const setting of [undefined, false]) {
      const { client } = await start(setting);
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const name of TOOLS) expect(names).not.toContain(name);
      expect(names).toContain("wiki_recall");
    }
  });

  it("captures, hands out, marks after a cited page, and recalls skills", async () => {
    const { client, vault } = await start(true);
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of TOOLS) expect(names).toContain(name);
    const word = randomWord(9, 11);
    const token = `ghp_${Array.from({ length: 36 }, () => randomWord(1, 1)).join("")}`;
    const captured = await call(client, "wiki_capture_trajectory", {
      title: `Rotate ${word}`,
      steps: [
        { role: "user", text: `rotate the ${word} key` },
        {
          role: "tool",
          tool: "bash",
          args: { command: `rotate ${word}` },
          text: `new key ${token}\u001b[2J\u0007 done`,
        },
      ],
    });
    expect(captured.isError).toBeFalsy();
    const dir = join(vault, ".llm-wiki", "wiki", "trajectories");
    const [file] = readdirSync(dir);
    const page = readFileSync(join(dir, file as string), "utf8");
    expect(page).toContain(word);
    expect(page).not.toContain(token);
    expect(page).not.toContain("\u0007");
    expect(page).not.toContain("\u001b");
    const id = `trajectories/${(file as string).replace(/\.md$/, "")}`;

    const batch = await call(client, "wiki_distill_skills", {});
    expect(text(batch)).toContain(`<trajectory id="${id}"`);
    expect(text(batch)).toContain("Distill schema");

    const early = await call(client, "wiki_distill_skills", { mark_distilled: id, pages: [] });
    expect(early.isError).toBe(true);
    expect(readFileSync(join(dir, file as string), "utf8")).toBe(page);

    const skillTitle = `Rotating ${word} keys`;
    const written = await call(client, "wiki_ensure_page", {
      type: "skill",
      title: skillTitle,
      content: `1. Rotate the key.\n\nFrom [[${id}]].`,
    });
    expect(written.isError).toBeFalsy();
    const skillId = `skills/rotating-${word}-keys`;
    const marked = await call(client, "wiki_distill_skills", {
      mark_distilled: id,
      pages: [skillId],
    });
    expect(text(marked)).toContain(`Marked [[${id}]] distilled into [[${skillId}]]`);
    expect(readFileSync(join(dir, file as string), "utf8")).toContain(
      `distilled_into: ["${skillId}"]`,
    );

    const recalled = await call(client, "wiki_recall_skill", { query: `rotating ${word} keys` });
    const results = (recalled.structuredContent as { results: Array<{ id: string; type: string }> })
      .results;
    expect(results.map((r) => r.id)).toContain(skillId);
    for (const r of results) expect(["skill", "case"]).toContain(r.type);
  });
});
