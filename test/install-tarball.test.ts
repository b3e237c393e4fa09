/**
 * The package as a user gets it: packed with `pnpm pack` (which builds the
 * bundled bins), installed with npm into an empty project from the npm
 * registry, and its two bins run from `node_modules/.bin`: the CLI recalls
 * from a fresh copy of the example vault, the MCP server answers a client.
 *
 * It downloads the package's dependencies (about 900 MB with npm), so it runs
 * where CI runs (`CI=true`) or when asked (`LLM_WIKI_TEST_INSTALL=1`).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv } from "./helpers/index-services.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const wanted = process.env.CI === "true" || process.env.LLM_WIKI_TEST_INSTALL === "1";
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
};

afterAll(removeTempDirs);

function run(command: string, args: string[], cwd: string, timeout = 600_000) {
  const out = spawnSync(command, args, { cwd, encoding: "utf8", timeout, env: process.env });
  if (out.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${out.status}:\n${out.stderr.slice(-2000)}`,
    );
  }
  return out;
}

describe.runIf(wanted)("the packed package installed with npm", () => {
  it("installs into an empty project, and both bins work from node_modules/.bin", async () => {
    const work = makeTempDir("llm-wiki-install-");
    run("pnpm", ["pack", "--pack-destination", work], REPO);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBe(`${manifest.name}-${manifest.version}.tgz`);
    const project = join(work, "project");
    cpSync(join(REPO, "examples", "acme-notes"), join(work, "acme-notes"), {
      recursive: true,
      filter: (src) => !src.split(sep).includes("meta"),
    });
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{ "name": "empty", "private": true }\n');
    run("npm", ["install", "--no-audit", "--no-fund", join(work, tarball ?? "")], project);

    const bin = (name: string) => join(project, "node_modules", ".bin", name);
    const env = childEnv();
    const version = spawnSync(bin("llm-wiki"), ["--version"], { encoding: "utf8", env });
    expect(version.stdout.trim()).toBe(manifest.version);
    const recall = spawnSync(
      bin("llm-wiki"),
      [
        "recall",
        "--auto",
        "how do we keep the cache consistent",
        "--vault",
        join(work, "acme-notes"),
      ],
      { encoding: "utf8", env, timeout: 120_000 },
    );
    expect(recall.status).toBe(0);
    expect(recall.stdout).toContain('<wiki-recall source="llm-wiki">');

    const transport = new StdioClientTransport({
      command: bin("llm-wiki-mcp"),
      args: ["--vault", join(work, "acme-notes")],
      env: env as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "install-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const answer = (await client.callTool({
        name: "wiki_recall",
        arguments: { query: "how do we keep the cache consistent" },
      })) as CallToolResult;
      expect(answer.isError ?? false).toBe(false);
      expect(JSON.stringify(answer.structuredContent)).toContain("concepts/cache-invalidation");
    } finally {
      await client.close();
    }
  }, 900_000);
});
