/**
 * The stdio MCP server (`mcp/index.ts`, bundled as the package ships it by
 * global setup), run as a real child process on real temporary copies of
 * the example vault, spoken to by the SDK's client and, once, by hand over
 * raw stdin/stdout.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ANSWER_CUT_DIAGNOSTIC, fitRecallAnswer } from "../extensions/llm-wiki/lib/answer-fit.ts";
import { indexLayout } from "../extensions/llm-wiki/lib/index/layout.ts";
import { acquireLock } from "../extensions/llm-wiki/lib/index/lock.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { renderAnswer } from "../extensions/llm-wiki/lib/render-text.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import {
  BootstrapParams,
  CaptureSourceParams,
  EnsurePageParams,
  LintParams,
  RecallParams,
  ReindexParams,
  SearchParams,
  StatusParams,
  TOOL_DESCRIPTIONS,
} from "../extensions/llm-wiki/lib/tool-schemas.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { callTool } from "../mcp/server.ts";
import { TOOLS } from "../mcp/tools.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");
const CACHE_QUESTION = "how do we keep the cache consistent";

interface Running {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
}

const running: Running[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.client.close()));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

// Not after each test: the shared server's vault lives for its whole describe block.
afterAll(removeTempDirs);

/** A home, personal-vault root and caches of the test's own, so nothing of the user's leaks in. */
function isolatedEnv(): Record<string, string> {
  const home = makeTempDir("llm-wiki-mcp-home-");
  return {
    HOME: home,
    WIKI_HOME: home,
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
  };
}

/** A fresh copy of the example vault without its derived `meta/` folder: no index yet. */
function exampleVault(): string {
  const root = join(makeTempDir("llm-wiki-mcp-vault-"), "acme-notes");
  cpSync(EXAMPLE, root, {
    recursive: true,
    filter: (src) => !src.split(sep).includes("meta"),
  });
  return root;
}

interface StartOptions {
  /** Arguments after the server script; default `--vault <vault>`. */
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Closed by its describe block rather than after each test. */
  shared?: boolean;
}

async function startServer(
  vault: string | undefined,
  options: StartOptions = {},
): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, ...(options.args ?? (vault === undefined ? [] : ["--vault", vault]))],
    cwd: options.cwd ?? REPO,
    env: options.env ?? isolatedEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
  await client.connect(transport);
  const r = { client, transport, stderr: () => stderr };
  if (!options.shared) running.push(r);
  return r;
}

async function call(
  server: Running,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  if (first?.type !== "text") throw new Error("expected one text content block");
  return first.text;
}

function recallOf(result: CallToolResult): RecallResult {
  return metaResult<RecallResult>(result);
}

/** A recall result without its timing fields, as it travels over JSON. */
function withoutTiming(result: RecallResult): unknown {
  const copy = JSON.parse(JSON.stringify(result)) as RecallResult;
  return {
    ...copy,
    durationMs: 0,
    trace: copy.trace.map((step) => ({ ...step, ms: 0 })),
    stages: copy.stages.map((stage) => ({
      ...stage,
      ms: 0,
      ...(stage.parts ? { parts: stage.parts.map((part) => ({ ...part, ms: 0 })) } : {}),
    })),
  };
}

describe("MCP server: an indexed example vault", () => {
  // One server for the calls that change nothing: spawning one per test costs seconds.
  let indexed: { server: Running; vault: string; env: Record<string, string> };

  beforeAll(async () => {
    const vault = exampleVault();
    const env = isolatedEnv();
    indexed = { server: await startServer(vault, { env, shared: true }), vault, env };
    const built = await call(indexed.server, "wiki_reindex");
    expect(built.structuredContent).toMatchObject({ ok: true });
  });

  afterAll(() => indexed.server.client.close());

  it("lists every tool with the shared descriptions and schemas as input schemas", async () => {
    const server = indexed.server;
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual([
      "wiki_recall",
      "wiki_recent",
      "wiki_prime",
      "wiki_search",
      "wiki_status",
      "wiki_reindex",
      "wiki_reindex_embeddings",
      "wiki_bootstrap",
      "wiki_ensure_page",
      "wiki_observe",
      "wiki_retro",
      "wiki_log_event",
      "wiki_ingest",
      "wiki_capture_source",
      "wiki_rebuild_meta",
      "wiki_lint",
      "wiki_resolve_conflict",
      "wiki_verify_page",
      "wiki_recall_feedback",
      "wiki_watch",
      "wiki_working_memory",
      "wiki_okf_export",
      "wiki_okf_import",
    ]);
    for (const tool of tools) {
      expect(tool.description).toBe(TOOL_DESCRIPTIONS[tool.name as keyof typeof TOOL_DESCRIPTIONS]);
    }
    const asJson = (schema: object) => JSON.parse(JSON.stringify(schema)) as unknown;
    expect(byName.get("wiki_recall")?.inputSchema).toEqual(asJson(RecallParams));
    expect(byName.get("wiki_search")?.inputSchema).toEqual(asJson(SearchParams));
    expect(byName.get("wiki_status")?.inputSchema).toEqual(asJson(StatusParams));
    expect(byName.get("wiki_reindex")?.inputSchema).toEqual(asJson(ReindexParams));
    expect(byName.get("wiki_bootstrap")?.inputSchema).toEqual(asJson(BootstrapParams));
    expect(byName.get("wiki_ensure_page")?.inputSchema).toEqual(asJson(EnsurePageParams));
    expect(byName.get("wiki_capture_source")?.inputSchema).toEqual(asJson(CaptureSourceParams));
    expect(byName.get("wiki_lint")?.inputSchema).toEqual(asJson(LintParams));
    // The deprecated alias always builds vectors, so it takes no components.
    const alias = byName.get("wiki_reindex_embeddings")?.inputSchema;
    expect(alias?.properties).not.toHaveProperty("components");
    expect(alias).toMatchObject({ type: "object", additionalProperties: false });
    expect(byName.get("wiki_recall")?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get("wiki_reindex")?.annotations).toMatchObject({ readOnlyHint: false });
  });

  it("wiki_status declares its structured content or sends none: the SDK client's output-schema check passes", async () => {
    const { server } = indexed;
    const { tools } = await server.client.listTools();
    const listed = tools.find((t) => t.name === "wiki_status");
    expect(listed).toBeDefined();
    for (const vault of [undefined, "active", "project", "personal", "all"]) {
      const args = vault === undefined ? {} : { vault };
      // The SDK's client checks structuredContent against a declared outputSchema, and throws when it does not fit.
      const result = await call(server, "wiki_status", args);
      if (listed?.outputSchema === undefined) {
        // Nothing declared: a strict client would have nothing to check structured content against.
        expect(result.structuredContent, JSON.stringify(args)).toBeUndefined();
        // The machine-readable result stays with programs, in _meta, as for recall.
        expect(metaResult(result), JSON.stringify(args)).toHaveProperty("ok");
      } else expect(result.structuredContent, JSON.stringify(args)).toBeDefined();
      expect(textOf(result).length).toBeGreaterThan(0);
    }
  });

  it("wiki_status describes the vault", async () => {
    const { server, vault } = indexed;
    const result = await call(server, "wiki_status");
    expect(result.isError).toBeFalsy();
    expect(metaResult(result)).toMatchObject({
      ok: true,
      vault: {
        kind: "project",
        root: vault,
        name: "acme-notes",
        pages: 35,
        byRole: { canonical: 30, evidence: 5 },
        links: { missing: 0, ambiguous: 0 },
      },
    });
    expect(textOf(result)).toContain(`vault   acme-notes (project) at ${vault}`);
    expect(textOf(result)).toContain("pages   35 (30 canonical, 5 evidence)");
    expect(textOf(result)).toContain("index   ready, 35 documents");
  });

  it("honours max_results and mode", async () => {
    const server = indexed.server;
    const result = await call(server, "wiki_recall", {
      query: "cache",
      max_results: 2,
      mode: "lexical",
    });
    expect(result.isError).toBeFalsy();
    const recall = recallOf(result);
    expect(recall.requestedMode).toBe("lexical");
    expect(recall.modeUsed).toBe("lexical");
    // Two memories: bundles, each a card with what its relations brought in.
    expect(new Set(recall.results.map((r) => r.bundle))).toEqual(new Set([0, 1]));
  });

  it("returns no pages, and no error, for an empty query", async () => {
    const server = indexed.server;
    const result = await call(server, "wiki_recall", { query: "   " });
    expect(result.isError).toBeFalsy();
    const recall = recallOf(result);
    expect(recall.ok).toBe(true);
    expect(recall.results).toEqual([]);
    expect(recall.rendered).toBe("");
    expect(recall.diagnostics.map((d) => d.code)).toContain("recall_query_empty");
    expect(textOf(result)).toContain("no reliable memory found");
  });

  it("wiki_search finds a page by its exact id", async () => {
    const server = indexed.server;
    const result = await call(server, "wiki_search", { query: "concepts/tombstones" });
    expect(result.isError).toBeFalsy();
    expect(metaResult(result)).toMatchObject({
      ok: true,
      hits: [{ id: "concepts/tombstones", vault: "project" }],
    });
    expect(textOf(result).split("\n")[0]).toMatch(/^concepts\/tombstones {2}/);
  });

  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ["a missing query", "wiki_recall", {}, /"query" is required/],
    [
      "max_results above 10",
      "wiki_recall",
      { query: "cache", max_results: 99 },
      /"max_results" must be <= 10/,
    ],
    [
      "an unknown key",
      "wiki_recall",
      { query: "cache", verbose: true },
      /"verbose" is not a parameter of this tool/,
    ],
    [
      "an unknown mode",
      "wiki_recall",
      { query: "cache", mode: "fast" },
      /"mode" must be one of "lexical", "hybrid", "adaptive", "quality"/,
    ],
    [
      "an empty search",
      "wiki_search",
      { query: "" },
      /"query" must not have fewer than 1 characters/,
    ],
    [
      "a wrong component",
      "wiki_reindex",
      { components: ["lexical", "graph"] },
      /"components\/1" must be one of "lexical", "vectors"/,
    ],
  ];

  /** The protocol error a call is refused with. */
  async function refusal(server: Running, name: string, args: Record<string, unknown>) {
    const error = await call(server, name, args).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof McpError)) throw new Error(`${name} was not refused: ${String(error)}`);
    return error;
  }

  it.each(cases)(
    "come back as one -32602 protocol error naming the field: %s",
    async (_label, tool, args, message) => {
      const server = indexed.server;
      const error = await refusal(server, tool, args);
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toContain(`${tool}: invalid arguments, nothing was done: `);
      expect(error.message).toMatch(message);
      expect(error.data).toMatchObject({
        tool,
        diagnostics: [{ code: "invalid_argument", severity: "error" }],
      });
      // The server is still serving.
      const status = await call(server, "wiki_status");
      expect(status.isError).toBeFalsy();
    },
  );

  it("names every bad field of one call", async () => {
    const server = indexed.server;
    const error = await refusal(server, "wiki_recall", { max_results: 0, extra: 1 });
    const problems = (error.data as { problems: Array<{ field: string }> }).problems;
    expect(problems.map((p) => p.field).sort()).toEqual(["extra", "max_results", "query"]);
  });

  it("rejects an unknown tool with a protocol error", async () => {
    const server = indexed.server;
    await expect(call(server, "wiki_delete_everything")).rejects.toThrow(/unknown tool/);
  });

  it("wiki_recall's structured result equals service.recall for the same vault and query", async () => {
    const { server, vault, env } = indexed;
    const service = createWikiService({ cwd: vault, env, vault });
    try {
      const queries: Array<{ query: string; max_results?: number; mode?: "lexical" | "adaptive" }> =
        [
          { query: CACHE_QUESTION },
          { query: "sqlite write contention", max_results: 10 },
          {
            query: "what happened in the reconnect storm incident?",
            max_results: 3,
            mode: "adaptive",
          },
        ];
      for (const q of queries) {
        const viaMcp = recallOf(await call(server, "wiki_recall", q));
        const direct = await service.recall({
          query: q.query,
          policy: "explicit",
          ...(q.max_results !== undefined ? { maxResults: q.max_results } : {}),
          ...(q.mode ? { mode: q.mode } : {}),
        });
        expect(viaMcp.results.length).toBeGreaterThan(0);
        // The service's result, with a warning when the answer's text was cut to the budget.
        const fitted = fitRecallAnswer(direct, { maxChars: DEFAULT_SETTINGS.recallMaxChars });
        expect(withoutTiming(viaMcp)).toEqual(withoutTiming(fitted.result));
      }
    } finally {
      await service.close();
    }
  });
});

describe("MCP server: a fresh vault", () => {
  it("wiki_reindex rebuilds an index of every page, reporting progress when asked", async () => {
    const vault = exampleVault();
    const server = await startServer(vault);
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = (await server.client.callTool(
      { name: "wiki_reindex", arguments: { scope: "all" } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      ok: true,
      reports: [
        {
          vault,
          action: "rebuild",
          written: 35,
          status: { state: "ready", documents: 35, pending: 0 },
        },
      ],
    });
    expect(textOf(result)).toContain("rebuild: 35 page(s) indexed");
    expect(textOf(result)).toContain("(index ready, 35 documents)");
    expect(existsSync(join(vault, ".llm-wiki", "meta", "qmd"))).toBe(true);
    // MCP progress must grow with every notification; the phase travels in the message.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress[0]?.message).toMatch(/^mirror 0\/35 /);
    const status = await call(server, "wiki_status");
    expect(metaResult(status)).toMatchObject({ vault: { index: { state: "ready" } } });
  });

  it("answers the first recall on a never-indexed vault, indexing it in the background", async () => {
    const vault = exampleVault();
    const started = performance.now();
    const server = await startServer(vault);
    const result = await call(server, "wiki_recall", { query: CACHE_QUESTION });
    const elapsed = performance.now() - started;
    // Measured, not asserted (the budget belongs to the benchmark): spawn → first recall answered.
    process.stderr.write(`[measure] MCP spawn → first recall answered: ${elapsed.toFixed(0)} ms\n`);

    expect(result.isError).toBeFalsy();
    const recall = recallOf(result);
    expect(recall.policy).toBe("explicit");
    expect(recall.results.slice(0, 3).map((r) => r.id)).toContain("concepts/cache-invalidation");
    expect(recall.results[0]?.file).toBe(
      join(vault, ".llm-wiki", "wiki", `${recall.results[0]?.id}.md`),
    );
    // The text is the renderer every host shares, within the answer budget
    // (the temp vault's long paths can push the listing past it), a cut said as a warning.
    const asServed = {
      ...recall,
      diagnostics: recall.diagnostics.filter((d) => d.code !== ANSWER_CUT_DIAGNOSTIC),
    };
    const fitted = fitRecallAnswer(asServed, { maxChars: DEFAULT_SETTINGS.recallMaxChars });
    expect(fitted.result.diagnostics).toEqual(recall.diagnostics);
    expect(textOf(result)).toBe(renderAnswer(recall.ok, fitted.text, recall.diagnostics));
    const lines = server
      .stderr()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines).toEqual([
      `llm-wiki-mcp: index missing at ${vault}; updating it in the background`,
    ]);
  });

  it("wiki_reindex_embeddings says it is deprecated and delegates to wiki_reindex with vectors", async () => {
    const vault = exampleVault();
    const server = await startServer(vault);
    const result = await call(server, "wiki_reindex_embeddings");
    const text = textOf(result);
    expect(text.split("\n")[0]).toBe(
      'wiki_reindex_embeddings is deprecated; use wiki_reindex with components ["lexical", "vectors"].',
    );
    // No embed model exists here: the lexical index is built, the vectors are an error.
    expect(result.isError).toBe(true);
    expect(text).toContain("vectors not built: embed model unavailable");
    expect(result.structuredContent).toMatchObject({
      ok: false,
      reports: [{ vault, status: { state: "ready", documents: 35 } }],
      diagnostics: [{ code: "model_unavailable", severity: "error" }],
    });
  });
});

describe("MCP server: a reindex that fails", () => {
  it("says why the vault was not updated: a busy index lock, with its holder and repair", async () => {
    const vault = makeTempVault({
      pages: { "concepts/alpha": pageText({ type: "concept", title: "Alpha" }, "Zephyr.\n") },
    });
    const service = createWikiService({ cwd: vault.root, vault: vault.root, env: isolatedEnv() });
    const lock = await acquireLock(indexLayout(vault.paths).lock, { op: "test holder" });
    // The tool waits 10 s for a live holder; this service gives up at once.
    const impatient: WikiService = {
      ...service,
      reindex: (input) => service.reindex({ ...input, lockWaitMs: 0 }),
    };
    const tool = TOOLS.find((t) => t.name === "wiki_reindex");
    if (!tool) throw new Error("no wiki_reindex tool");
    try {
      const result = await callTool(tool, impatient, {});
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain(`${vault.root}: not updated (index_busy)`);
      expect(text).toContain(
        `error: the index is busy: process ${process.pid} is running "test holder"`,
      );
      expect(text).toContain("(fix: wait for it to finish, then run the command again)");
    } finally {
      lock.release();
      await service.close();
    }
  });
});

describe("MCP server: a folder without a vault", () => {
  it("answers recall with an error telling to run llm-wiki init, then bootstraps one", async () => {
    const folder = makeTempDir("llm-wiki-mcp-empty-");
    const server = await startServer(folder);

    const recall = await call(server, "wiki_recall", { query: CACHE_QUESTION });
    expect(recall.isError).toBe(true);
    expect(textOf(recall)).toContain("llm-wiki init");
    expect(recallOf(recall).diagnostics).toMatchObject([
      { code: "vault_not_found", severity: "error" },
    ]);
    const status = await call(server, "wiki_status");
    expect(status.isError).toBe(true);
    expect(textOf(status)).toContain(`llm-wiki init --vault ${folder}`);
    // Failed or not, it declares no output schema and so sends no structured content.
    expect(status.structuredContent).toBeUndefined();
    expect(metaResult(status)).toMatchObject({ ok: false });

    const created = await call(server, "wiki_bootstrap", { topic: "billing" });
    expect(created.isError).toBeFalsy();
    expect(textOf(created)).toBe(`created vault at ${join(folder, ".llm-wiki")}`);
    expect(created.structuredContent).toMatchObject({ ok: true, created: true });
    const config = JSON.parse(readFileSync(join(folder, ".llm-wiki", "config.json"), "utf8"));
    expect(config).toMatchObject({ topic: "billing", mode: "project" });

    const again = await call(server, "wiki_bootstrap", {});
    expect(again.structuredContent).toMatchObject({ ok: true, created: false });

    const page = await call(server, "wiki_ensure_page", {
      type: "concept",
      title: "Invoice rounding",
      content: "Round half to even.",
    });
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent).toMatchObject({
      ok: true,
      created: true,
      id: "concepts/invoice-rounding",
    });
    expect(textOf(page)).toBe(
      "created concepts/invoice-rounding (.llm-wiki/wiki/concepts/invoice-rounding.md)",
    );
    const same = await call(server, "wiki_ensure_page", {
      type: "concept",
      title: "Invoice rounding",
    });
    expect(same.structuredContent).toMatchObject({ ok: true, created: false });

    const status2 = await call(server, "wiki_status");
    expect(metaResult(status2)).toMatchObject({ ok: true, vault: { pages: 1 } });

    // Capture redacts before writing and answers exactly what the service returns.
    const captured = await call(server, "wiki_capture_source", {
      text: "Deploy notes. The staging key is sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD.",
      title: "Deploy notes",
    });
    expect(captured.isError).toBeFalsy();
    expect(captured.structuredContent).toMatchObject({
      ok: true,
      id: expect.stringMatching(/^SRC-/),
    });
    const packet = (captured.structuredContent as { packet: string }).packet;
    const sourceText = readFileSync(join(folder, ".llm-wiki", packet, "source.md"), "utf8");
    expect(sourceText).toContain("[REDACTED:");
    expect(sourceText).not.toContain("sk-abcdefghijklmnopqrstuvwxyz");

    // Lint sees the new pages; the invoice page is an orphan, which is a note, not an error.
    const lint = await call(server, "wiki_lint", {});
    expect(lint.structuredContent).toMatchObject({ ok: true });
    const codes = (
      lint.structuredContent as { vaults: Array<{ findings: Array<{ code: string }> }> }
    ).vaults[0]?.findings.map((f) => f.code);
    expect(codes).toContain("page_orphan");
  });
});

describe("MCP server: which vault", () => {
  it("uses the nearest vault above its working directory when given no --vault", async () => {
    const vault = exampleVault();
    const server = await startServer(undefined, { cwd: join(vault, ".llm-wiki", "wiki") });
    const status = await call(server, "wiki_status");
    expect(metaResult(status)).toMatchObject({ ok: true, vault: { root: vault, pages: 35 } });
  });

  it("takes the vault from LLM_WIKI_VAULT", async () => {
    const vault = exampleVault();
    const server = await startServer(undefined, {
      cwd: makeTempDir("llm-wiki-mcp-elsewhere-"),
      env: { ...isolatedEnv(), LLM_WIKI_VAULT: vault },
    });
    const status = await call(server, "wiki_status");
    expect(metaResult(status)).toMatchObject({ ok: true, vault: { root: vault } });
  });

  it("refuses an unknown option with exit code 2 and usage on stderr, nothing on stdout", () => {
    const out = spawnSync(process.execPath, [SERVER, "--vaul", "x"], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? "", ...isolatedEnv() },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(out.status).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("usage: llm-wiki-mcp [--vault DIR]");
  });
});

/** Collects the newline-delimited stdout of a raw child; `waitFor` resolves once `pred` holds. */
function collectLines(child: ChildProcessWithoutNullStreams): {
  lines: string[];
  waitFor(pred: (lines: string[]) => boolean): Promise<void>;
} {
  const lines: string[] = [];
  let buffer = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  return {
    lines,
    waitFor(pred) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out; stdout: ${lines.join("\n")}`)),
          30_000,
        );
        const check = () => {
          if (pred(lines)) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

function hasResponse(id: number) {
  return (lines: string[]) =>
    lines.some((l) => {
      try {
        return (JSON.parse(l) as { id?: unknown }).id === id;
      } catch {
        return false;
      }
    });
}

function rawServer(vault: string): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [SERVER, "--vault", vault], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", ...isolatedEnv() },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

function send(child: ChildProcessWithoutNullStreams, message: object): void {
  child.stdin.write(`${JSON.stringify(message)}\n`);
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
};

describe("MCP server: the stdio stream", () => {
  it("writes nothing but JSON-RPC messages to stdout, and exits when stdin ends", async () => {
    const child = rawServer(exampleVault());
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const out = collectLines(child);
    send(child, INITIALIZE);
    await out.waitFor(hasResponse(1));
    // The initialized notification starts the background index update (which prints nothing to stdout).
    send(child, { jsonrpc: "2.0", method: "notifications/initialized" });
    send(child, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    send(child, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "wiki_recall", arguments: { query: CACHE_QUESTION } },
    });
    send(child, {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "wiki_reindex", arguments: { scope: "all" } },
    });
    await out.waitFor(hasResponse(4));
    child.stdin.end();
    expect(await exited(child)).toBe(0);

    expect(out.lines.length).toBeGreaterThanOrEqual(4);
    const messages = out.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const message of messages) {
      expect(message.jsonrpc).toBe("2.0");
      expect("result" in message || "error" in message || "method" in message).toBe(true);
    }
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(byId.get(2)).toMatchObject({ result: { tools: expect.any(Array) } });
    expect(JSON.stringify(byId.get(3))).toContain("concepts/cache-invalidation");
    expect(byId.get(4)).toMatchObject({ result: { structuredContent: { ok: true } } });
    expect(stderr).toContain("updating it in the background");
  });

  it("sends console output and direct stdout writes to stderr, keeping stdout for the protocol", () => {
    const guard = join(REPO, "mcp", "stdout-guard.ts");
    const script = [
      `const { reserveStdoutForProtocol } = await import(${JSON.stringify(guard)});`,
      "const protocol = reserveStdoutForProtocol();",
      'console.log("log noise"); console.info("info noise"); console.warn("warn noise");',
      'console.debug("debug noise"); console.table([1]); process.stdout.write("raw noise\\n");',
      'protocol.write("{\\"jsonrpc\\":\\"2.0\\"}\\n");',
    ].join("\n");
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(out.status).toBe(0);
    expect(out.stdout).toBe('{"jsonrpc":"2.0"}\n');
    for (const noise of ["log", "info", "warn", "debug", "raw"])
      expect(out.stderr).toContain(`${noise} noise`);
  });

  it("stops cleanly on SIGTERM", async () => {
    const child = rawServer(exampleVault());
    const out = collectLines(child);
    send(child, INITIALIZE);
    await out.waitFor(hasResponse(1));
    // Idle first: a recall waits for the background index update, so nothing is
    // left to cancel and the exit code says "clean" however busy the machine is.
    send(child, { jsonrpc: "2.0", method: "notifications/initialized" });
    send(child, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "wiki_recall", arguments: { query: CACHE_QUESTION } },
    });
    await out.waitFor(hasResponse(2));
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);
  });
});
