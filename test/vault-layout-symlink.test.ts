/**
 * A vault whose layout holds a symbolic link is not opened, by any host: a
 * link committed to a project's repository would otherwise send the index,
 * the registry's cache, the event log or page writes wherever it points,
 * and pages from there into the agent's context. Each run links a few
 * entries drawn afresh (the event log at a fake shell start-up file, the
 * index, the cache, a page folder, `.llm-wiki/` itself…) and drives the real
 * CLI, the hook and the MCP server at the vault: the target stays byte for
 * byte as it was, every host says which link stops it, and a hook still
 * exits 0 with nothing on stdout.
 */
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");

/** Entries a repository could ship as links, relative to `.llm-wiki/` ("" is the folder itself). */
const LINKABLE = [
  "",
  "meta",
  "meta/cache",
  "meta/qmd",
  "meta/events.jsonl",
  "wiki/concepts",
  "raw",
];

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Everything below `dir` (files with their bytes, folders by name), to compare before and after. */
function snapshot(dir: string): string {
  const files = [...snapshotFiles(dir)].map(([k, v]) => `${k}:${v.toString("base64")}`);
  const dirs = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
  return JSON.stringify([files.sort(), dirs.sort()]);
}

interface Linked {
  root: string;
  /** Where the link points: must not change. */
  target: string;
  /** The link, relative to the vault's root, as the diagnostic names it. */
  link: string;
}

/** The example vault, indexed, with `entry` moved out and linked back in. */
function linkedVault(entry: string, env: NodeJS.ProcessEnv): Linked {
  const root = join(makeTempDir("llm-wiki-linked-"), `project-${randomWord(4, 8)}`);
  mkdirSync(root);
  cpSync(EXAMPLE, root, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  expect(runCli(["reindex", "--vault", root], { env }).status).toBe(0);
  const inside = join(root, ".llm-wiki", entry);
  const target = join(makeTempDir("llm-wiki-outside-"), randomWord(5, 9));
  if (entry === "meta/events.jsonl") {
    // A shell's start-up file: an appended `{"title":"$(…)"}` line would run at login.
    writeFileSync(target, `# ${randomWord()} start-up\nexport PATH\n`);
    rmSync(inside, { force: true });
  } else {
    // A folder the vault has not made yet (raw/ before any capture) is shipped as a link all the same.
    mkdirSync(inside, { recursive: true });
    renameSync(inside, target);
  }
  symlinkSync(target, inside);
  return { root, target, link: relative(root, inside) };
}

describe("a vault whose layout holds a symbolic link", () => {
  const entries = shuffled(LINKABLE).slice(0, 3);

  it.each(entries.map((e) => [e === "" ? ".llm-wiki" : e, e]))(
    "%s linked: the CLI writes nothing through it and names the link",
    (_label, entry) => {
      const env = childEnv();
      const v = linkedVault(entry, env);
      const before = snapshot(join(v.target, "..")) + readIfFile(v.target);
      const work = makeTempDir();
      const runs = [
        runCli(["reindex", "--vault", v.root], { env, cwd: work }),
        runCli(["recall", "cache invalidation", "--vault", v.root], { env, cwd: work }),
        runCli(["status", "--vault", v.root, "--json"], { env, cwd: work }),
        runCli(
          [
            "page",
            "--vault",
            v.root,
            "--type",
            "concept",
            "--title",
            `$(touch ${join(work, "pwned")}) ${randomWord()}`,
            "--content",
            "A page.",
          ],
          { env, cwd: work },
        ),
        runCli(["observe", "--vault", v.root, "--title", "An observation", "--content", "x"], {
          env,
          cwd: work,
        }),
        // From inside the project, as a hook runs: found by discovery, still refused.
        runCli(["hook", "user-prompt"], {
          env,
          cwd: work,
          input: JSON.stringify({ cwd: v.root, prompt: "how do we keep the cache consistent" }),
        }),
      ];
      for (const run of runs.slice(0, 5)) {
        expect(run.status, run.stderr).not.toBe(0);
        // The code in --json, its words in text.
        expect(run.stdout + run.stderr).toMatch(/vault_layout_symlink|is a symbolic link/);
        expect(run.stdout + run.stderr).toContain(v.link);
      }
      const hook = runs[5];
      expect(hook?.status).toBe(0);
      expect(hook?.stdout).toBe("");
      expect(snapshot(join(v.target, "..")) + readIfFile(v.target)).toBe(before);
      expect(readdirSync(work)).not.toContain("pwned");
    },
    120_000,
  );

  it("init never makes a vault through a linked .llm-wiki/ a repository shipped", () => {
    const env = childEnv();
    const root = join(makeTempDir("llm-wiki-linked-init-"), "project");
    mkdirSync(root);
    const target = join(makeTempDir("llm-wiki-outside-"), randomWord(5, 9));
    mkdirSync(target);
    symlinkSync(target, join(root, ".llm-wiki"));
    const run = runCli(["init", "--vault", root, "--json"], { env, cwd: root });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("vault_layout_symlink");
    expect(readdirSync(target)).toEqual([]);
  });

  it("over MCP: recall answers with the diagnostic and nothing is written through the link", async () => {
    const env = childEnv();
    const v = linkedVault("meta/events.jsonl", env);
    const before = readFileSync(v.target);
    const client = new Client({ name: "llm-wiki-layout-test", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SERVER, "--vault", v.root],
        cwd: v.root,
        env: env as Record<string, string>,
        stderr: "pipe",
      }),
    );
    try {
      const recall = (await client.callTool({
        name: "wiki_recall",
        arguments: { query: "cache invalidation" },
      })) as CallToolResult;
      expect(JSON.stringify(metaResult(recall))).toContain("vault_layout_symlink");
      const observed = (await client.callTool({
        name: "wiki_observe",
        arguments: { title: "An observation", content: "x" },
      })) as CallToolResult;
      expect(observed.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(readFileSync(v.target).equals(before)).toBe(true);
  }, 120_000);
});

function readIfFile(path: string): string {
  try {
    return readFileSync(path, "base64");
  } catch {
    return "";
  }
}
