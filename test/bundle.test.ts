/**
 * The published bins are bundles (scripts/build.ts): built here into a temp
 * folder and run as a user runs them, they answer like the sources do.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBins } from "../scripts/build.ts";
import { childEnv } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
let out = "";
let vault = "";

beforeAll(async () => {
  // Inside the repository, so the bundles resolve QMD from its node_modules as an install would.
  mkdirSync(join(REPO, ".cache"), { recursive: true });
  out = mkdtempSync(join(REPO, ".cache", "bundle-test-"));
  await buildBins(out);
  vault = makeTempVault({
    pages: {
      "concepts/crane": pageText(
        { type: "concept", title: "Harbour crane" },
        "The harbour crane schedule rotates weekly.\n",
      ),
    },
  }).root;
}, 60_000);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  removeTempDirs();
});

function cli(entry: string, args: string[]) {
  return spawnSync(process.execPath, [entry, ...args], { encoding: "utf8", env: childEnv() });
}

describe("the bundled bins", () => {
  it("the CLI indexes and recalls exactly as the source CLI does", () => {
    const bundled = join(out, "cli", "llm-wiki.js");
    expect(cli(bundled, ["reindex", "--vault", vault]).status).toBe(0);
    const args = ["recall", "harbour crane schedule", "--vault", vault, "--json"];
    const fromBundle = cli(bundled, args);
    const fromSource = cli(join(REPO, "cli", "llm-wiki.ts"), args);
    expect(fromBundle.status).toBe(0);
    const ids = (text: string) =>
      (JSON.parse(text) as { results: Array<{ id: string; score: number }> }).results.map((r) => [
        r.id,
        r.score,
      ]);
    expect(ids(fromBundle.stdout)).toEqual([["concepts/crane", expect.any(Number)]]);
    expect(ids(fromBundle.stdout)).toEqual(ids(fromSource.stdout));
    expect(cli(bundled, ["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("the MCP server answers wiki_recall over stdio with nothing but protocol on stdout", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(out, "mcp", "index.js"), "--vault", vault],
      env: childEnv() as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "bundle-test", version: "1" });
    await client.connect(transport);
    try {
      const answer = await client.callTool({
        name: "wiki_recall",
        arguments: { query: "harbour crane schedule" },
      });
      const text = (answer.content as Array<{ type: string; text?: string }>)
        .map((c) => c.text ?? "")
        .join("");
      expect(text).toContain("concepts/crane");
    } finally {
      await client.close();
    }
  });
});
