/**
 * A cut for the character budget (`recallMaxChars`) is a coded warning in
 * every host, as a cut for the time budget is: `recall_chars_cut` when the
 * `<wiki-recall>` block leaves pages out or shows some without their text
 * (in the result of the CLI's `--json`, MCP and Pi, and on the CLI's
 * stderr, in the tools' text and on Pi's status line), `answer_chars_cut`
 * when a Pi or MCP tool cuts its text answer (in the text and the result;
 * the CLI prints whole). The warnings are never what the cut removes. An
 * answer within the budget carries neither. The vault is long pages that
 * all name one random topic word, the budget random and small.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import { ANSWER_CUT_DIAGNOSTIC } from "../extensions/llm-wiki/lib/answer-fit.ts";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { CHARS_CUT_DIAGNOSTIC } from "../extensions/llm-wiki/lib/recall/recall-fit.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import type { SearchResult } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { recallStatus } from "../extensions/llm-wiki/pi/status-line.ts";
import { runCli } from "./helpers/cli.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { startPi, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText } from "./helpers/temp-vault.ts";

const { clients, sessions } = isolatedHosts("llm-wiki-char-budget-home-");

const OPEN = '<wiki-recall source="llm-wiki">';
const CLOSE = "</wiki-recall>";
const BLOCK_CUT = "warning: the recall block was cut to its character budget";
const ANSWER_CUT = "warning: the answer was cut to its character budget";

interface Fixture {
  root: string;
  home: string;
  budget: number;
  topic: string;
  /** A word on one short page only: its recall fits. */
  lone: string;
  /** The tag of many short pages: a search for it lists them all. */
  tag: string;
}

function fixture(): Fixture {
  // Under what 50 listing lines of the tag's pages take (60+ characters
  // each), so the search overflows it whatever words a run draws.
  const budget = 1_500 + Math.floor(Math.random() * 700);
  const topic = randomWord(8, 12);
  const lone = randomWord(8, 12);
  const tag = randomWord(8, 12);
  const pages: Record<string, string> = {
    [`concepts/${lone}`]: pageText(
      { type: "concept", title: randomWords(2) },
      `${lone} is short.\n`,
    ),
  };
  for (let i = 0; i < 12; i += 1) {
    const body = Array.from(
      { length: 6 },
      () => `## ${randomWords(3)}\n\n${topic} ${randomWords(80)} ${topic}.\n`,
    ).join("\n");
    pages[`concepts/${topic}-${i}-${randomWord()}`] = pageText(
      { type: "concept", title: `${topic} ${randomWords(4)}` },
      body,
    );
  }
  // Short pages by the dozen under one tag, so a search listing them overflows the budget too.
  for (let i = 0; i < 60; i += 1) {
    pages[`entities/${tag}-${randomWord()}`] = pageText(
      { type: "entity", title: `${tag} ${randomWords(3)}`, tags: `[${tag}]` },
      `${randomWords(6)}\n`,
    );
  }
  const root = makeTempVault({ pages }).root;
  const home = makeTempDir("llm-wiki-char-budget-user-");
  mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
  writeFileSync(
    join(home, ".config", "llm-wiki", "settings.json"),
    JSON.stringify({ "llm-wiki": { recallMaxChars: budget, recallFeedback: false } }),
  );
  return { root, home, budget, topic, lone, tag };
}

const env = (f: Fixture) => ({
  HOME: f.home,
  WIKI_HOME: f.home,
  XDG_CACHE_HOME: join(f.home, ".cache"),
  XDG_CONFIG_HOME: join(f.home, ".config"),
});

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);
const cutWarning = (diagnostics: Diagnostic[], code: string) =>
  diagnostics.find((d) => d.code === code && d.severity === "warning");

/** The block in a text answer, when there is one, is whole: opened once, closed once. */
function expectClosed(text: string): void {
  const lines = text.split("\n");
  const opens = lines.filter((l) => l === OPEN).length;
  expect(lines.filter((l) => l === CLOSE).length).toBe(opens);
  expect(opens).toBeLessThanOrEqual(1);
}

describe("a cut for the character budget", () => {
  it("is recall_chars_cut in the CLI's --json and on its stderr, and the CLI's answer is whole", () => {
    const f = fixture();
    const recall = (...args: string[]) =>
      runCli(["recall", f.topic, "--mode", "lexical", "--max", "10", ...args, "--vault", f.root], {
        env: env(f),
      });
    const json = recall("--json");
    expect(json.status, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as RecallResult;
    expect(result.renderedPages.length).toBeLessThan(result.results.length);
    const cut = cutWarning(result.diagnostics, CHARS_CUT_DIAGNOSTIC);
    expect(cut?.message).toContain(`(${f.budget} characters, recallMaxChars)`);
    expect(cut?.message).toContain(
      `${result.results.length - result.renderedPages.length} of ${result.results.length} page(s) left out`,
    );
    // The CLI prints whole: no answer was cut.
    expect(codes(result.diagnostics)).not.toContain(ANSWER_CUT_DIAGNOSTIC);

    const text = recall();
    expect(text.status).toBe(0);
    expect(text.stderr).toContain(BLOCK_CUT);
    expect(text.stdout).toContain(OPEN);
    expectClosed(text.stdout);

    const fits = runCli(["recall", f.lone, "--json", "--vault", f.root], { env: env(f) });
    const fitted = JSON.parse(fits.stdout) as RecallResult;
    expect(fitted.results.length).toBeGreaterThan(0);
    expect(codes(fitted.diagnostics)).not.toContain(CHARS_CUT_DIAGNOSTIC);
  });

  it("is recall_chars_cut and answer_chars_cut in MCP's text and result, within the budget", async () => {
    const f = fixture();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", f.root],
      env: { PATH: process.env.PATH ?? "", ...env(f) },
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-char-budget", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    const textOf = (r: CallToolResult) =>
      r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect((await call("wiki_reindex", { scope: "all" })).isError ?? false).toBe(false);

    const answer = await call("wiki_recall", { query: f.topic, mode: "lexical", max_results: 10 });
    const text = textOf(answer);
    expect(text.length).toBeLessThanOrEqual(f.budget);
    expect(text).toContain(BLOCK_CUT);
    expect(text).toContain(ANSWER_CUT);
    expectClosed(text);
    const result = metaResult<RecallResult>(answer);
    expect(cutWarning(result.diagnostics, CHARS_CUT_DIAGNOSTIC)).toBeDefined();
    expect(cutWarning(result.diagnostics, ANSWER_CUT_DIAGNOSTIC)?.message).toContain(
      `(${f.budget} characters, recallMaxChars)`,
    );

    const search = await call("wiki_search", { query: f.tag, limit: 50 });
    expect(textOf(search).length).toBeLessThanOrEqual(f.budget);
    expect(textOf(search)).toContain(ANSWER_CUT);
    expect(codes(metaResult<SearchResult>(search).diagnostics)).toContain(ANSWER_CUT_DIAGNOSTIC);

    const fits = await call("wiki_recall", { query: f.lone });
    expect(textOf(fits)).not.toContain("warning:");
    expect(codes(metaResult<RecallResult>(fits).diagnostics)).toEqual(
      expect.not.arrayContaining([CHARS_CUT_DIAGNOSTIC, ANSWER_CUT_DIAGNOSTIC]),
    );
  });

  it("is both warnings in a Pi session's wiki_recall, and on its status line", async () => {
    const f = fixture();
    const scratch = makeTempDir("llm-wiki-char-budget-pi-");
    const agentDir = join(scratch, "agent");
    mkdirSync(agentDir);
    // Where the extension reads its settings (the per-test home points elsewhere).
    vi.stubEnv("PI_CODING_AGENT_DIR", agentDir);
    writeFileSync(
      join(agentDir, "settings.json"),
      `${JSON.stringify({ "llm-wiki": { recallMaxChars: f.budget, autoRecall: false, sessionPriming: false, recallFeedback: false } })}\n`,
    );
    const pi = await startPi({ root: scratch, agentDir, project: f.root });
    sessions.push(pi);
    pi.script(
      [fauxToolCall("wiki_recall", { query: f.topic, mode: "lexical", max_results: 10 })],
      [fauxToolCall("wiki_recall", { query: f.lone, mode: "lexical" })],
      "done",
    );
    await pi.session.prompt("what do we know");
    const [cut, fits] = toolResults(pi.session);
    const text = cut?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";
    expect(text.length).toBeLessThanOrEqual(f.budget);
    expect(text).toContain(BLOCK_CUT);
    expect(text).toContain(ANSWER_CUT);
    expectClosed(text);
    const result = cut?.details as unknown as RecallResult;
    expect(codes(result.diagnostics)).toEqual(
      expect.arrayContaining([CHARS_CUT_DIAGNOSTIC, ANSWER_CUT_DIAGNOSTIC]),
    );
    expect(recallStatus(result)).toMatch(/ · cut \(character budget\)$/);
    const whole = fits?.details as unknown as RecallResult;
    expect(codes(whole.diagnostics)).toEqual(
      expect.not.arrayContaining([CHARS_CUT_DIAGNOSTIC, ANSWER_CUT_DIAGNOSTIC]),
    );
    expect(recallStatus(whole)).not.toContain("cut");
  });
});
