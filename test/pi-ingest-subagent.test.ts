/**
 * `wiki_ingest` in a real Pi session: by default a sub-agent of the session's
 * own model (Pi's scripted faux model here) turns a captured source into
 * pages, part by part, in a context of its own. The faux model answers the
 * main agent and the sub-agent from one queue, in order, so each test scripts
 * the main call, then the sub-agent's turns, then the main agent's last word.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  fauxAssistantMessage,
  fauxToolCall,
  getCurrentSystemPrompt,
  type Message,
  type ToolCall,
} from "@earendil-works/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { PART_CHARS } from "../extensions/llm-wiki/lib/writing/split-parts.ts";
import type { IngestSubagentResult } from "../extensions/llm-wiki/pi/ingest-subagent.ts";
import { SUBAGENT_LIMITS } from "../extensions/llm-wiki/pi/ingest-subagent.ts";
import { type PiHarness, piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { makeTempVault, pageText, type TempVault } from "./helpers/temp-vault.ts";

/** A phrase only the source's body holds, past the lines its skeleton page quotes. */
const MARKER = "zebra-queue-7731";
const PROMPT = "ingest the captured source";
const INGESTED_REPLY = "The source is in the wiki now.";

let vault: TempVault;
const fixture = piPerTest("llm-wiki-ingest-");
const pi = (): Promise<PiHarness> => fixture.start();

beforeEach(() => {
  vault = makeTempVault({ root: fixture.dirs.project });
});

interface Captured {
  id: string;
  page: string;
  /** The packet's text as stored: what the parts must add up to. */
  text: string;
  parts: number;
}

/** Captures `text` through the service, as `wiki_capture_source` would. */
async function capture(title: string, text: string): Promise<Captured> {
  const service = createWikiService({ cwd: fixture.dirs.project });
  try {
    const result = await service.captureSource({ title, text });
    expect(result.ok).toBe(true);
    const id = result.id ?? "";
    const step = service.ingest({ source: id });
    return {
      id,
      page: result.page ?? "",
      text: readFileSync(join(vault.paths.raw, "sources", id, "source.md"), "utf8"),
      parts: step.part?.count ?? 0,
    };
  } finally {
    await service.close();
  }
}

function backpressureText(): string {
  const lead = Array.from(
    { length: 14 },
    (_, i) => `Line ${i + 1} of the introduction to flow control.`,
  );
  return [
    "# Backpressure notes",
    "",
    ...lead,
    "",
    `A bounded queue protects slow consumers; the ${MARKER} variant drops the oldest item.`,
    "",
  ].join("\n");
}

const write = (title: string, content: string, type = "concept"): ToolCall =>
  fauxToolCall("wiki_ensure_page", { type, title, content, description: `About ${title}` });

/** The wiki_ingest result the main session received. */
function ingestResult(harness: PiHarness) {
  const results = toolResults(harness.session);
  const result = results.find((r) => r.toolName === "wiki_ingest");
  expect(result).toBeDefined();
  const details: unknown = result?.details;
  return { isError: result?.isError === true, text: result ? textOf(result) : "", details };
}

/** The result of a sub-agent pass (and not of a hand-off). */
function passResult(harness: PiHarness) {
  const { details, ...rest } = ingestResult(harness);
  expect(details).toMatchObject({ mode: "subagent" });
  return { ...rest, details: details as IngestSubagentResult };
}

/** The text of a tool's progress update. */
function updateText(partial: unknown): string {
  const content = (partial as { content?: Array<{ text?: unknown }> } | undefined)?.content;
  const text = content?.[0]?.text;
  return typeof text === "string" ? text : "";
}

const sourceStatus = (page: string) => /^status: (\w+)$/m.exec(vault.readPage(page))?.[1] ?? "none";

const allText = (request: Message[]) => request.map(textOf).join("\n");

/** The text between a request's `<source-text>` tags. */
function sourceTextOf(request: Message[]): string {
  const match = /<source-text [^>]*>\n([\s\S]*)\n<\/source-text>/.exec(allText(request));
  return match?.[1] ?? "";
}

describe("wiki_ingest: the sub-agent pass", () => {
  it("turns a captured source into pages that cite it, marks it ingested and lists the pages", async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script(
      [fauxToolCall("wiki_ingest", { source: source.id })],
      [
        write("Bounded queue", "A bounded queue protects slow consumers."),
        write("Oldest-drop policy", `The ${MARKER} variant drops the oldest item.`),
      ],
      "Part 1 is about bounded queues; I wrote two concept pages.",
      INGESTED_REPLY,
    );
    await harness.session.prompt(PROMPT);

    const { isError, text, details } = passResult(harness);
    expect(isError).toBe(false);
    expect(details).toMatchObject({
      ok: true,
      mode: "subagent",
      source: { sourceId: source.id, page: source.page },
      partCount: 1,
      parts: [{ index: 1, outcome: "done", created: 2, conflicts: 0 }],
      conflicts: [],
      marked: { page: source.page, changed: true },
    });
    expect(details.created.map((p) => p.id)).toEqual([
      "concepts/bounded-queue",
      "concepts/oldest-drop-policy",
    ]);
    for (const page of details.created) {
      const written = vault.readPage(page.id);
      // The tool cites the source whatever the model wrote: in the frontmatter and as a link.
      expect(written).toContain(source.id);
      expect(written).toContain(`[[${source.page}]]`);
      expect(text).toContain(`created ${page.id} (.llm-wiki/${page.path})`);
    }
    expect(vault.readPage("concepts/bounded-queue")).toContain(
      "A bounded queue protects slow consumers.",
    );
    expect(sourceStatus(source.page)).toBe("ingested");
    expect(text).toContain(`marked  ${source.page} ingested`);
    expect(text).toContain("note    part 1: Part 1 is about bounded queues");
    expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(textOf(harness.session.messages.at(-1) as Message)).toBe(INGESTED_REPLY);
  });

  it("keeps the sub-agent's context apart: the main session never sees the source's text", async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script(
      [fauxToolCall("wiki_ingest", {})],
      [write("Bounded queue", "A bounded queue protects slow consumers.")],
      "Wrote one page.",
      INGESTED_REPLY,
    );
    await harness.session.prompt(PROMPT);

    expect(harness.requests).toHaveLength(4);
    const [mainFirst, subFirst, subSecond, mainLast] = harness.requests as [
      Message[],
      Message[],
      Message[],
      Message[],
    ];
    // The main agent's requests: its own prompt and tool result, never the source's body.
    for (const request of [mainFirst, mainLast]) {
      expect(allText(request)).toContain(PROMPT);
      expect(allText(request)).not.toContain(MARKER);
    }
    expect(allText(mainLast)).toContain("created concepts/bounded-queue");
    // The sub-agent's request: its own system prompt with the page schema, and the part.
    const subPrompt = getCurrentSystemPrompt(subFirst) ?? "";
    expect(subPrompt).toContain("You turn one captured source into llm-wiki pages");
    expect(subPrompt).toContain("Page schema");
    expect(subPrompt).toContain(source.id);
    expect(subPrompt).not.toBe(getCurrentSystemPrompt(mainFirst));
    expect(sourceTextOf(subFirst)).toBe(source.text);
    expect(allText(subFirst)).toContain(`part 1 of 1`);
    // Nothing of the main conversation leaks into the sub-agent's either.
    expect(allText(subFirst)).not.toContain(PROMPT);
    expect(subSecond.filter((m) => m.role === "toolResult").map(textOf)).toEqual([
      expect.stringContaining("created concepts/bounded-queue"),
    ]);
    // Only the wiki_ingest call and its result are in the main session's history.
    expect(toolResults(harness.session).map((r) => r.toolName)).toEqual(["wiki_ingest"]);
  });

  it("runs every part of a long source, in order, each in a fresh context", async () => {
    const paragraphs = Array.from(
      { length: 90 },
      (_, i) =>
        `Paragraph ${String(i + 1).padStart(3, "0")}: ${"flow control keeps producers in step with consumers. ".repeat(7)}`,
    );
    const long = `# Flow control\n\n${paragraphs.join("\n\n")}\n`;
    expect(long.length).toBeGreaterThan(2 * PART_CHARS);
    const source = await capture("Flow control", long);
    expect(source.parts).toBeGreaterThanOrEqual(3);

    const harness = await pi();
    const perPart = Array.from({ length: source.parts }, (_, i) => [
      [write(`Flow control idea ${i + 1}`, `Idea from part ${i + 1}.`)],
      `Part ${i + 1} done.`,
    ]).flat();
    harness.script(
      [fauxToolCall("wiki_ingest", { source: source.id })],
      ...perPart,
      INGESTED_REPLY,
    );
    const progress: string[] = [];
    harness.session.subscribe((event) => {
      if (event.type === "tool_execution_update") progress.push(updateText(event.partialResult));
    });
    await harness.session.prompt(PROMPT);

    const { details } = passResult(harness);
    expect(details.ok).toBe(true);
    expect(details.parts.map((p) => [p.index, p.outcome])).toEqual(
      Array.from({ length: source.parts }, (_, i) => [i + 1, "done"]),
    );
    expect(details.created.map((p) => p.part)).toEqual(
      Array.from({ length: source.parts }, (_, i) => i + 1),
    );
    expect(details.marked?.changed).toBe(true);

    // Each part's first request starts a new context holding that part alone, in order.
    const partRequests = harness.requests.filter(
      (r) => allText(r).includes("<source-text") && r.every((m) => m.role !== "assistant"),
    );
    expect(partRequests).toHaveLength(source.parts);
    partRequests.forEach((request, i) => {
      expect(allText(request)).toContain(`part="${i + 1}" of="${source.parts}"`);
      // One part only: its own text, no other part's.
      expect(allText(request).match(/<source-text /g)).toHaveLength(1);
    });
    // Per part: the part's request, then the one after its write; then the main agent's reply.
    expect(harness.requests).toHaveLength(2 + 2 * source.parts);
    // Nothing cut, nothing repeated: the parts put together are exactly the stored text.
    expect(partRequests.map(sourceTextOf).join("")).toBe(source.text);
    // Progress streams as each part starts and as each page is written.
    expect(progress).toEqual(
      Array.from({ length: source.parts }, (_, i) => [
        `ingesting ${source.id}: part ${i + 1} of ${source.parts} · ${i} page(s) written`,
        `ingesting ${source.id}: part ${i + 1} of ${source.parts} · ${i + 1} page(s) written`,
      ]).flat(),
    );
    // A later part is told what earlier parts wrote, so it links instead of rewriting.
    expect(allText(partRequests[1] ?? [])).toContain("[[concepts/flow-control-idea-1]]");
  });

  it("reports a title that exists as a conflict and overwrites nothing", async () => {
    const existing = pageText(
      { type: "concept", title: "Backpressure" },
      "# Backpressure\n\nWritten by a person.\n",
    );
    vault.writePage("concepts/backpressure", existing);
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script(
      [fauxToolCall("wiki_ingest", { source: source.id })],
      [
        write("Backpressure", "Rewritten by the sub-agent."),
        write("Bounded queue", "A bounded queue protects slow consumers."),
      ],
      "One page existed; linked it.",
      INGESTED_REPLY,
    );
    await harness.session.prompt(PROMPT);

    expect(vault.readPage("concepts/backpressure")).toBe(existing);
    const { text, details } = passResult(harness);
    expect(details.conflicts).toEqual([
      {
        id: "concepts/backpressure",
        path: "wiki/concepts/backpressure.md",
        title: "Backpressure",
        part: 1,
      },
    ]);
    expect(details.created.map((p) => p.id)).toEqual(["concepts/bounded-queue"]);
    expect(text).toContain("exists  concepts/backpressure");
    expect(text).toContain("nothing overwritten");
    // The sub-agent was told, with the link to use instead.
    const toldSubagent = allText(harness.requests[2] ?? []);
    expect(toldSubagent).toContain("Link it as [[concepts/backpressure]]");
  });

  it("leaves the source a skeleton, with a warning, when the sub-agent writes nothing", async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script(
      [fauxToolCall("wiki_ingest", { source: source.id })],
      "Nothing here is worth a page.",
      INGESTED_REPLY,
    );
    await harness.session.prompt(PROMPT);

    const { isError, text, details } = passResult(harness);
    expect(isError).toBe(false);
    expect(details.created).toEqual([]);
    expect(details.marked).toBeUndefined();
    expect(details.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["ingest_nothing_written", "warning"],
    ]);
    expect(text).toContain("pages   none written");
    expect(text).toContain(`"mode":"handoff"`);
    expect(sourceStatus(source.page)).toBe("skeleton");
  });

  it("stops at a model error with a diagnostic; the source stays a skeleton", async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script([fauxToolCall("wiki_ingest", { source: source.id })]);
    harness.faux.appendResponses([
      fauxAssistantMessage("", { stopReason: "error", errorMessage: "provider overloaded" }),
    ]);
    harness.script(INGESTED_REPLY);
    await harness.session.prompt(PROMPT);

    const { isError, details } = passResult(harness);
    expect(isError).toBe(true);
    expect(details).toMatchObject({ ok: false, parts: [{ index: 1, outcome: "model_error" }] });
    expect(details.marked).toBeUndefined();
    const [stop] = details.diagnostics;
    expect(stop).toMatchObject({ code: "ingest_model_error", severity: "error" });
    expect(stop?.message).toContain("provider overloaded");
    expect(stop?.repair).toContain(`"mode":"handoff"`);
    expect(sourceStatus(source.page)).toBe("skeleton");
    // The main agent still got its turn after the failed tool.
    expect(textOf(harness.session.messages.at(-1) as Message)).toBe(INGESTED_REPLY);
  });

  it("stops a sub-agent that is still calling tools at the turn limit, keeping what it wrote", async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    const searches = Array.from({ length: SUBAGENT_LIMITS.maxTurns - 1 }, () => [
      fauxToolCall("wiki_search", { query: "queue" }),
    ]);
    harness.script(
      [fauxToolCall("wiki_ingest", { source: source.id })],
      [write("Bounded queue", "A bounded queue protects slow consumers.")],
      ...searches,
      INGESTED_REPLY,
    );
    await harness.session.prompt(PROMPT);

    // Exactly maxTurns sub-agent requests, then the main agent's reply: no request past the limit.
    expect(harness.requests).toHaveLength(SUBAGENT_LIMITS.maxTurns + 2);
    expect(textOf(harness.session.messages.at(-1) as Message)).toBe(INGESTED_REPLY);
    const { isError, details } = passResult(harness);
    expect(isError).toBe(true);
    expect(details.parts).toEqual([
      {
        index: 1,
        outcome: "turn_limit",
        turns: SUBAGENT_LIMITS.maxTurns,
        created: 1,
        conflicts: 0,
      },
    ]);
    expect(details.diagnostics.map((d) => d.code)).toEqual(["ingest_turn_limit"]);
    expect(vault.readPage("concepts/bounded-queue")).toContain(source.id);
    expect(sourceStatus(source.page)).toBe("skeleton");
  });

  it("aborts the sub-agent when the tool is cancelled; nothing is written or marked", async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script([fauxToolCall("wiki_ingest", { source: source.id })]);
    let subagentSignal: AbortSignal | undefined;
    harness.faux.appendResponses([
      async (_context, options) => {
        subagentSignal = options?.signal;
        // The person presses Escape while the sub-agent is thinking.
        void harness.session.abort();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return fauxAssistantMessage([write("Bounded queue", "Never written.")], {
          stopReason: "toolUse",
        });
      },
    ]);
    await harness.session.prompt(PROMPT);
    await harness.session.waitForIdle();

    expect(subagentSignal?.aborted).toBe(true);
    const { isError, details } = passResult(harness);
    expect(isError).toBe(true);
    expect(details.parts).toMatchObject([{ index: 1, outcome: "aborted", created: 0 }]);
    expect(details.diagnostics.map((d) => d.code)).toEqual(["ingest_aborted"]);
    expect(() => vault.readPage("concepts/bounded-queue")).toThrow();
    expect(sourceStatus(source.page)).toBe("skeleton");
  });
});

describe("wiki_ingest: the hand-off", () => {
  it('with mode "handoff" returns the text and the schema, as the service does', async () => {
    const source = await capture("Backpressure notes", backpressureText());
    const service = createWikiService({ cwd: fixture.dirs.project });
    const expected = service.ingest({ source: source.id });
    await service.close();

    const harness = await pi();
    harness.script(
      [fauxToolCall("wiki_ingest", { source: source.id, mode: "handoff" })],
      "I will write the pages.",
    );
    await harness.session.prompt(PROMPT);

    const { isError, text, details } = ingestResult(harness);
    expect(isError).toBe(false);
    expect(JSON.parse(JSON.stringify(details))).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(text).toContain(`<source-text source="${source.id}" part="1" of="1">`);
    expect(text).toContain(MARKER);
    expect(text).toContain("Page schema");
    // Handed off, the text is the main agent's to read; nothing was written or marked.
    expect(allText(harness.requests.at(-1) ?? [])).toContain(MARKER);
    expect(harness.requests).toHaveLength(2);
    expect(sourceStatus(source.page)).toBe("skeleton");
  });

  it('hands off by default when the settings say "ingestSubagent": false', async () => {
    writeFileSync(
      join(fixture.dirs.agentDir, "settings.json"),
      `${JSON.stringify({ "llm-wiki": { ingestSubagent: false } })}\n`,
    );
    const source = await capture("Backpressure notes", backpressureText());
    const harness = await pi();
    harness.script(
      [fauxToolCall("wiki_ingest", {})],
      [fauxToolCall("wiki_ingest", { mode: "subagent" })],
      "ok",
    );
    await harness.session.prompt(PROMPT);

    const [handedOff, refused] = toolResults(harness.session);
    expect(handedOff && textOf(handedOff)).toContain(MARKER);
    expect(refused?.isError).toBe(true);
    expect(refused && textOf(refused)).toContain('"ingestSubagent": false');
    expect(harness.requests).toHaveLength(3);
    expect(sourceStatus(source.page)).toBe("skeleton");
  });
});
