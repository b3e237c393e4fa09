/**
 * Recall feedback in a real Pi session (Pi's own agent loop, `read` tool
 * and extension loader, driven by Pi's scripted faux model) on a copy of the
 * example vault: what automatic recall, priming and `wiki_recall` delivered
 * is logged as `shown` with its rank and the query's hash; a shown page's
 * file read with `read` is `opened`; a shown page the answer names is
 * `cited`; the rest is `shown_only` when the run ends. `wiki_recall_feedback`
 * judges only a page this session was shown; a correction becomes an
 * observation page. The prompt's text is never written under `.llm-wiki/`.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  fauxAssistantMessage,
  fauxToolCall,
  getCurrentSystemPrompt,
  type ToolCall,
} from "@earendil-works/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderedCharsByPage } from "../extensions/llm-wiki/lib/bench/rendered-pages.ts";
import { CORRECTION_CATEGORY } from "../extensions/llm-wiki/lib/feedback/correction.ts";
import {
  FEEDBACK_SCHEMA,
  type FeedbackEvent,
  INDEX_VERSION,
  isFeedbackEvent,
  queryHash,
} from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { type PiHarness, piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const UNRELATED = "write a haiku about autumn leaves";
/** Pages of the example vault that no question here is about. */
const QUIET_PAGES = [
  "skills/release-checklist",
  "requirements/data-retention",
  "concepts/tombstones",
];

type LoggedFeedback = FeedbackEvent & { ts: string };

const pi = piPerTest("llm-wiki-feedback-");

/** A real question about a vault page, made unique by a random last word. */
function question(): { prompt: string; tail: string } {
  const tail = `${randomWord(6, 8)}${randomWord(6, 8)}`;
  return { prompt: `how do we keep the cache consistent ${tail}`, tail };
}

function vaultDir(): string {
  return join(pi.dirs.project, ".llm-wiki");
}

/** Pi's global settings for llm-wiki. */
function settings(values: Record<string, unknown>): void {
  writeFileSync(join(pi.dirs.agentDir, "settings.json"), JSON.stringify({ "llm-wiki": values }));
}

/** Every recall feedback event of the project vault's log, in order. */
function feedbackEvents(): LoggedFeedback[] {
  const log = join(vaultDir(), "meta", "events.jsonl");
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown)
    .filter(isFeedbackEvent);
}

/** What a hidden message of `customType` recorded in the session: its query and page ids, in order. */
function delivered(
  harness: PiHarness,
  customType: "llm-wiki-recall" | "llm-wiki-priming",
): Array<{ query?: string; pages: string[] }> {
  return harness.session.sessionManager.getBranch().flatMap((entry) => {
    if (entry.type !== "custom_message" || entry.customType !== customType) return [];
    const details = entry.details as { query?: string; pages: Array<{ id: string }> };
    const pages = [...new Set(details.pages.map((p) => p.id))];
    return [{ ...(details.query !== undefined ? { query: details.query } : {}), pages }];
  });
}

/** The text of each hidden message of `customType`, as the model received it; page ids by the block's own `id:` lines. */
function blocks(
  harness: PiHarness,
  customType: "llm-wiki-recall" | "llm-wiki-priming",
): Array<{ text: string; pages: string[] }> {
  return harness.session.sessionManager.getBranch().flatMap((entry) => {
    if (entry.type !== "custom_message" || entry.customType !== customType) return [];
    const text =
      typeof entry.content === "string"
        ? entry.content
        : entry.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    return [{ text, pages: [...renderedCharsByPage(text).keys()] }];
  });
}

/** The pages the latest automatic recall delivered. */
function recalled(harness: PiHarness): string[] {
  return delivered(harness, "llm-wiki-recall").at(-1)?.pages ?? [];
}

/**
 * Scripts answers decided when the model is asked (so they can name the
 * pages this very turn's recall showed), recording each request like `script`.
 */
function scriptLazily(harness: PiHarness, ...steps: Array<() => string | ToolCall[]>): void {
  harness.faux.appendResponses(
    steps.map((step) => (context) => {
      harness.requests.push([...context.messages]);
      const answer = step();
      return typeof answer === "string"
        ? fauxAssistantMessage(answer)
        : fauxAssistantMessage(answer, { stopReason: "toolUse" });
    }),
  );
}

/** A tool result's service result. */
function detailsOf<T>(result: { details?: unknown } | undefined): T {
  if (result === undefined) throw new Error("no such tool result");
  return result.details as T;
}

async function ask(harness: PiHarness, prompt: string): Promise<void> {
  await harness.session.prompt(prompt);
  await harness.session.waitForIdle();
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("recall feedback in Pi", () => {
  afterEach(closeServices);
  beforeEach(() => {
    cpSync(EXAMPLE, pi.dirs.project, {
      recursive: true,
      filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
    });
  });

  it("logs what automatic recall and priming showed, with rank and query hash, and shown_only at the end of the turn", async () => {
    const session = await pi.start();
    const { prompt } = question();
    session.script("Noted.");
    await ask(session, prompt);

    const recall = recalled(session);
    const [priming] = delivered(session, "llm-wiki-priming");
    expect(recall).toContain("concepts/cache-invalidation");
    expect(priming?.query).toBeDefined();
    const events = feedbackEvents();
    const shown = (hash: string) =>
      events
        .filter((e) => e.action === "shown" && e.query_hash === hash)
        .map((e) => [e.page, e.rank]);
    // Each delivery is logged in the order it showed its pages, under its own query's hash.
    expect(shown(queryHash(prompt))).toEqual(recall.map((id, i) => [id, i + 1]));
    expect(shown(queryHash(priming?.query ?? ""))).toEqual(
      (priming?.pages ?? []).map((id, i) => [id, i + 1]),
    );
    for (const e of events) expect(e.query_hash).toMatch(/^sha256:[0-9a-f]{64}$/);

    // Nothing was read or named: every shown page ends the turn shown_only, after the showings.
    const firstEnd = events.findIndex((e) => e.action === "shown_only");
    expect(events.slice(0, firstEnd).every((e) => e.action === "shown")).toBe(true);
    const showings = events.filter((e) => e.action === "shown");
    const ends = events.filter((e) => e.action === "shown_only");
    expect(ends.map((e) => [e.page, e.rank, e.query_hash]).sort()).toEqual(
      showings.map((e) => [e.page, e.rank, e.query_hash]).sort(),
    );
    expect(events.some((e) => e.action === "opened" || e.action === "cited")).toBe(false);
  });

  it("logs as shown only the pages the delivered block holds, not bundles cut to fit recallMaxChars", async () => {
    const budget = 1_500;
    settings({ recallMaxChars: budget });
    const session = await pi.start();
    const prompt = `what did we decide about cache invalidation and the sync engine offline edits ${randomWord(6, 8)}${randomWord(6, 8)}`;
    session.script("Noted.");
    await ask(session, prompt);
    const [recallBlock] = blocks(session, "llm-wiki-recall");
    const [primingBlock] = blocks(session, "llm-wiki-priming");
    const [priming] = delivered(session, "llm-wiki-priming");
    expect(recallBlock?.text.length).toBeLessThanOrEqual(budget);
    expect(recallBlock?.pages.length).toBeGreaterThan(0);
    expect(primingBlock?.pages.length).toBeGreaterThan(0);

    // What each recall found is more than its block could hold (the same recalls, in full).
    const wide = serviceFor(pi.dirs.project, {
      settings: { ...DEFAULT_SETTINGS, includePersonal: false, recallMaxChars: 100_000 },
    });
    const found = (r: { results: Array<{ id: string }> }) => new Set(r.results.map((x) => x.id));
    const recallFound = found(await wide.recall({ query: prompt, policy: "automatic" }));
    const primingFound = found(await wide.prime({}));
    expect(recallFound.size).toBeGreaterThan(recallBlock?.pages.length ?? 0);
    expect(primingFound.size).toBeGreaterThan(primingBlock?.pages.length ?? 0);

    const events = feedbackEvents();
    const logged = (action: string, hash: string) =>
      events
        .filter((e) => e.action === action && e.query_hash === hash)
        .map((e) => [e.page, e.rank]);
    // Shown: exactly the pages of each block, ranked as the block lists them.
    expect(logged("shown", queryHash(prompt))).toEqual(
      (recallBlock?.pages ?? []).map((id, i) => [id, i + 1]),
    );
    expect(logged("shown", queryHash(priming?.query ?? ""))).toEqual(
      (primingBlock?.pages ?? []).map((id, i) => [id, i + 1]),
    );
    // The turn ends with those pages shown_only, and with nothing said of a page cut.
    const cut = [...recallFound, ...primingFound].filter(
      (id) => !recallBlock?.pages.includes(id) && !primingBlock?.pages.includes(id),
    );
    expect(cut.length).toBeGreaterThan(0);
    for (const id of cut)
      expect(
        events.some((e) => e.page === id),
        id,
      ).toBe(false);
    // The message's details, the session's record of what was shown, agree.
    expect(recalled(session)).toEqual(recallBlock?.pages);
    expect(priming?.pages).toEqual(primingBlock?.pages);
  });

  it("logs every event with its schema, vault id, index version, the recall's mode and a 1-based rank", async () => {
    const session = await pi.start();
    const { prompt } = question();
    session.script("Noted.");
    await ask(session, prompt);
    const config = JSON.parse(readFileSync(join(vaultDir(), "config.json"), "utf8")) as {
      vault_id: string;
    };
    const modes = new Map(
      session.session.sessionManager.getBranch().flatMap((entry) => {
        if (entry.type !== "custom_message") return [];
        const details = entry.details as { modeUsed?: string; query?: string };
        const hash = entry.customType === "llm-wiki-recall" ? queryHash(prompt) : undefined;
        const primed = details.query !== undefined ? queryHash(details.query) : undefined;
        const key = hash ?? primed;
        return key && details.modeUsed ? [[key, details.modeUsed] as const] : [];
      }),
    );
    const raw = readFileSync(join(vaultDir(), "meta", "events.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.includes('"recall_feedback"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(raw.length).toBeGreaterThan(0);
    for (const event of raw) {
      expect(event).toMatchObject({
        kind: "recall_feedback",
        schema: FEEDBACK_SCHEMA,
        visibility: "internal",
        vault_id: config.vault_id,
        index_version: INDEX_VERSION,
      });
      expect(Number.isFinite(Date.parse(String(event.ts)))).toBe(true);
      expect(Number.isInteger(event.rank) && Number(event.rank) >= 1).toBe(true);
      expect(typeof event.mode).toBe("string");
      // The mode the showing recall answered in; a model is named only when vectors took part.
      const mode = modes.get(String(event.query_hash));
      if (mode) expect(event.mode).toBe(mode);
      expect("embed_model" in event).toBe(event.mode !== "lexical");
    }
    expect(modes.get(queryHash(prompt))).toBeDefined();
  });

  it("logs a page the answer names by its bare id as cited, but not an id that only starts like one", async () => {
    settings({ sessionPriming: false });
    const session = await pi.start();
    const { prompt } = question();
    let named = "";
    let lookalike = "";
    scriptLazily(session, () => {
      [named = "", lookalike = ""] = recalled(session);
      return `The cache follows ${named}; compare ${lookalike}-${randomWord()} and ${lookalike}x.`;
    });
    await ask(session, prompt);
    expect(named).not.toBe("");
    expect(lookalike).not.toBe("");
    const cited = feedbackEvents().filter((e) => e.action === "cited");
    expect(cited.map((e) => [e.page, e.query_hash])).toEqual([[named, queryHash(prompt)]]);
    expect(
      feedbackEvents()
        .filter((e) => e.action === "shown_only")
        .map((e) => e.page),
    ).toContain(lookalike);
  });

  it("logs no opened for a page shown only in an earlier turn", async () => {
    settings({ sessionPriming: false });
    const session = await pi.start();
    const { prompt } = question();
    session.script("Noted.");
    await ask(session, prompt);
    const [page = ""] = recalled(session);
    expect(page).not.toBe("");
    const before = feedbackEvents().length;
    // A later turn that recalls nothing reads the page shown the turn before.
    session.script(
      [fauxToolCall("read", { path: `.llm-wiki/wiki/${page}.md` })],
      `See [[${page}]].`,
    );
    await ask(session, UNRELATED);
    expect(toolResults(session.session).every((r) => !r.isError)).toBe(true);
    expect(toolResults(session.session).some((r) => r.toolName === "read")).toBe(true);
    const later = feedbackEvents().slice(before);
    expect(later.filter((e) => e.action === "opened" || e.action === "cited")).toEqual([]);
  });

  it("logs a shown page read with Pi's read tool as opened and a shown page the answer links as cited", async () => {
    settings({ sessionPriming: false });
    const session = await pi.start();
    const { prompt } = question();
    let read = "";
    let linked = "";
    scriptLazily(
      session,
      () => {
        [read = "", linked = ""] = recalled(session);
        return [
          fauxToolCall("read", { path: `.llm-wiki/wiki/${read}.md` }),
          // A page recall did not show: reading it is no signal.
          fauxToolCall("read", { path: `.llm-wiki/wiki/${QUIET_PAGES[0]}.md` }),
        ];
      },
      () => `The cache follows [[${linked}]].`,
    );
    await ask(session, prompt);
    expect(read).not.toBe("");
    expect(linked).not.toBe("");
    expect(toolResults(session.session).every((r) => !r.isError)).toBe(true);

    const hash = queryHash(prompt);
    const first = feedbackEvents().filter((e) => e.action !== "shown");
    expect(first.map((e) => [e.action, e.page, e.query_hash])).toEqual([
      ["opened", read, hash],
      ["cited", linked, hash],
      ...recalled(session)
        .filter((id) => id !== read && id !== linked)
        .map((id) => ["shown_only", id, hash]),
    ]);

    // Next turn, the same page read by its absolute path is opened again; the one not read nor named is shown_only.
    const before = feedbackEvents().length;
    scriptLazily(
      session,
      () => [fauxToolCall("read", { path: join(vaultDir(), "wiki", `${read}.md`) })],
      () => "Nothing else to add.",
    );
    await ask(session, prompt);
    const second = feedbackEvents()
      .slice(before)
      .filter((e) => e.action !== "shown");
    expect(second.map((e) => [e.action, e.page])).toEqual([
      ["opened", read],
      ...recalled(session)
        .filter((id) => id !== read)
        .map((id) => ["shown_only", id]),
    ]);
    // Capture never touches the system prompt.
    expect(new Set(session.requests.map((r) => getCurrentSystemPrompt(r))).size).toBe(1);
  });

  it("records a correction of a shown page as an observation page and a corrected event, and refuses a page never shown", async () => {
    settings({ sessionPriming: false });
    const session = await pi.start();
    const { prompt } = question();
    session.script("Noted.");
    await ask(session, prompt);
    const [page = ""] = recalled(session);
    const shownAt = feedbackEvents().find((e) => e.action === "shown" && e.page === page);
    const never = QUIET_PAGES.find((id) => !feedbackEvents().some((e) => e.page === id)) ?? "";
    expect(never).not.toBe("");
    const before = feedbackEvents().length;
    const correction = `The TTL was dropped; the ${randomWords(2)} entries are keyed by version vectors.`;

    session.script(
      [fauxToolCall("wiki_recall_feedback", { page_id: never, judgment: "irrelevant" })],
      [
        fauxToolCall("wiki_recall_feedback", {
          page_id: page,
          judgment: "corrected",
          correction,
        }),
      ],
      "Recorded.",
    );
    await ask(session, UNRELATED);

    const [refused, accepted] = toolResults(session.session);
    expect(refused).toMatchObject({ toolName: "wiki_recall_feedback", isError: true });
    const refusedCodes = detailsOf<{ diagnostics: Array<{ code: string }> }>(refused).diagnostics;
    expect(refusedCodes.map((d) => d.code)).toEqual(["feedback_not_shown"]);
    expect(accepted).toMatchObject({ toolName: "wiki_recall_feedback", isError: false });
    const written = detailsOf<{ correction?: { id: string; path: string } }>(accepted).correction;
    expect(written?.id).toMatch(/^sources\/rc-/);
    expect(accepted && textOf(accepted)).toContain(`.llm-wiki/${written?.path}`);

    // One correction page: the refused call wrote nothing.
    const pages = readdirSync(join(vaultDir(), "wiki", "sources")).filter((n) =>
      n.startsWith("rc-"),
    );
    expect(pages).toEqual([`${written?.id.slice("sources/".length)}.md`]);
    const parsed = parsePage(
      written?.id ?? "",
      written?.path ?? "",
      readFileSync(join(vaultDir(), written?.path ?? "")),
    );
    if (!parsed.ok) throw new Error("the correction page does not parse");
    expect(parsed.page.frontmatter).toMatchObject({
      category: CORRECTION_CATEGORY,
      corrected_page: page,
      query_hash: queryHash(prompt),
    });
    expect(parsed.page.body).toContain(correction);

    // The judgment's event carries the showing's hash and rank; nothing names the refused page.
    const after = feedbackEvents().slice(before);
    expect(after.map((e) => [e.action, e.page, e.query_hash, e.rank, e.observation])).toEqual([
      ["corrected", page, queryHash(prompt), shownAt?.rank, written?.id],
    ]);
    expect(feedbackEvents().some((e) => e.page === never)).toBe(false);
  });

  it("with recallFeedback off logs no implicit signal, but an explicit judgment still", async () => {
    settings({ recallFeedback: false });
    const session = await pi.start();
    const { prompt } = question();
    let page = "";
    scriptLazily(
      session,
      () => {
        [page = ""] = recalled(session);
        return [fauxToolCall("read", { path: `.llm-wiki/wiki/${page}.md` })];
      },
      () => `See [[${page}]].`,
    );
    await ask(session, prompt);
    // Priming and recall both delivered, the page was read and cited: none of it is logged.
    expect(delivered(session, "llm-wiki-priming")).toHaveLength(1);
    expect(page).not.toBe("");
    expect(feedbackEvents()).toEqual([]);

    session.script(
      [fauxToolCall("wiki_recall_feedback", { page_id: page, judgment: "relevant" })],
      "Recorded.",
    );
    await ask(session, UNRELATED);
    expect(feedbackEvents().map((e) => [e.action, e.page, e.query_hash])).toEqual([
      ["relevant", page, queryHash(prompt)],
    ]);
  });

  it("writes no prompt text anywhere under .llm-wiki/", async () => {
    const session = await pi.start();
    const { prompt, tail } = question();
    // The model's own query is no more stored than the user's.
    const toolTail = `${randomWord(6, 8)}${randomWord(6, 8)}`;
    const toolQuery = `how does the sync engine handle offline edits ${toolTail}`;
    let page = "";
    scriptLazily(
      session,
      () => {
        [page = ""] = recalled(session);
        return [
          fauxToolCall("wiki_recall", { query: toolQuery }),
          fauxToolCall("read", { path: `.llm-wiki/wiki/${page}.md` }),
        ];
      },
      () => [
        fauxToolCall("wiki_recall_feedback", {
          page_id: page,
          judgment: "corrected",
          correction: "The cache is invalidated by version vectors, not a TTL.",
        }),
      ],
      () => `See [[${page}]].`,
    );
    await ask(session, prompt);
    // Every kind of capture wrote something for this prompt…
    const hashes = [queryHash(prompt), queryHash(toolQuery)];
    const actions = new Set(
      feedbackEvents()
        .filter((e) => e.query_hash !== null && hashes.includes(e.query_hash))
        .map((e) => e.action),
    );
    expect([...actions]).toEqual(expect.arrayContaining(["shown", "opened", "cited", "corrected"]));
    expect(toolResults(session.session).every((r) => !r.isError)).toBe(true);
    // wiki_recall's answer is a showing of its own query, ranked as it answered.
    const answered = toolResults(session.session).find((r) => r.toolName === "wiki_recall");
    const ids = [
      ...new Set(detailsOf<{ results: Array<{ id: string }> }>(answered).results.map((r) => r.id)),
    ];
    expect(ids.length).toBeGreaterThan(0);
    const showings = feedbackEvents().filter(
      (e) => e.action === "shown" && e.query_hash === queryHash(toolQuery),
    );
    expect(showings.map((e) => [e.page, e.rank])).toEqual(ids.map((id, i) => [id, i + 1]));
    // …and no file of the vault, the index included, holds the prompt or its random word.
    const files = filesUnder(vaultDir());
    expect(files.some((f) => f.endsWith("events.jsonl"))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const text of [tail, prompt, toolTail, toolQuery]) {
        expect(bytes.includes(text), `${text} in ${relative(pi.dirs.project, file)}`).toBe(false);
      }
    }
  });
});
