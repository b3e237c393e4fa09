/**
 * Unasked memory outside any project: with no `.llm-wiki/` up the tree, the
 * automatic recall of `llm-wiki recall --auto` and `llm-wiki hook
 * user-prompt`, and the session priming of `hook session-start` and MCP's
 * `wiki_prime`, read the personal vault (`$HOME/.llm-wiki`), as the older
 * `@zosmaai/pi-llm-wiki` falls back to it. Inside a project automatic recall
 * stays with the project's vault, and `includePersonal: false` keeps the
 * personal vault out everywhere. Real CLI processes and a real MCP server.
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrimeResult } from "../extensions/llm-wiki/lib/priming/prime.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { runCli } from "./helpers/cli.ts";
import { makeRepo } from "./helpers/git-repo.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { pageText } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const ASKED = "how do we keep the cache consistent after a note changes";
const BRANCH = "feature/idempotency-keys";
const SUBJECTS = ["Store idempotency keys for webhook retries"];

let base: string;
/** The home folder: its `.llm-wiki/` is the example vault, the personal vault. */
let home: string;
/** A git work tree with no vault anywhere above it. */
let elsewhere: string;
/** A project with its own vault (one page about something else). */
let project: string;
let env: NodeJS.ProcessEnv;
const clients: Client[] = [];

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-ambient-")));
  home = join(base, "home");
  cpSync(EXAMPLE, home, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  await serviceFor(home, { home }).reindex({});
  elsewhere = join(base, "work", "scratch");
  mkdirSync(elsewhere, { recursive: true });
  makeRepo(elsewhere, BRANCH, SUBJECTS);
  project = join(base, "work", "project");
  const wiki = join(project, ".llm-wiki", "wiki", "concepts");
  mkdirSync(wiki, { recursive: true });
  writeFileSync(
    join(wiki, "gardening.md"),
    pageText({ type: "concept", title: "Gardening" }, "Tomatoes want sun and water."),
  );
  await serviceFor(project, { home }).reindex({});
  await closeServices();
  env = { ...childEnv(), HOME: home };
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  rmSync(base, { recursive: true, force: true });
});

const autoRecall = (cwd: string, extra: NodeJS.ProcessEnv = {}) => {
  const run = runCli(["recall", "--auto", ASKED, "--json"], { cwd, env: { ...env, ...extra } });
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
};

const hook = (kind: string, cwd: string, input: object, extra: NodeJS.ProcessEnv = {}) =>
  runCli(["hook", kind], {
    cwd,
    env: { ...env, ...extra },
    input: JSON.stringify({ session_id: "s-1", cwd, ...input }),
  });

/** Settings that keep the personal vault from answering. */
function noPersonal(): NodeJS.ProcessEnv {
  const file = join(base, "no-personal.json");
  writeFileSync(file, JSON.stringify({ "llm-wiki": { includePersonal: false } }));
  return { LLM_WIKI_SETTINGS: file };
}

describe("automatic recall outside any project", () => {
  it("`recall --auto` answers from the personal vault", () => {
    const result = autoRecall(elsewhere);
    expect(result.modeUsed).not.toBe("none");
    expect(result.results.map((r) => `${r.vault}:${r.id}`)).toContain(
      "personal:concepts/cache-invalidation",
    );
    expect(result.rendered).toContain("concepts/cache-invalidation");
  });

  it("the user-prompt hook prints the personal vault's recall block", () => {
    const run = hook("user-prompt", elsewhere, {
      hook_event_name: "UserPromptSubmit",
      prompt: ASKED,
    });
    expect(run.status).toBe(0);
    expect(run.stdout.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
    expect(run.stdout).toContain("concepts/cache-invalidation");
    expect(run.stdout).toContain("personal vault");
  });

  it("the session-start hook primes from the personal vault", () => {
    const run = hook("session-start", elsewhere, {
      hook_event_name: "SessionStart",
      source: "startup",
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("concepts/idempotency-keys");
  });

  it("MCP's wiki_prime primes from the personal vault", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      cwd: elsewhere,
      env: env as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "ambient-test", version: "0" });
    await client.connect(transport);
    clients.push(client);
    const result = (await client.callTool({ name: "wiki_prime", arguments: {} })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    const primed = metaResult<PrimeResult>(result);
    expect(primed.results.map((r) => `${r.vault}:${r.id}`)).toContain(
      "personal:concepts/idempotency-keys",
    );
  });

  it("with includePersonal off nothing is recalled and the hook says why", () => {
    const result = autoRecall(elsewhere, noPersonal());
    expect(result.results).toEqual([]);
    const run = hook(
      "user-prompt",
      elsewhere,
      { hook_event_name: "UserPromptSubmit", prompt: ASKED },
      noPersonal(),
    );
    expect(run).toMatchObject({ status: 0, stdout: "" });
    expect(run.stderr).toContain("no personal vault");
  });
});

describe("automatic recall inside a project", () => {
  it("stays with the project's vault: the personal vault's page is not recalled", () => {
    const result = autoRecall(project);
    expect(result.results.filter((r) => r.vault === "personal")).toEqual([]);
    // Asked explicitly, the personal vault answers as before.
    const run = runCli(["recall", ASKED, "--json"], { cwd: project, env });
    const explicit = JSON.parse(run.stdout) as RecallResult;
    expect(explicit.results.map((r) => `${r.vault}:${r.id}`)).toContain(
      "personal:concepts/cache-invalidation",
    );
  });
});
