/**
 * A model mode that falls back says why in the text answer, not only in
 * `--json`: the CLI's text and MCP's text content carry the header
 * "mode lexical, asked hybrid" and a line "hybrid fell back to lexical:
 * <why>; repair: <command>", from the diagnostics retrieval raised. The
 * `<wiki-recall>` block a model reads stays free of it. When only the
 * personal vault lacks vectors, the header names each vault's mode rather
 * than calling the whole recall lexical.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { renderRecallResult } from "../extensions/llm-wiki/lib/render-text.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const QUERY = "harbour crane schedule";
const page = (title: string) =>
  pageText({ type: "concept", title }, `${title} covers the harbour crane schedule.\n`);
/** Where a fallback line says why, and the command that repairs it. */
const MODEL_MISSING =
  /^hybrid fell back to lexical: vector search skipped: embed model unavailable \(.+\); repair: \S.*$/m;

const clients: Client[] = [];
const services: WikiService[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(services.splice(0).map((s) => s.close()));
  removeTempDirs();
});

/** The recall block of a text answer. */
const blockOf = (text: string) => text.slice(text.indexOf("<wiki-recall"));

describe("the CLI's text answer says why hybrid fell back", () => {
  it("names a missing embed model with its repair, under the header", () => {
    const vault = makeTempVault({ pages: { "concepts/crane": page("Crane") } });
    const env = childEnv({ NO_COLOR: "1", QMD_EMBED_MODEL: join(makeTempDir(), "absent.gguf") });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const recall = (...args: string[]) =>
      runCli(["recall", "--mode", "hybrid", ...args, QUERY, "--vault", vault.root], { env });

    const text = recall();
    expect(text.status, text.stderr).toBe(0);
    const [head, reason] = text.stdout.split("\n");
    expect(head).toContain("(mode lexical, asked hybrid)");
    expect(reason).toMatch(MODEL_MISSING);
    // The block the model reads is the recalled notes alone.
    expect(blockOf(text.stdout)).toContain("concepts/crane");
    expect(blockOf(text.stdout)).not.toContain("fell back");

    const json = JSON.parse(recall("--json").stdout) as RecallResult;
    expect(json.vaultModes).toEqual([
      {
        vault: "project",
        mode: "lexical",
        reasons: [expect.objectContaining({ code: "model_unavailable" })],
      },
    ]);
    expect(json.rendered).not.toContain("fell back");
  });

  it("keeps adaptive's answer without a local model to one short line; --json keeps the repair", () => {
    const vault = makeTempVault({ pages: { "concepts/crane": page("Crane") } });
    const env = childEnv({ NO_COLOR: "1", QMD_EMBED_MODEL: join(makeTempDir(), "absent.gguf") });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const recall = (...args: string[]) =>
      runCli(["recall", "--mode", "adaptive", ...args, QUERY, "--vault", vault.root], { env });
    const text = recall();
    expect(text.status, text.stderr).toBe(0);
    const [head, reason, first] = text.stdout.split("\n");
    expect(head).toContain("(mode lexical, asked adaptive)");
    expect(reason).toBe(
      "adaptive answered lexical: no local vector model here (`llm-wiki models` tells how to add one)",
    );
    expect(first).toContain("concepts/crane");
    expect(text.stdout).not.toContain("repair:");
    const json = JSON.parse(recall("--json").stdout) as RecallResult;
    expect(json.vaultModes?.[0]?.reasons?.[0]).toEqual(
      expect.objectContaining({ code: "model_unavailable", repair: expect.any(String) }),
    );
  });

  it("names an index without vectors with `llm-wiki reindex --vectors`", () => {
    const vault = makeTempVault({ pages: { "concepts/crane": page("Crane") } });
    // The test models are there; this index was built without vectors.
    const env = childEnv({ NO_COLOR: "1" });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const text = runCli(["recall", "--mode", "hybrid", QUERY, "--vault", vault.root], { env });
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout.split("\n")[1]).toBe(
      "hybrid fell back to lexical: project vault: vector search skipped, the index has no vectors yet; repair: llm-wiki reindex --vectors",
    );
  });
});

describe("MCP's text content says why hybrid fell back", () => {
  it("wiki_recall in hybrid mode with a missing embed model", async () => {
    const vault = makeTempVault({ pages: { "concepts/crane": page("Crane") } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      env: { ...isolatedEnv(), QMD_EMBED_MODEL: join(makeTempDir(), "absent.gguf") },
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect((await call("wiki_reindex", {})).isError).toBeFalsy();
    const answer = await call("wiki_recall", { query: QUERY, mode: "hybrid" });
    expect(answer.isError).toBeFalsy();
    const [first] = answer.content;
    const text = first?.type === "text" ? first.text : "";
    expect(text.split("\n")[0]).toContain("(mode lexical, asked hybrid)");
    expect(text).toMatch(MODEL_MISSING);
    expect(blockOf(text)).not.toContain("fell back");
  });
});

describe("a fallback in one vault only", () => {
  it("names each vault's mode, and the personal vault's reason as its own", async () => {
    const project = makeTempVault({ pages: { "concepts/crane": page("Crane") } });
    const home = makeTempVault({ pages: { "concepts/harbour": page("Harbour") } });
    // The test models (the suite's environment): the project gets vectors, the personal vault none.
    const env = { ...process.env, HOME: makeTempDir("llm-wiki-home-"), WIKI_HOME: home.root };
    const service = createWikiService({ cwd: project.root, env });
    services.push(service);
    const built = await service.reindex({
      vault: "project",
      scope: "all",
      components: ["lexical", "vectors"],
    });
    expect(built.ok).toBe(true);
    expect((await service.reindex({ vault: "personal", scope: "all" })).ok).toBe(true);

    const result = await service.recall({ query: QUERY, mode: "hybrid" });
    expect(result.vaultModes?.map((v) => [v.vault, v.mode])).toEqual([
      ["project", "hybrid"],
      ["personal", "lexical"],
    ]);
    const text = renderRecallResult(result);
    const [head, reason, next] = text.split("\n");
    expect(head).toContain(
      "(mode hybrid in the project vault, lexical in the personal vault, asked hybrid)",
    );
    expect(reason).toBe(
      "hybrid fell back to lexical in the personal vault: vector search skipped, the index has no vectors yet; repair: llm-wiki reindex --vectors",
    );
    // One reason: the project's hybrid answer did not fall back.
    expect(next).not.toContain("fell back");
  });
});
