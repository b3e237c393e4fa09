/**
 * Recall feedback over MCP, through the real server process on a real temp
 * vault with a real index: what a connection's wiki_recall showed can be
 * judged with wiki_recall_feedback (anything else is refused), reading a
 * shown page's resource is `opened`, a correction becomes an observation
 * page and a case of `llm-wiki bench vault`, and page resources never serve
 * bytes from outside the wiki, whatever the URI.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { queryHash } from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { findUnsafeChar } from "../extensions/llm-wiki/lib/safety/text.ts";
import { runCli } from "./helpers/cli.ts";
import {
  answered,
  initializeRequest,
  isolatedEnv,
  responseTo,
  SERVER,
  spawnRawServer,
} from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { randomWord } from "./helpers/random-text.ts";
import { secretCorpus } from "./helpers/secret-corpus.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

interface Running {
  client: Client;
  stderr(): string;
}

const running: Running[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.client.close()));
});
afterAll(removeTempDirs);

async function startServer(vault: string, env: Record<string, string>): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", vault],
    cwd: REPO,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "llm-wiki-feedback-test", version: "0.0.0" });
  await client.connect(transport);
  const r = { client, stderr: () => stderr };
  running.push(r);
  return r;
}

async function call(
  server: Running,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  if (first?.type !== "text") throw new Error("expected one text content block");
  return first.text;
}

/** Every file's bytes under `dir` (latin1, so any byte sequence survives), by path. */
function allFiles(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = join(dir, name);
    if (statSync(file).isFile())
      out.push({ path: name, text: readFileSync(file).toString("latin1") });
  }
  return out;
}

/** The feedback events of the vault's log. */
function feedbackEvents(vault: TempVault): Array<Record<string, unknown>> {
  return readEvents(vault.paths).filter((e) => e.kind === "recall_feedback");
}

/** Unrelated pages, so the vault's word statistics look like a vault's. */
function fillers(count: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) {
    const w = randomWord(6, 9);
    out[`concepts/filler-${i}-${w}`] = pageText(
      { title: `Filler ${w}`, type: "concept" },
      `# Filler ${w}\n\nNotes on ${w}, deployment and logging.\n`,
    );
  }
  return out;
}

/**
 * Pages with random words: one the query finds, one it misses. The query
 * holds the shown page's words in another order, so as a phrase it is in no
 * page: found on disk, it could only have been logged.
 */
function feedbackVault() {
  const a = randomWord(8, 12);
  const b = randomWord(8, 12);
  const other = randomWord(8, 12);
  const shownId = `concepts/${randomWord(6, 9)}`;
  const unshownId = `concepts/${randomWord(6, 9)}`;
  const [secret] = secretCorpus();
  if (!secret) throw new Error("empty secret corpus");
  const vault = makeTempVault({
    pages: {
      ...fillers(6),
      [shownId]: pageText(
        { title: `Handling ${a}`, type: "concept" },
        `# Handling ${a}\n\nThe ${a} pipeline retries twice before the ${b} stage gives up.\n\n${secret.text}\n`,
      ),
      [unshownId]: pageText(
        { title: `About ${other}`, type: "concept" },
        `# About ${other}\n\nNothing here mentions the other words; ${other} only.\n`,
      ),
    },
  });
  return { vault, shownId, unshownId, secret, a, query: `${b} stage ${a} pipeline` };
}

describe("recall feedback through the MCP server", () => {
  it("judges only shown pages, records opened on a read, and a correction becomes a bench vault case", async () => {
    const { vault, shownId, unshownId, secret, a, query } = feedbackVault();
    const env = isolatedEnv();
    const server = await startServer(vault.root, env);

    // Nothing was shown yet: even an existing page is refused.
    const early = await call(server, "wiki_recall_feedback", {
      page_id: shownId,
      judgment: "relevant",
    });
    expect(early.isError).toBe(true);
    expect(early.structuredContent).toMatchObject({
      ok: false,
      diagnostics: [{ code: "feedback_not_shown" }],
    });

    const recall = await call(server, "wiki_recall", { query });
    expect(recall.isError).toBeFalsy();
    const recalled = metaResult<RecallResult>(recall);
    const ids = recalled.results.map((r) => r.id);
    expect(ids).toContain(shownId);
    expect(ids).not.toContain(unshownId);
    const hash = queryHash(query);
    // The shown pages are logged once the answer has gone out, at once after it.
    const shownLine = expect.objectContaining({ page: shownId, action: "shown", query_hash: hash });
    const until = Date.now() + 30_000;
    while (!feedbackEvents(vault).some((e) => e.page === shownId && e.action === "shown")) {
      if (Date.now() > until) throw new Error("the shown pages were never logged");
      await sleep(20);
    }
    expect(feedbackEvents(vault)).toContainEqual(shownLine);

    // A page the recall did not show: refused, and nothing is logged for it.
    const refused = await call(server, "wiki_recall_feedback", {
      page_id: unshownId,
      judgment: "irrelevant",
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/not shown by a recall in this session/);
    expect(feedbackEvents(vault).some((e) => e.page === unshownId)).toBe(false);

    // Reading the page the recall showed: its bytes, secret redacted, and `opened` once.
    const read = await server.client.readResource({ uri: `llm-wiki://project/${shownId}` });
    const [content] = read.contents;
    expect(content).toMatchObject({
      uri: `llm-wiki://project/${shownId}`,
      mimeType: "text/markdown",
    });
    const text = content && "text" in content ? String(content.text) : "";
    expect(text).toContain(`The ${a} pipeline retries twice`);
    expect(text).not.toContain(secret.secret);
    expect(text).toContain("[REDACTED:");
    await server.client.readResource({ uri: `llm-wiki://project/${shownId}` });
    const opened = () => feedbackEvents(vault).filter((e) => e.action === "opened");
    expect(opened()).toEqual([
      expect.objectContaining({ page: shownId, query_hash: hash, rank: 1 }),
    ]);
    // Reading a page no recall showed serves it, but is not an `opened` signal.
    const unshownRead = await server.client.readResource({
      uri: `llm-wiki://project/${unshownId}`,
    });
    expect(JSON.stringify(unshownRead.contents)).toContain("Nothing here mentions the other words");
    expect(opened()).toHaveLength(1);

    // The correction: an observation page linking the shown page, and its `corrected` event.
    const words = `${randomWord(9, 12)} ${randomWord(9, 12)} ${randomWord(9, 12)}`;
    const correction = `Wrong: the stage does not give up. It escalates to ${words} after two retries.`;
    const corrected = await call(server, "wiki_recall_feedback", {
      page_id: shownId,
      judgment: "corrected",
      correction,
    });
    expect(corrected.isError).toBeFalsy();
    const result = corrected.structuredContent as {
      ok: boolean;
      correction: { id: string; path: string; created: boolean };
      indexed?: boolean;
    };
    expect(result).toMatchObject({ ok: true, correction: { created: true }, indexed: true });
    expect(result.correction.id).toMatch(/^sources\/rc-/);
    const pageFile = join(vault.paths.dir, result.correction.path);
    const written = readFileSync(pageFile, "utf8");
    expect(written).toContain(words);
    expect(written).toContain(`corrected_page: ${shownId}`);
    expect(textOf(corrected)).toContain(result.correction.id);
    expect(feedbackEvents(vault)).toContainEqual(
      expect.objectContaining({
        page: shownId,
        action: "corrected",
        query_hash: hash,
        observation: result.correction.id,
      }),
    );
    // The log keeps the session's order: shown, then opened, then corrected.
    const order = feedbackEvents(vault)
      .filter((e) => e.page === shownId)
      .map((e) => e.action);
    expect(order).toEqual(["shown", "opened", "corrected"]);

    // The question never reaches the disk, only its hash.
    for (const file of allFiles(vault.paths.dir)) {
      expect(file.text.includes(query), file.path).toBe(false);
    }

    await server.client.close();
    running.length = 0;

    // The end-to-end: the correction made over MCP is a case of `bench vault`.
    const bench = runCli(["bench", "vault", "--json", "--vault", vault.root], {
      cwd: vault.root,
      env: { HOME: env.HOME, WIKI_HOME: env.WIKI_HOME },
    });
    expect(bench.status, bench.stderr).toBe(0);
    const report = JSON.parse(bench.stdout) as {
      ok: boolean;
      cases: Array<{
        correction: string;
        correctedPage: string;
        correctionRank: number | null;
        correctedRank: number | null;
        pass: boolean;
      }>;
      summary: { cases: number; pass: number };
    };
    expect(report.ok).toBe(true);
    expect(report.summary).toEqual({ cases: 1, pass: 1 });
    const [only] = report.cases;
    expect(only).toMatchObject({
      correction: result.correction.id,
      correctedPage: shownId,
      pass: true,
    });
    expect(only?.correctionRank).toBeLessThanOrEqual(5);
    // The corrected page comes below its correction, or not at all.
    if (only?.correctedRank != null)
      expect(only.correctedRank).toBeGreaterThan(only.correctionRank ?? 0);
    expect(bench.stdout).not.toContain(query);
  });
});

describe("page resources with hostile URIs", () => {
  let server: Running;
  let vault: TempVault;
  let outsideMarker: string;
  let insideMarker: string;
  let pageId: string;

  beforeAll(async () => {
    outsideMarker = `OUTSIDE-${randomWord(12, 16)}`;
    insideMarker = `INSIDE-${randomWord(12, 16)}`;
    pageId = `concepts/${randomWord(6, 9)}`;
    vault = makeTempVault({
      pages: { [pageId]: pageText({ title: "A page", type: "concept" }, "# A page\n\nBody.\n") },
      config: { name: `hostile ${insideMarker}` },
    });
    // Outside the vault entirely, next to it, and a page-shaped link to it.
    const outside = join(makeTempDir("llm-wiki-outside-"), "secret.md");
    writeFileSync(outside, pageText({ title: "Outside", type: "concept" }, `${outsideMarker}\n`));
    writeFileSync(
      join(vault.root, "secret.md"),
      pageText({ title: "Next door", type: "concept" }, `${outsideMarker}\n`),
    );
    symlinkSync(outside, join(vault.paths.wiki, "concepts", "escape.md"));
    // Inside the vault but outside wiki/: a link the registry accepts and a read must not follow.
    mkdirSync(vault.paths.raw, { recursive: true });
    const raw = join(vault.paths.raw, "notes.md");
    writeFileSync(raw, pageText({ title: "Raw notes", type: "concept" }, `${insideMarker}\n`));
    symlinkSync(raw, join(vault.paths.wiki, "concepts", "raw-link.md"));
    server = await startServer(vault.root, isolatedEnv());
    running.splice(running.indexOf(server), 1);
  });

  afterAll(() => server.client.close());

  it("lists the page template and the vault's pages", async () => {
    const templates = await server.client.listResourceTemplates();
    expect(templates.resourceTemplates).toEqual([
      expect.objectContaining({
        uriTemplate: "llm-wiki://{vault}/{+page}",
        mimeType: "text/markdown",
      }),
    ]);
    const list = await server.client.listResources();
    expect(list.resources.map((r) => r.uri)).toContain(`llm-wiki://project/${pageId}`);
    expect(list.resources.map((r) => r.uri)).not.toContain("llm-wiki://project/concepts/escape");
    // The registry accepts a link that stays in the vault, so only the read's own check keeps raw/ out.
    expect(list.resources.map((r) => r.uri)).toContain("llm-wiki://project/concepts/raw-link");
    const page = await server.client.readResource({ uri: `llm-wiki://project/${pageId}` });
    expect(JSON.stringify(page.contents)).toContain("Body.");
  });

  const HOSTILE = [
    "llm-wiki://project/../config",
    "llm-wiki://project/../../secret",
    "llm-wiki://project/concepts/../../config",
    "llm-wiki://project/%2e%2e/%2e%2e/secret",
    "llm-wiki://project/concepts%2f..%2f..%2fconfig",
    "llm-wiki://project/concepts/..%5c..%5cconfig",
    "llm-wiki://project//etc/passwd",
    "llm-wiki://project/%2Fetc%2Fpasswd",
    "llm-wiki://project/C:%5CWindows%5Cwin.ini",
    "llm-wiki:///etc/passwd",
    "file:///etc/passwd",
    "llm-wiki://personal/../../../secret",
    "llm-wiki://elsewhere/concepts/a",
    "llm-wiki://project/concepts/escape",
    "llm-wiki://project/concepts/raw-link",
    "llm-wiki://project/concepts/a\u0000",
    "llm-wiki://project/concepts/a%00",
    "llm-wiki://project/concepts/a\u001b[31m",
    "llm-wiki://project/concepts/a%1b",
    "llm-wiki://project/concepts/a\nb",
    "llm-wiki://project/concepts/\u202eevil",
    "llm-wiki://project/concepts/a?x=../../config",
    "llm-wiki://project/%E0%A4%A",
    `llm-wiki://project/${"a/".repeat(2_000)}b`,
  ];

  it.each(HOSTILE.map((uri) => [JSON.stringify(uri).slice(0, 80), uri]))(
    "refuses %s with an MCP error, serving nothing from outside the wiki",
    async (_label, uri) => {
      const error = await server.client.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      const mcp = error as McpError;
      expect([ErrorCode.InvalidParams, -32002]).toContain(mcp.code);
      expect(mcp.message).not.toContain(outsideMarker);
      expect(mcp.message).not.toContain(insideMarker);
      expect(findUnsafeChar(mcp.message)).toBeUndefined();
    },
  );

  it("answers a read whose uri is not a string with invalid params, and keeps serving", async () => {
    const raw = spawnRawServer(vault.root);
    try {
      await raw.send(initializeRequest(1));
      await raw.waitFor(answered(1));
      await raw.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      // Params that are not even an object are not a request (JSON-RPC's -32600).
      for (const [id, params, code] of [
        [2, { uri: 5 }, ErrorCode.InvalidParams],
        [3, { uri: null }, ErrorCode.InvalidParams],
        [4, {}, ErrorCode.InvalidParams],
        [5, "llm-wiki://project/x", ErrorCode.InvalidRequest],
      ] as const) {
        await raw.send({ jsonrpc: "2.0", id, method: "resources/read", params });
        await raw.waitFor(answered(id));
        const error = responseTo(raw.messages, id).error;
        expect(error?.code).toBe(code);
        expect(error?.message).not.toMatch(/"code":|invalid_type/);
      }
      await raw.send({
        jsonrpc: "2.0",
        id: 6,
        method: "resources/read",
        params: { uri: `llm-wiki://project/${pageId}` },
      });
      await raw.waitFor(answered(6));
      expect(JSON.stringify(responseTo(raw.messages, 6).result)).toContain("Body.");
      expect(raw.stderr()).not.toContain(outsideMarker);
    } finally {
      raw.child.kill("SIGKILL");
    }
  });
});
