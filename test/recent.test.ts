/**
 * `recent`: what changed in a window of days, from the event log, through
 * the real CLI process and the real MCP server: newest first, capped,
 * control bytes neutralised, bad dates refused with structured diagnostics.
 * Events carry fixed timestamps and every window is explicit (no clock).
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { appendFeedback } from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import type { RecentResult } from "../extensions/llm-wiki/lib/temporal/recent.ts";
import { appendEvent } from "../extensions/llm-wiki/lib/vault/events.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  removeTempDirs();
});

/** A vault whose log holds seven changes over March 2026, one with a hostile title. */
function loggedVault() {
  const vault = makeTempVault({
    pages: { "concepts/fusion": pageText({ type: "concept", title: "Fusion" }, "Fused lists.") },
  });
  const at = (iso: string) => new Date(iso);
  appendEvent(
    vault.paths,
    { kind: "page_created", id: "concepts/fusion", title: "Fusion" },
    at("2026-03-01T09:00:00Z"),
  );
  appendEvent(
    vault.paths,
    { kind: "source_captured", id: "SRC-2026-03-02-001", page: "sources/paper" },
    at("2026-03-02T09:00:00Z"),
  );
  appendEvent(
    vault.paths,
    {
      kind: "page_created",
      id: "sources/evil",
      title: "Evil \u001b[31mred\u001b[0m \u202etitle\u0007",
    },
    at("2026-03-05T09:00:00Z"),
  );
  appendEvent(
    vault.paths,
    { kind: "source_ingested", id: "SRC-2026-03-02-001", page: "sources/paper" },
    at("2026-03-10T09:00:00Z"),
  );
  appendEvent(
    vault.paths,
    { kind: "page_created", id: "concepts/rrf", title: "RRF" },
    at("2026-03-12T09:00:00Z"),
  );
  appendEvent(
    vault.paths,
    { kind: "observation_recorded", id: "sources/obs-1", title: "Seen" },
    at("2026-03-20T09:00:00Z"),
  );
  appendEvent(
    vault.paths,
    { kind: "page_created", id: "concepts/late", title: "Late" },
    at("2026-04-02T09:00:00Z"),
  );
  // Any event marked internal, whatever its kind, is for ranking: never listed.
  appendEvent(
    vault.paths,
    { kind: "recall_shown", page: "concepts/rrf", visibility: "internal" },
    at("2026-03-14T09:00:00Z"),
  );
  // Recall feedback inside the window: internal, for ranking, never listed.
  appendFeedback(
    vault.paths,
    (["shown", "opened", "relevant"] as const).map((action, i) => ({
      vault_id: "v-test",
      page: "concepts/fusion",
      query_hash: null,
      action,
      rank: i + 1,
      mode: "lexical",
      index_version: "test",
    })),
    at("2026-03-15T09:00:00Z"),
  );
  return vault;
}

describe("llm-wiki recent (CLI process)", () => {
  it("lists the window's changes newest first, capped, neutralised", () => {
    const vault = loggedVault();
    const run = runCli(
      ["recent", "--since", "2026-03", "--until", "2026-03-31", "--json", "--vault", vault.root],
      {
        env: childEnv(),
      },
    );
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as RecentResult;
    expect(result).toMatchObject({
      ok: true,
      since: "2026-03-01",
      until: "2026-03-31",
      total: 6,
      truncated: false,
    });
    expect(result.entries.map((e) => e.ts.slice(0, 10))).toEqual([
      "2026-03-20",
      "2026-03-12",
      "2026-03-10",
      "2026-03-05",
      "2026-03-02",
      "2026-03-01",
    ]);
    expect(result.entries[2]).toMatchObject({
      kind: "source_ingested",
      page: "sources/paper",
      id: "SRC-2026-03-02-001",
    });
    expect(result.entries.map((e) => e.kind)).not.toContain("recall_feedback");
    expect(result.entries.map((e) => e.kind)).not.toContain("recall_shown");
    const evil = result.entries.find((e) => e.page === "sources/evil");
    expect(evil?.title).toBe("Evil red title\uFFFD");

    const text = runCli(
      [
        "recent",
        "--since",
        "2026-03-05",
        "--until",
        "2026-03-31",
        "--limit",
        "2",
        "--vault",
        vault.root,
      ],
      {
        env: childEnv(),
      },
    );
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("4 change(s) since 2026-03-05 until 2026-03-31, newest first");
    expect(text.stdout).toContain("concepts/rrf");
    expect(text.stdout).not.toContain("recall_feedback");
    expect(text.stdout).not.toContain("sources/evil");
    expect(text.stdout).toContain("2 older change(s) not shown");

    // The default window is the week before --now.
    const week = runCli(
      ["recent", "--now", "2026-04-03T12:00:00Z", "--json", "--vault", vault.root],
      { env: childEnv() },
    );
    expect((JSON.parse(week.stdout) as RecentResult).entries.map((e) => e.page)).toEqual([
      "concepts/late",
    ]);
  });

  it("refuses absurd or reversed dates with a structured diagnostic (exit 1)", () => {
    const vault = loggedVault();
    for (const [args, code] of [
      [["--since", "99999-01-01"], "time_window_invalid"],
      [["--since", "2026-02-30"], "time_window_invalid"],
      [["--since", "\u001b[2Jlast tuesday"], "time_window_invalid"],
      [["--since", "2026-05-01", "--until", "2026-04-01"], "time_window_empty"],
    ] as const) {
      const run = runCli(["recent", ...args, "--json", "--vault", vault.root], { env: childEnv() });
      expect(run.status).toBe(1);
      const result = JSON.parse(run.stdout) as RecentResult;
      expect(result.ok).toBe(false);
      expect(result.diagnostics[0]).toMatchObject({ code, severity: "error" });
      expect(run.stdout + run.stderr).not.toContain("\u001b");
    }
    const recall = runCli(
      ["recall", "fusion", "--since", "1066-10-14", "--json", "--vault", vault.root],
      {
        env: childEnv(),
      },
    );
    expect(recall.status).toBe(1);
    expect(JSON.parse(recall.stdout).diagnostics[0]).toMatchObject({ code: "time_window_invalid" });
  });
});

describe("wiki_recent and wiki_recall since/until over MCP", () => {
  it("answers the same listing and validates dates", async () => {
    const vault = loggedVault();
    const home = makeTempDir("llm-wiki-mcp-home-");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        WIKI_HOME: home,
        XDG_CACHE_HOME: join(home, ".cache"),
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "recent-test", version: "1" });
    await client.connect(transport);
    clients.push(client);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("wiki_recent");

    const listed = (await client.callTool({
      name: "wiki_recent",
      arguments: { since: "2026-03-10", until: "2026-03-31", limit: 2 },
    })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    const result = listed.structuredContent as unknown as RecentResult;
    expect(result.entries.map((e) => e.ts.slice(0, 10))).toEqual(["2026-03-20", "2026-03-12"]);
    expect(result).toMatchObject({ total: 3, truncated: true });

    const bad = (await client.callTool({
      name: "wiki_recent",
      arguments: { since: "2026-13-01" },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.structuredContent)).toContain("time_window_invalid");

    const recall = (await client.callTool({
      name: "wiki_recall",
      arguments: { query: "fusion", since: "2026-05-01", until: "2026-04-01" },
    })) as CallToolResult;
    expect(recall.isError).toBe(true);
    expect(JSON.stringify(metaResult(recall))).toContain("time_window_empty");
  });
});
