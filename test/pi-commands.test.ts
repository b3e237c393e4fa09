/**
 * The `/wiki-…` commands in a real Pi session with the faux model:
 * `/wiki-query`, `/wiki-ingest` and `/wiki-lint` hand the agent a task as a
 * user message naming the tool to use (`/wiki-query` also: cite each page by
 * its id, answer only from the pages, keep an answer that joins several pages
 * as a synthesis page, log the question as a `query` event); `/wiki-status`
 * answers with a notice and involves no model at all.
 */
import { fauxToolCall, type Message } from "@earendil-works/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import {
  eventually,
  type PiHarness,
  piPerTest,
  textOf,
  toolResults,
} from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, pageText, readEvents, type TempVault } from "./helpers/temp-vault.ts";

const fixture = piPerTest("llm-wiki-commands-");
const pi = (): Promise<PiHarness> => fixture.start();
let vault: TempVault;

beforeEach(() => {
  vault = makeTempVault({
    root: fixture.dirs.project,
    pages: { "concepts/backpressure": pageText({ type: "concept", title: "Backpressure" }) },
  });
});

/** The user message the model received for a command (the last user message of its request). */
async function userMessageFor(session: PiHarness, command: string): Promise<string> {
  const seen = session.requests.length;
  session.script("ok");
  await session.session.prompt(command);
  // The command sends the message on its own; the run it starts finishes after `prompt` returns.
  expect(await eventually(() => session.requests.length > seen)).toBe(true);
  await session.session.waitForIdle();
  const request = session.requests[seen] ?? [];
  const users = request.filter(
    (m: Message) => m.role === "user" && !textOf(m).startsWith("<wiki-recall"),
  );
  return textOf(users.at(-1) ?? { role: "user", content: "", timestamp: 0 });
}

describe("/wiki-… commands in a real Pi session", () => {
  it("/wiki-query asks the agent to answer from wiki_recall, with the question, citing pages by id", async () => {
    const session = await pi();
    const text = await userMessageFor(session, "/wiki-query how do slow consumers stay safe?");
    expect(text).toContain("how do slow consumers stay safe?");
    expect(text).toContain("wiki_recall");
    // The citation rule: every page the answer uses is named by its id, as a wikilink.
    expect(text).toMatch(/\bcit(e|ing)\b[^.]*\[\[page-id\]\]/i);
    expect(text).toMatch(/\banswer only from\b/i);
  });

  it("/wiki-query keeps only an answer joining several pages, as a synthesis citing them, and logs the question", async () => {
    const session = await pi();
    const text = await userMessageFor(session, `/wiki-query ${randomWords(5)}?`);
    const steps = text.split("\n").filter((line) => /^\d\. /.test(line));
    expect(steps).toHaveLength(3);
    // Saving is conditional, and the page is a synthesis that links what it rests on.
    expect(steps[1]).toMatch(/^2\. Save the answer only when it joins several of those pages/);
    expect(steps[1]).toContain('wiki_ensure_page with type "synthesis"');
    expect(steps[1]).toContain("links every page it rests on as [[page-id]]");
    expect(steps[1]).toMatch(/Do not save an answer that repeats one page/);
    // The question itself is logged, as the user asked it, under the kind "query".
    expect(steps[2]).toContain('wiki_log_event with kind "query"');
    expect(steps[2]).toContain('"question": the question above as asked');
  });

  it("/wiki-query's calls are accepted as named: the synthesis page is written, the query event logged with the question", async () => {
    const session = await pi();
    // Quotes, braces and a control byte: the log keeps the question as asked, as JSON.
    const question = `${randomWords(3)} "${randomWord()}" {${randomWord()}} \u0007 ${randomWord()}?`;
    const title = `${randomWord()} ${randomWord()} synthesis`;
    session.script(
      [
        fauxToolCall("wiki_ensure_page", {
          type: "synthesis",
          title,
          content: `Joins [[concepts/backpressure]] and [[concepts/${randomWord()}]].`,
        }),
      ],
      [fauxToolCall("wiki_log_event", { kind: "query", detail: { question } })],
      "answered",
    );
    await session.session.prompt(`/wiki-query ${question}`);
    await eventually(() => toolResults(session.session).length === 2);
    await session.session.waitForIdle();
    const results = toolResults(session.session);
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ["wiki_ensure_page", false],
      ["wiki_log_event", false],
    ]);
    const created = results[0]?.details as { id?: string } | undefined;
    expect(created?.id).toMatch(/synthes/);
    expect(vault.readPage(created?.id ?? "")).toMatch(/^type: synthesis$/m);
    const logged = readEvents(vault.paths).filter((e) => e.kind === "query");
    expect(logged).toHaveLength(1);
    expect(logged[0]?.detail).toEqual({ question: question.trim() });
  });

  it("/wiki-query without a question shows its usage and starts no turn", async () => {
    const session = await pi();
    await session.session.prompt("/wiki-query   ");
    expect(session.notices.at(-1)).toEqual({
      message: "usage: /wiki-query <question>",
      type: "warning",
    });
    expect(session.requests).toEqual([]);
  });

  it("/wiki-ingest asks for wiki_ingest, naming the source when one is given", async () => {
    const session = await pi();
    const all = await userMessageFor(session, "/wiki-ingest");
    expect(all).toContain("call wiki_ingest and follow what it returns");
    expect(all).toContain("wiki_ensure_page");
    expect(all).toContain("mark_ingested: true");
    const one = await userMessageFor(session, "/wiki-ingest SRC-2026-11-30-001");
    expect(one).toContain('wiki_ingest with source "SRC-2026-11-30-001"');
  });

  it("/wiki-lint asks for wiki_lint, with fix: true only on --fix", async () => {
    const session = await pi();
    const plain = await userMessageFor(session, "/wiki-lint");
    expect(plain).toContain("call wiki_lint,");
    expect(plain).not.toContain("fix: true");
    const fix = await userMessageFor(session, "/wiki-lint --fix");
    expect(fix).toContain("call wiki_lint with fix: true");
  });

  it("/wiki-status shows the vault's status as a notice without asking the model", async () => {
    const session = await pi();
    await session.session.prompt("/wiki-status");
    const notice = session.notices.at(-1);
    expect(notice?.type).toBe("info");
    expect(notice?.message).toMatch(/^llm-wiki:\nvault {3}test vault \(project\) at /);
    expect(notice?.message).toContain("pages   1 (1 canonical, 0 evidence)");
    expect(session.requests).toEqual([]);
  });
});
