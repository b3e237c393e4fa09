/**
 * The documents `llm-wiki init` starts a vault with, through the hosts:
 * `WIKI_SCHEMA.md` and one page template per type under `templates/pages/`,
 * written by the real CLI; once there they are the user's, so an edited copy
 * survives a second `init` and an MCP `wiki_bootstrap` byte for byte, and
 * only a document the user deleted is written again.
 */
import { randomBytes, randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  pageTemplate,
  SCHEMA_FILE,
  TEMPLATE_TYPES,
  TEMPLATES_DIR,
  wikiSchema,
} from "../extensions/llm-wiki/lib/vault/vault-documents.ts";
import { runCli } from "./helpers/cli.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  removeTempDirs();
});

interface Init {
  ok: boolean;
  created: boolean;
  createdPaths: string[];
}

function env(home: string): Record<string, string> {
  return { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
}

function init(root: string, home: string): Init {
  const run = runCli(["init", "--json", "--vault", root], { cwd: home, env: env(home) });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Init;
}

/** `wiki_bootstrap` from a real MCP server on `root`. */
async function mcpBootstrap(root: string, home: string): Promise<Init> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", root],
    cwd: home,
    env: { PATH: process.env.PATH ?? "", ...env(home) },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  const result = (await client.callTool({
    name: "wiki_bootstrap",
    arguments: {},
  })) as CallToolResult;
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as unknown as Init;
}

/** A user's edit of `original`: text of their own in random places, CRLF line ends, non-ASCII, and no final newline. */
function edited(original: string): Buffer {
  const lines = original.split("\n");
  const at = randomInt(lines.length + 1);
  lines.splice(at, 0, `${randomWords(5)} — ${randomWord()} é 記憶 ✓`);
  const text = `${lines.join("\r\n")}\r\n${randomWords(4)}`;
  return Buffer.concat([Buffer.from(text, "utf8"), randomBytes(randomInt(0, 16))]);
}

const DOCUMENTS = [SCHEMA_FILE, ...TEMPLATE_TYPES.map((t) => `${TEMPLATES_DIR}/${t}.md`)];

describe("llm-wiki init's documents", () => {
  it("writes WIKI_SCHEMA.md and a template for each page type", () => {
    const home = makeTempDir("llm-wiki-init-docs-home-");
    const root = join(makeTempDir("llm-wiki-init-docs-"), randomWord());
    mkdirSync(root);
    const result = init(root, home);
    expect(result.created).toBe(true);
    const dir = join(root, ".llm-wiki");
    expect(readFileSync(join(dir, SCHEMA_FILE), "utf8")).toBe(wikiSchema());
    for (const type of TEMPLATE_TYPES) {
      const rel = `${TEMPLATES_DIR}/${type}.md`;
      expect(readFileSync(join(dir, rel), "utf8"), rel).toBe(pageTemplate(type));
    }
    for (const rel of DOCUMENTS) expect(result.createdPaths).toContain(rel);
  });

  it("keeps a user's edited copies byte for byte through a second init and an MCP bootstrap", async () => {
    const home = makeTempDir("llm-wiki-init-docs-home-");
    const root = join(makeTempDir("llm-wiki-init-docs-"), randomWord());
    mkdirSync(root);
    init(root, home);
    const dir = join(root, ".llm-wiki");

    // The user edits the schema and some templates, empties one, deletes one.
    const templates = DOCUMENTS.slice(1);
    const emptied = templates.splice(randomInt(templates.length), 1)[0] ?? "";
    const deleted = templates.splice(randomInt(templates.length), 1)[0] ?? "";
    const others = templates;
    const mine = new Map<string, Buffer>([[SCHEMA_FILE, edited(wikiSchema())]]);
    for (const rel of others.slice(0, randomInt(1, others.length + 1)))
      mine.set(rel, edited(readFileSync(join(dir, rel), "utf8")));
    mine.set(emptied, Buffer.alloc(0));
    for (const [rel, bytes] of mine) writeFileSync(join(dir, rel), bytes);
    rmSync(join(dir, deleted));
    const stamps = new Map([...mine.keys()].map((rel) => [rel, statSync(join(dir, rel)).mtimeMs]));

    const again = init(root, home);
    expect(again.created).toBe(false);
    // Only what was missing is written again, as it was first written.
    expect(again.createdPaths).toEqual([deleted]);
    const type = deleted.slice(TEMPLATES_DIR.length + 1, -".md".length);
    expect(readFileSync(join(dir, deleted), "utf8")).toBe(
      pageTemplate(type as (typeof TEMPLATE_TYPES)[number]),
    );

    const viaMcp = await mcpBootstrap(root, home);
    expect(viaMcp).toMatchObject({ ok: true, created: false, createdPaths: [] });

    for (const [rel, bytes] of mine) {
      expect(readFileSync(join(dir, rel)).equals(bytes), rel).toBe(true);
      expect(statSync(join(dir, rel)).mtimeMs, rel).toBe(stamps.get(rel));
    }
    for (const rel of DOCUMENTS) expect(existsSync(join(dir, rel)), rel).toBe(true);
  });
});
