/**
 * One operation, three hosts: for the same indexed vault (a temporary copy of
 * the example vault, with vectors from the tiny test models) and the same
 * queries, the Pi `wiki_recall` tool (a real in-process Pi session driven by
 * Pi's faux model), the MCP server's `wiki_recall` (a real child process
 * spoken to by the SDK client) and the CLI (`llm-wiki recall Q --json
 * --vault DIR`, a real child process of the bundled CLI, as the MCP server
 * is the bundled server) return the same structured result:
 * same ids, order, scores, diagnostics and rendering. Only timings differ,
 * and the `answer_chars_cut` warning of a tool whose text was cut to the
 * answer budget: Pi and MCP hand a model text within `recallMaxChars`, the
 * CLI prints whole.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ANSWER_CUT_DIAGNOSTIC, fitRecallAnswer } from "../extensions/llm-wiki/lib/answer-fit.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { CLI } from "./helpers/cli.ts";
import { SERVER as MCP_SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { startPi, textOf } from "./helpers/pi-session.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");

interface Query {
  label: string;
  query: string;
  max_results?: number;
  mode?: "lexical" | "hybrid" | "adaptive" | "quality";
  explain?: boolean;
}

const QUERIES: Query[] = [
  // The default mode (adaptive); a question, so it escalates to expansion and rerank.
  { label: "a question, default mode", query: "how do we keep the cache consistent" },
  {
    label: "hybrid, 10 results",
    query: "sqlite write contention",
    max_results: 10,
    mode: "hybrid",
  },
  {
    label: "an exact title, quality, 3 results",
    query: "Cache invalidation",
    max_results: 3,
    mode: "quality",
  },
  // Not searched at all: the diagnostic must travel the same way through every host.
  { label: "too long", query: `cache ${"x".repeat(2_000)}`, mode: "lexical" },
  // Why each page came, the same through every host.
  {
    label: "explained, lexical",
    query: "version vectors and tombstones",
    mode: "lexical",
    explain: true,
  },
  // A word searched as another spelling: said in the result and the text of every host.
  { label: "a typo, lexical", query: "websokets versus polling", mode: "lexical" },
];

interface HostAnswer {
  result: RecallResult;
  /** What the host shows a model or a person. */
  text?: string;
}

const answers = { pi: [] as HostAnswer[], mcp: [] as HostAnswer[], cli: [] as HostAnswer[] };

let root: string;
let home: string;
let agentDir: string;
let project: string;

/** `result` as the service answered it, before a host cut its text to the answer budget. */
function uncut(result: RecallResult): RecallResult {
  return {
    ...result,
    diagnostics: result.diagnostics.filter((d) => d.code !== ANSWER_CUT_DIAGNOSTIC),
  };
}

/** Everything but the clock: durations and per-step milliseconds are zeroed. */
function comparable(result: RecallResult): unknown {
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

/** The environment every host runs in: the test's home, no user settings, the tiny models. */
function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    WIKI_HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    PI_CODING_AGENT_DIR: agentDir,
  };
  for (const name of [
    "XDG_CACHE_HOME",
    "QMD_EMBED_MODEL",
    "QMD_RERANK_MODEL",
    "QMD_GENERATE_MODEL",
    "QMD_EMBED_PARALLELISM",
    "LLM_WIKI_TEST",
  ]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function toolArgs(q: Query): Record<string, string | number | boolean> {
  return {
    query: q.query,
    ...(q.max_results !== undefined ? { max_results: q.max_results } : {}),
    ...(q.mode ? { mode: q.mode } : {}),
    ...(q.explain ? { explain: true } : {}),
  };
}

// ---------------------------------------------------------------------------
// Pi: a real session with the extension loaded from its path.
// ---------------------------------------------------------------------------

async function askPi(): Promise<HostAnswer[]> {
  for (const [name, value] of Object.entries(hostEnv())) vi.stubEnv(name, value);
  const pi = await startPi({ root, agentDir, project });
  const { session, errors } = pi;
  try {
    // The model calls wiki_recall once per query, one call per turn, then stops.
    pi.script(...QUERIES.map((q) => [fauxToolCall("wiki_recall", toolArgs(q))]), "Done.");
    await session.prompt("recall what the wiki knows");
    const results = session.messages.flatMap((m) =>
      m.role === "toolResult" && m.toolName === "wiki_recall"
        ? [{ result: m.details as unknown as RecallResult, text: textOf(m) }]
        : [],
    );
    expect(errors).toEqual([]);
    return results;
  } finally {
    await pi.close();
    vi.unstubAllEnvs();
  }
}

// ---------------------------------------------------------------------------
// MCP: the stdio server as a child process.
// ---------------------------------------------------------------------------

async function askMcp(): Promise<HostAnswer[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_SERVER, "--vault", project],
    cwd: REPO,
    env: hostEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-parity", version: "0.0.0" });
  await client.connect(transport);
  try {
    const out: HostAnswer[] = [];
    for (const q of QUERIES) {
      const result = (await client.callTool({
        name: "wiki_recall",
        arguments: toolArgs(q),
      })) as CallToolResult;
      const [first] = result.content;
      out.push({
        result: metaResult<RecallResult>(result),
        text: first?.type === "text" ? first.text : "",
      });
    }
    return out;
  } finally {
    await client.close();
  }
}

// ---------------------------------------------------------------------------
// CLI: one child process per query.
// ---------------------------------------------------------------------------

function askCli(): HostAnswer[] {
  return QUERIES.map((q) => {
    const args = [CLI, "recall", q.query, "--json", "--vault", project];
    if (q.max_results !== undefined) args.push("--max", String(q.max_results));
    if (q.mode) args.push("--mode", q.mode);
    if (q.explain) args.push("--explain");
    const run = spawnSync(process.execPath, args, {
      cwd: makeTempDir("llm-wiki-parity-cwd-"),
      env: hostEnv(),
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status, `${q.label}: ${run.stderr}`).toBe(0);
    return { result: JSON.parse(run.stdout) as RecallResult };
  });
}

// ---------------------------------------------------------------------------

beforeAll(async () => {
  root = makeTempDir("llm-wiki-parity-");
  home = join(root, "home");
  agentDir = join(root, "agent");
  project = join(root, "acme-notes");
  mkdirSync(home, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  // Only the tool is compared: no automatic recall may share the store with it meanwhile,
  // and no host's `shown` events may move the next host's ranking (feedback in ranking).
  writeFileSync(
    join(agentDir, "settings.json"),
    `${JSON.stringify({ "llm-wiki": { autoRecall: false, recallFeedback: false } })}\n`,
  );
  mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
  writeFileSync(
    join(home, ".config", "llm-wiki", "settings.json"),
    `${JSON.stringify({ "llm-wiki": { recallFeedback: false } })}\n`,
  );
  cpSync(EXAMPLE, project, {
    recursive: true,
    filter: (src) => !src.split(sep).includes("meta"),
  });
  const service = createWikiService({ cwd: project, env: hostEnv(), vault: project });
  try {
    const built = await service.reindex({ scope: "all", components: ["lexical", "vectors"] });
    expect(built.ok, JSON.stringify(built.diagnostics)).toBe(true);
    expect(built.reports[0]?.status).toMatchObject({ state: "ready", vectors: { present: true } });
  } finally {
    await service.close();
  }
  answers.pi = await askPi();
  answers.mcp = await askMcp();
  answers.cli = askCli();
}, 300_000);

afterAll(removeTempDirs);

describe("Pi, MCP and CLI recall parity", () => {
  it("every host answered every query", () => {
    expect(answers.pi).toHaveLength(QUERIES.length);
    expect(answers.mcp).toHaveLength(QUERIES.length);
    expect(answers.cli).toHaveLength(QUERIES.length);
  });

  QUERIES.forEach((q, i) => {
    it(`returns the same structured result: ${q.label}`, () => {
      const pi = answers.pi[i]?.result;
      const mcp = answers.mcp[i]?.result;
      const cli = answers.cli[i]?.result;
      if (!pi || !mcp || !cli) throw new Error("a host gave no answer");
      expect(pi.query.startsWith(q.query.slice(0, 20))).toBe(true);
      expect(comparable(mcp)).toEqual(comparable(pi));
      expect(comparable(cli)).toEqual(comparable(uncut(pi)));
      // The parts that matter most, named, so a failure says which one differs.
      for (const other of [mcp, cli]) {
        expect(other.results.map((r) => r.id)).toEqual(pi.results.map((r) => r.id));
        expect(other.results.map((r) => r.score)).toEqual(pi.results.map((r) => r.score));
        expect(uncut(other).diagnostics).toEqual(uncut(pi).diagnostics);
        expect(other.modeUsed).toBe(pi.modeUsed);
        expect(other.rendered).toBe(pi.rendered);
      }
    });
  });

  it("exercises the paths it claims to: pages found, the question escalated, the long query refused", () => {
    const [question, hybrid, exact, long, explained, typo] = answers.pi.map((a) => a.result);
    expect(question?.results.length).toBeGreaterThan(0);
    expect(question?.trace.map((t) => t.step)).toEqual([
      "lexical",
      "vector",
      "escalate",
      "expanded",
    ]);
    expect(hybrid?.modeUsed).toBe("hybrid");
    expect(hybrid?.results.length).toBeGreaterThan(0);
    expect(exact?.results[0]).toMatchObject({ id: "concepts/cache-invalidation", exact: true });
    // At most three memories: bundles, each a card with what its relations brought in.
    expect(new Set(exact?.results.map((r) => r.bundle)).size).toBeLessThanOrEqual(3);
    expect(long?.results).toEqual([]);
    expect(long?.diagnostics.map((d) => d.code)).toEqual(["recall_query_too_long"]);
    expect(explained?.results.length).toBeGreaterThan(0);
    const retrieved = explained?.results.filter((r) => r.matchReason !== "relation") ?? [];
    for (const r of retrieved) expect(r.why, r.id).toBeDefined();
    expect(retrieved.some((r) => (r.why?.evidence?.terms.length ?? 0) > 0)).toBe(true);
    // Without the flag, no explanation travels.
    expect(question?.results.every((r) => r.why === undefined)).toBe(true);
    expect(typo?.respelled).toEqual([{ from: "websokets", to: "websockets" }]);
    expect(typo?.results[0]?.id).toBe("syntheses/adr-003-websockets-over-polling");
    expect(question?.respelled).toBeUndefined();
  });

  it("says a word read as another spelling in the text a model and a person read", () => {
    const at = QUERIES.findIndex((q) => q.label === "a typo, lexical");
    const said = 'read "websokets" as "websockets"';
    expect(answers.pi[at]?.text).toContain(said);
    expect(answers.mcp[at]?.text).toContain(said);
    const printed = spawnSync(
      process.execPath,
      [CLI, "recall", QUERIES[at]?.query ?? "", "--mode", "lexical", "--vault", project],
      { cwd: makeTempDir("llm-wiki-parity-cwd-"), env: hostEnv(), encoding: "utf8" },
    );
    expect(printed.stdout.split("\n")[0]).toContain(said);
  });

  it("the Pi tool and the MCP tool show the same text, the shared rendering", () => {
    // `explain` ends with each stage's time (retrieve's parts too): the same lines, other milliseconds.
    const untimed = (text: string | undefined) =>
      text?.replace(/^(pipeline|search steps): .*$/gm, (line) =>
        line.replace(/\d+(?:\.\d+)? ms/g, "N ms").replace(/([a-z]+) \d+\.\d\d(?=[,)])/g, "$1 N"),
      );
    QUERIES.forEach((q, i) => {
      const pi = answers.pi[i];
      const mcp = answers.mcp[i];
      expect(untimed(mcp?.text), q.label).toBe(untimed(pi?.text));
      if (q.explain) expect(pi?.text, q.label).toMatch(/\npipeline: plan .* · fit \d/);
      // Within the default answer budget, as every host cuts it.
      const maxChars = DEFAULT_SETTINGS.recallMaxChars;
      const explain = q.explain === true;
      const fitted = pi ? fitRecallAnswer(uncut(pi.result), { maxChars, explain }) : undefined;
      expect(pi?.text?.startsWith(fitted?.text ?? "\u0000"), q.label).toBe(true);
      // A cut says so with a code, in the text's warnings and in the result alike.
      expect(pi?.result.diagnostics, q.label).toEqual(fitted?.result.diagnostics);
    });
  });
});
