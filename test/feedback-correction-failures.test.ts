/**
 * A correction's failure rules (the design's Feedback section), through
 * the service on a real vault with a real index: the readable correction
 * page is written first; if it cannot be, nothing is written — no page, no
 * event, no effect on ranking; if the event log then cannot be appended to,
 * the page stands, the result says `correction_saved_feedback_pending`, the
 * correction already counts (from its page), and the same call retried logs
 * its event once — a retried call never writes a second page or event.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FeedbackSession } from "../extensions/llm-wiki/lib/feedback/feedback-session.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const settings = { ...DEFAULT_SETTINGS, includePersonal: false, feedbackRanking: true };

interface Setup {
  vault: TempVault;
  service: WikiService;
  session: FeedbackSession;
  query: string;
  page: string;
}

/** A vault whose only page about two random words is recalled and shown to a fresh session. */
async function shownPage(): Promise<Setup> {
  const a = randomWord(8, 12);
  const b = randomWord(8, 12);
  const page = `concepts/${randomWord(6, 9)}`;
  const pages: Record<string, string> = {
    [page]: pageText(
      { title: `Handling ${a}`, type: "concept" },
      `# Handling ${a}\n\nThe ${a} pipeline retries twice before the ${b} stage gives up.\n`,
    ),
  };
  for (let i = 0; i < 5; i += 1) {
    const w = randomWord(6, 9);
    pages[`concepts/filler-${i}-${w}`] = pageText(
      { title: `Filler ${w}`, type: "concept" },
      `# Filler ${w}\n\nNotes on ${w}, deployment and logging.\n`,
    );
  }
  const vault = makeTempVault({ pages });
  const service = serviceFor(vault.root, { settings });
  await service.reindex({});
  const query = `how does the ${a} pipeline handle the ${b} stage`;
  const result = await service.recall({ query });
  expect(result.results[0]?.id).toBe(page);
  const session = service.feedbackSession();
  session.recordShown(result);
  return { vault, service, session, query, page };
}

function corrections(vault: TempVault): string[] {
  const found: string[] = [];
  for (const name of readdirSync(vault.paths.wiki, { recursive: true }) as string[]) {
    if (/(^|\/)rc-[^/]*\.md$/.test(name)) found.push(name);
  }
  return found;
}

const correctedEvents = (vault: TempVault) =>
  readEvents(vault.paths).filter((e) => e.kind === "recall_feedback" && e.action === "corrected");

/** The feedback adjustment recall gives `page` for `query` now (undefined: none). */
async function feedbackOf(setup: Setup): Promise<number | undefined> {
  const again = await setup.service.recall({ query: setup.query });
  return again.results.find((r) => r.id === setup.page)?.feedback;
}

describe("a correction's failure rules", () => {
  it("writes nothing when the correction page cannot be written: no page, no event, no effect", async () => {
    const setup = await shownPage();
    // Where correction pages go is a file: the page cannot be created.
    writeFileSync(join(setup.vault.paths.wiki, "sources"), "not a folder\n");
    const result = await setup.service.recallFeedback(setup.session, {
      page: setup.page,
      judgment: "corrected",
      correction: `Wrong: ${randomWords(6)}.`,
    });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["write_failed", "error"],
    ]);
    expect(result.correction).toBeUndefined();
    expect(corrections(setup.vault)).toEqual([]);
    expect(correctedEvents(setup.vault)).toEqual([]);
    expect(await feedbackOf(setup)).toBeUndefined();
  });

  it("keeps the page when the log cannot be appended to, says correction_saved_feedback_pending, and a retry logs the event once", async () => {
    const setup = await shownPage();
    const log = setup.vault.paths.events;
    const saved = readFileSync(log);
    // The log is a folder now: every append fails, after the page was written.
    rmSync(log);
    mkdirSync(log);
    const input = {
      page: setup.page,
      judgment: "corrected" as const,
      correction: `Not this page: the ${randomWord()} stage is described elsewhere.`,
    };
    const first = await setup.service.recallFeedback(setup.session, input);
    expect(first.ok).toBe(true);
    expect(first.correction?.created).toBe(true);
    expect(first.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      ["correction_saved_feedback_pending", "warning", first.correction?.path],
    ]);
    expect(corrections(setup.vault)).toEqual([first.correction?.path.replace(/^wiki\//, "")]);
    const page = readFileSync(
      join(setup.vault.paths.wiki, "..", first.correction?.path ?? ""),
      "utf8",
    );
    expect(page).toContain("category: recall-correction");
    expect(page).toContain(`corrected_page: ${setup.page}`);
    // The correction counts already: from its page, with no event.
    const counted = await feedbackOf(setup);
    expect(counted).toBeLessThan(0);

    // The log is back; the same call again logs the pending event, and writes no second page.
    rmSync(log, { recursive: true });
    writeFileSync(log, saved);
    const retried = await setup.service.recallFeedback(setup.session, input);
    expect(retried.ok).toBe(true);
    expect(retried.correction).toMatchObject({ id: first.correction?.id, created: false });
    expect(retried.diagnostics.some((d) => d.code === "correction_saved_feedback_pending")).toBe(
      false,
    );
    expect(correctedEvents(setup.vault).map((e) => [e.page, e.observation])).toEqual([
      [setup.page, first.correction?.id],
    ]);
    // Event and page are one correction: its effect did not grow.
    expect(await feedbackOf(setup)).toBe(counted);

    // And once more: nothing new.
    await setup.service.recallFeedback(setup.session, input);
    expect(correctedEvents(setup.vault)).toHaveLength(1);
    expect(corrections(setup.vault)).toHaveLength(1);
  });

  it("writes one page and one event for a call retried after it succeeded", async () => {
    const setup = await shownPage();
    const input = {
      page: setup.page,
      judgment: "corrected" as const,
      correction: `Outdated: ${randomWords(5)}.`,
    };
    const first = await setup.service.recallFeedback(setup.session, input);
    expect(first).toMatchObject({ ok: true, correction: { created: true }, diagnostics: [] });
    const counted = await feedbackOf(setup);
    expect(counted).toBeLessThan(0);
    const again = await setup.service.recallFeedback(setup.session, input);
    expect(again.ok).toBe(true);
    expect(again.correction).toMatchObject({ id: first.correction?.id, created: false });
    expect(again.diagnostics.map((d) => d.code)).toEqual(["page_exists"]);
    expect(corrections(setup.vault)).toHaveLength(1);
    expect(correctedEvents(setup.vault)).toHaveLength(1);
    expect(await feedbackOf(setup)).toBe(counted);
  });
});
