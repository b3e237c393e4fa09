/**
 * The header names the mode each vault answered in. With vectors in the
 * project vault and none in the personal one, a hybrid recall is hybrid in
 * the project and lexical in the personal vault, and every host says so —
 * the CLI's text and `--json` (`vaultModes`), MCP's text and result, a Pi
 * session's `wiki_recall` and its status line — instead of calling the
 * whole answer lexical. When the vaults agree, the header is one word.
 * Real processes (CLI, stdio server), a real Pi session, the tiny test
 * models (the suite's environment).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { recallStatus } from "../extensions/llm-wiki/pi/status-line.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { startPi, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText } from "./helpers/temp-vault.ts";

const { clients, sessions } = isolatedHosts("llm-wiki-vault-modes-home-");

const MIXED = "(mode hybrid in the project vault, lexical in the personal vault, asked hybrid)";
const PERSONAL_REASON =
  /^hybrid fell back to lexical in the personal vault: .*no vectors.*; repair: llm-wiki reindex --vectors$/;

/** A project vault indexed with vectors and a personal vault without, both answering `query`. */
function vaults() {
  const query = randomWords(3, 5, 9);
  const page = () =>
    pageText({ type: "concept", title: randomWords(2) }, `${randomWords(3)} ${query}.\n`);
  const project = makeTempVault({ pages: { [`concepts/${randomWord()}`]: page() } }).root;
  const personal = makeTempVault({
    kind: "personal",
    pages: { [`concepts/${randomWord()}`]: page() },
  }).root;
  // The test models, a home of this test's own; the personal vault named by WIKI_HOME.
  const env = childEnv({ WIKI_HOME: personal, NO_COLOR: "1" });
  const build = (...args: string[]) => {
    const run = runCli(["reindex", ...args], { cwd: project, env });
    expect(run.status, run.stderr).toBe(0);
  };
  build("--vectors");
  build("--which", "personal");
  return { query, project, personal, env };
}

describe("the mode each vault answered in", () => {
  it("is named by the CLI's header and --json, and one word when the vaults agree", () => {
    const v = vaults();
    const recall = (...args: string[]) => {
      const run = runCli(["recall", ...args, v.query], { cwd: v.project, env: v.env });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout;
    };
    const [head, reason, next] = recall("--mode", "hybrid").split("\n");
    expect(head).toContain(MIXED);
    expect(reason).toMatch(PERSONAL_REASON);
    expect(next).not.toContain("fell back");

    const json = JSON.parse(recall("--mode", "hybrid", "--json")) as RecallResult;
    expect(json.vaultModes?.map((m) => [m.vault, m.mode])).toEqual([
      ["project", "hybrid"],
      ["personal", "lexical"],
    ]);
    expect(json.results.map((r) => r.vault).sort()).toEqual(["personal", "project"]);

    const [agreed] = recall("--mode", "lexical").split("\n");
    expect(agreed).toMatch(/\(mode lexical\)$/);
  });

  it("is named by MCP's text and result, and by a Pi session's answer and status line", async () => {
    const v = vaults();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      cwd: v.project,
      env: v.env as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-vault-modes", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const answer = (await client.callTool({
      name: "wiki_recall",
      arguments: { query: v.query, mode: "hybrid" },
    })) as CallToolResult;
    const [first] = answer.content;
    const text = first?.type === "text" ? first.text : "";
    expect(text.split("\n")[0]).toContain(MIXED);
    expect(text.split("\n")[1]).toMatch(PERSONAL_REASON);
    expect(metaResult<RecallResult>(answer).vaultModes?.map((m) => [m.vault, m.mode])).toEqual([
      ["project", "hybrid"],
      ["personal", "lexical"],
    ]);

    vi.stubEnv("WIKI_HOME", v.personal);
    const scratch = makeTempDir("llm-wiki-vault-modes-pi-");
    const agentDir = join(scratch, "agent");
    mkdirSync(agentDir);
    vi.stubEnv("PI_CODING_AGENT_DIR", agentDir);
    writeFileSync(
      join(agentDir, "settings.json"),
      `${JSON.stringify({ "llm-wiki": { autoRecall: false, sessionPriming: false } })}\n`,
    );
    const pi = await startPi({ root: scratch, agentDir, project: v.project });
    sessions.push(pi);
    pi.script([fauxToolCall("wiki_recall", { query: v.query, mode: "hybrid" })], "done");
    await pi.session.prompt("what do we know");
    const [result] = toolResults(pi.session);
    const piText = result?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";
    expect(piText.split("\n")[0]).toContain(MIXED);
    const details = result?.details as unknown as RecallResult;
    expect(details.vaultModes?.map((m) => [m.vault, m.mode])).toEqual([
      ["project", "hybrid"],
      ["personal", "lexical"],
    ]);
    expect(recallStatus(details)).toContain(" · project hybrid, personal lexical · ");
    expect(recallStatus({ ...details, vaultModes: [] })).toContain(" · lexical · ");
  });
});
