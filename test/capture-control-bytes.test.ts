/**
 * Refused at the door (issue 22, section 5): pasted text holding a NUL, any
 * other C0 control but tab, line feed and carriage return, DEL, a C1 control
 * or a bidi embedding, override or isolate is refused before anything is
 * stored, whether it comes as `capture --text`, on standard input
 * (`capture --text -`) or as the MCP tool's `text`: an `invalid_input`
 * diagnostic names the character's U+ code, the CLI exits 1 as for any
 * refused input (`page`, `observe`), and no packet, page or event is left.
 * Each run draws the character, its place and the text around it afresh.
 */
import { randomInt } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

/** Every code point refused in pasted text. */
const REFUSED = [
  ...Array.from({ length: 0x20 }, (_, i) => i).filter(
    (c) => c !== 0x09 && c !== 0x0a && c !== 0x0d,
  ),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
];

function pick(from: readonly number[]): number {
  return from[randomInt(from.length)] ?? 0;
}

function uCode(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Markdown of a few random lines with `cp` somewhere inside. */
function textWith(cp: number): string {
  const lines = Array.from({ length: randomInt(1, 6) }, () => randomWords(randomInt(2, 12)));
  const at = randomInt(lines.length);
  const line = lines[at] ?? "";
  const col = randomInt(line.length + 1);
  lines[at] = `${line.slice(0, col)}${String.fromCodePoint(cp)}${line.slice(col)}`;
  return `# ${randomWords(3)}\n\n${lines.join("\n")}\n`;
}

/** Nothing stored: no packet, no page, no event. */
function expectNothingStored(vault: TempVault): void {
  const sources = join(vault.paths.raw, "sources");
  expect(existsSync(sources) ? readdirSync(sources) : []).toEqual([]);
  expect(
    readdirSync(vault.paths.wiki, { recursive: true }).filter((n) => String(n).endsWith(".md")),
  ).toEqual([]);
  expect(existsSync(vault.paths.events)).toBe(false);
}

interface Json {
  ok: boolean;
  diagnostics: Array<{ code: string; message: string }>;
}

function expectRefused(out: Json, cp: number): void {
  expect(out.ok).toBe(false);
  const refusal = out.diagnostics.find((d) => d.code === "invalid_input");
  expect(refusal?.message).toContain(uCode(cp));
  expect(refusal?.message).toMatch(/^text: /);
}

describe("capture refuses control characters in pasted text", () => {
  it("a NUL (or any refused character) on standard input: exit 1, invalid_input, nothing stored", () => {
    for (const cp of [0, pick(REFUSED)]) {
      const vault = makeTempVault();
      const run = runCli(["capture", "--text", "-", "--json"], {
        cwd: vault.root,
        env: childEnv(),
        input: textWith(cp),
      });
      expect(run.status).toBe(1);
      expectRefused(JSON.parse(run.stdout) as Json, cp);
      expectNothingStored(vault);
    }
  });

  it("capture --text with a refused character: exit 1, invalid_input, nothing stored", () => {
    // An argument cannot carry a NUL; every other refused character can.
    const cp = pick(REFUSED.filter((c) => c !== 0));
    const vault = makeTempVault();
    const run = runCli(["capture", "--text", textWith(cp), "--json"], {
      cwd: vault.root,
      env: childEnv(),
    });
    expect(run.status).toBe(1);
    expectRefused(JSON.parse(run.stdout) as Json, cp);
    expectNothingStored(vault);
  });

  it("tab, line breaks, right-to-left marks and ordinary text are still captured", () => {
    const vault = makeTempVault();
    const text = `# ${randomWords(3)}\r\n\n\t${randomWords(5)}\u200f ${randomWords(4)}\n`;
    const run = runCli(["capture", "--text", "-", "--json"], {
      cwd: vault.root,
      env: childEnv(),
      input: text,
    });
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as Json).ok).toBe(true);
  });

  it("over MCP, wiki_capture_source refuses it the same way", async () => {
    const vault = makeTempVault();
    const cp = pick(REFUSED);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      env: childEnv() as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: "wiki_capture_source",
        arguments: { text: textWith(cp) },
      })) as CallToolResult;
      expectRefused(result.structuredContent as unknown as Json, cp);
    } finally {
      await client.close();
    }
    expectNothingStored(vault);
  });
});
