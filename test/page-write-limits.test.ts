/**
 * A page writer refuses, before writing, a page the parser would refuse: a
 * NUL byte where the parser looks for one (`page_binary`), or a page over
 * `MAX_PAGE_BYTES` once serialised (`page_too_large`). Nothing is written,
 * nothing is reported as created, no event is logged, whether the page comes
 * through the service, the MCP server or the CLI.
 */
import { randomBytes, randomInt } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_PAGE_BYTES } from "../extensions/llm-wiki/lib/vault/page.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { makeTempVault, readEvents, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** Random lowercase words, `bytes` long or a little more. */
function words(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const word = randomBytes(randomInt(2, 8))
      .toString("base64")
      .replace(/[^a-z]/gi, "")
      .toLowerCase();
    if (word === "") continue;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(" ");
}

/** Text with a NUL at a random place within the parser's 8 KB probe of the page. */
function withNul(): string {
  const text = words(randomInt(10, 3_000));
  const at = randomInt(0, text.length);
  return `${text.slice(0, at)}\u0000${text.slice(at)}`;
}

/** Text that alone passes the limit by a random margin (random multi-byte letters included). */
function oversized(): string {
  const extra = randomInt(1, 4_096);
  const letters = ["a", "é", "記", "ß", "z"];
  const tail = Array.from({ length: extra }, () => letters[randomInt(letters.length)] ?? "a").join(
    "",
  );
  const block = `${words(4_096)}\n`;
  return `${block.repeat(Math.ceil(MAX_PAGE_BYTES / block.length))}${tail}`;
}

function wikiFiles(root: string): string[] {
  const wiki = join(root, ".llm-wiki", "wiki");
  if (!existsSync(wiki)) return [];
  return readdirSync(wiki, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

const cases = [
  { name: "a NUL byte", code: "page_binary", content: withNul },
  { name: "a page over the size limit", code: "page_too_large", content: oversized },
];

describe("page writers refuse what the parser refuses", () => {
  for (const c of cases) {
    it(`the service refuses ${c.name} with ${c.code} and writes nothing`, () => {
      const vault = makeTempVault();
      const service = serviceFor(vault.root);
      const title = `Note ${words(12)}`;
      const result = service.ensurePage({ type: "concept", title, content: c.content() });
      expect(result.ok).toBe(false);
      expect(result.created).not.toBe(true);
      expect(result.diagnostics).toContainEqual(
        expect.objectContaining({ code: c.code, severity: "error" }),
      );
      expect(wikiFiles(vault.root)).toEqual([]);
      expect(readEvents(vault.paths).filter((e) => e.kind === "page_created")).toEqual([]);
      // A page that can be read is still written.
      const fine = service.ensurePage({ type: "concept", title, content: words(200) });
      expect(fine).toMatchObject({ ok: true, created: true });
    });
  }

  it("over MCP, neither is reported as created", async () => {
    const vault = makeTempVault();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      env: childEnv() as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      for (const c of cases) {
        const result = (await client.callTool({
          name: "wiki_ensure_page",
          arguments: { type: "concept", title: `Note ${words(12)}`, content: c.content() },
        })) as CallToolResult;
        const text = result.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
        expect(text).not.toMatch(/^created /m);
        expect(result.structuredContent ?? {}).not.toMatchObject({ created: true });
        expect(result.isError === true || result.structuredContent?.ok === false).toBe(true);
      }
    } finally {
      await client.close();
    }
    expect(wikiFiles(vault.root)).toEqual([]);
  });

  it("the CLI refuses a NUL byte read from standard input", () => {
    const vault = makeTempVault();
    const run = runCli(
      ["page", "--type", "concept", "--title", `Note ${words(12)}`, "--content", "-", "--json"],
      { cwd: vault.root, env: childEnv(), input: withNul() },
    );
    expect(run.status).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.ok).toBe(false);
    expect(out.diagnostics).toContainEqual(expect.objectContaining({ code: "page_binary" }));
    expect(wikiFiles(vault.root)).toEqual([]);
  });
});
