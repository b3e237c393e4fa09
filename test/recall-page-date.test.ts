/**
 * One date per page, the same everywhere: a decision created 2026-01-20 and
 * edited 2026-03-10 is judged "before March 2026" by its created date, and
 * that is the date every host shows — the `<wiki-recall>` block, the CLI's
 * text and `--json`, MCP's text and structured result, Pi's injected block
 * and tool details — with the edit beside it, with or without a time
 * question.
 */
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const QUESTION = "what did we decide before March 2026";
const SHOWN = "date: 2026-01-20 (edited 2026-03-10)";
/** The edit shown as the page's date: what the model must never read under "before March". */
const EDIT_AS_DATE = /date: 2026-03-10/;

/** Two decisions on one fresh topic: one decided in January and edited in March, one decided in April. */
function decisionPages(topic: string): Record<string, string> {
  return {
    "decisions/early": pageText(
      {
        type: "decision",
        title: `Early ${topic} choice`,
        created: "2026-01-20",
        updated: "2026-03-10",
      },
      `We chose how the ${topic} works.`,
    ),
    "decisions/later": pageText(
      { type: "decision", title: `Later ${topic} choice`, created: "2026-04-02" },
      `We chose again how the ${topic} works.`,
    ),
  };
}

const byId = (r: RecallResult, id: string) => r.results.find((x) => x.id === id);

const MONTHS = ["June", "July", "August", "September", "October", "November", "December"];
/** A month no decision is dated in (both are dated January to April), fresh each run. */
function emptyMonth(topic: string): { question: string; note: string } {
  const i = Math.floor(Math.random() * MONTHS.length);
  const month = String(i + 6).padStart(2, "0");
  const last = new Date(Date.UTC(2026, i + 6, 0)).getUTCDate();
  return {
    question: `what did we decide about the ${topic} in ${MONTHS[i]} 2026`,
    note: `None of these pages is dated in the time asked about (since 2026-${month}-01 until 2026-${month}-${last}): they match its subject, not its time.`,
  };
}
const NOTE_START = "None of these pages is dated in the time asked about";

describe("the CLI: the date a time question judges by is the date shown", () => {
  afterEach(removeTempDirs);

  it("prints the created date with the edit beside it, in the text and in --json", () => {
    const topic = randomWord(7, 10);
    const vault = makeTempVault({ pages: decisionPages(topic) });
    const env = childEnv({ NO_COLOR: "1" });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const recall = (...args: string[]) =>
      runCli(["recall", "--mode", "lexical", ...args, "--vault", vault.root], { env });

    const text = recall(QUESTION);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain("preferring pages dated until 2026-02-28");
    expect(text.stdout).toContain(SHOWN);
    expect(text.stdout).not.toMatch(EDIT_AS_DATE);

    const json = recall("--json", QUESTION);
    expect(json.status, json.stderr).toBe(0);
    const asked = JSON.parse(json.stdout) as RecallResult;
    expect(asked.results[0]?.id).toBe("decisions/early");
    expect(byId(asked, "decisions/early")).toMatchObject({
      date: "2026-01-20",
      edited: "2026-03-10",
    });
    expect(asked.rendered).toContain(SHOWN);

    // A time no page is dated in: the decisions still answer the subject, and
    // every form says none is from that time; where one is, nothing says so.
    expect(asked.window?.pagesInside).toBeGreaterThan(0);
    expect(asked.rendered).not.toContain(NOTE_START);
    expect(text.stdout).not.toContain("none of these is");
    const empty = emptyMonth(topic);
    const outside = JSON.parse(recall("--json", empty.question).stdout) as RecallResult;
    expect(outside.results.map((r) => r.id)).toContain("decisions/early");
    expect(outside.window?.pagesInside).toBe(0);
    expect(outside.rendered).toContain(empty.note);
    expect(recall(empty.question).stdout).toMatch(/\("in \w+ 2026"\), and none of these is\)/);
    // A question about that time alone: nothing is dated in it, and the answer says so.
    const only = recall(empty.question.replace(` about the ${topic}`, ""));
    expect(only.stdout).toMatch(/^0 page\(s\) .*: no page dated in that time answers it\.$/m);

    // No time question: the same page, the same date.
    const plain = recall("--json", `${topic} choice`);
    const result = JSON.parse(plain.stdout) as RecallResult;
    expect(result.window).toBeUndefined();
    expect(byId(result, "decisions/early")).toMatchObject({
      date: "2026-01-20",
      edited: "2026-03-10",
    });
    expect(result.rendered).toContain(SHOWN);
    expect(result.rendered).not.toMatch(EDIT_AS_DATE);
    // A page never edited shows its one date alone.
    expect(byId(result, "decisions/later")?.date).toBe("2026-04-02");
    expect(byId(result, "decisions/later")?.edited).toBeUndefined();
    expect(result.rendered).toMatch(/date: 2026-04-02(?! \(edited)/);
  });
});

describe("the MCP server: the same date in the text and the structured result", () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    removeTempDirs();
  });

  it("wiki_recall shows the created date with the edit beside it", async () => {
    const topic = randomWord(7, 10);
    const vault = makeTempVault({ pages: decisionPages(topic) });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      env: isolatedEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect((await call("wiki_reindex", {})).isError).toBeFalsy();

    const answer = await call("wiki_recall", { query: QUESTION, mode: "lexical" });
    expect(answer.isError).toBeFalsy();
    const [first] = answer.content;
    const text = first?.type === "text" ? first.text : "";
    expect(text).toContain(SHOWN);
    expect(text).not.toMatch(EDIT_AS_DATE);
    const result = metaResult<RecallResult>(answer);
    expect(result.results[0]?.id).toBe("decisions/early");
    expect(byId(result, "decisions/early")).toMatchObject({
      date: "2026-01-20",
      edited: "2026-03-10",
    });

    const empty = emptyMonth(topic);
    const outside = await call("wiki_recall", { query: empty.question, mode: "lexical" });
    const [said] = outside.content;
    expect(said?.type === "text" ? said.text : "").toContain(empty.note);
    expect(metaResult<RecallResult>(outside).window?.pagesInside).toBe(0);
  });
});

describe("Pi: the same date in the injected block and the tool's details", () => {
  const fixture = piPerTest("llm-wiki-page-date-");

  it("automatic recall and wiki_recall show the created date with the edit beside it", async () => {
    const topic = randomWord(7, 10);
    makeTempVault({ root: fixture.dirs.project, pages: decisionPages(topic) });
    const pi = await fixture.start();
    pi.script([fauxToolCall("wiki_recall", { query: QUESTION, mode: "lexical" })], "ok");
    await pi.session.prompt(`${QUESTION}?`);
    await pi.session.waitForIdle();

    const injected = (pi.requests[0] ?? [])
      .filter((m) => m.role === "user" && textOf(m).startsWith("<wiki-recall"))
      .map(textOf)
      .join("\n");
    expect(injected).toContain("decisions/early");
    expect(injected).toContain(SHOWN);
    expect(injected).not.toMatch(EDIT_AS_DATE);

    expect(injected).not.toContain(NOTE_START);
    const [tool] = toolResults(pi.session);
    expect(tool?.toolName).toBe("wiki_recall");
    expect(tool && textOf(tool)).toContain(SHOWN);
    const details = tool?.details as RecallResult | undefined;
    expect(details && byId(details, "decisions/early")).toMatchObject({
      date: "2026-01-20",
      edited: "2026-03-10",
    });
  });
});
