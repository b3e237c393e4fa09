/**
 * A time window costs what the question asks for, not the vault: "how did
 * X change since March" dates the pages the search found, and a named event
 * ("since the Q2 offsite") is found through the name table, so neither walks
 * every page (at 100k pages that walk was seconds on every such prompt).
 * A date read one page at a time is the date the whole-vault reading gives.
 * Titles, topics and dates are drawn afresh each run.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { IndexStatus } from "../extensions/llm-wiki/lib/index/index-state.ts";
import { matchNames } from "../extensions/llm-wiki/lib/name-match.ts";
import type { RetrievalVault } from "../extensions/llm-wiki/lib/retrieval/retrieval-types.ts";
import { pageDates } from "../extensions/llm-wiki/lib/temporal/page-dates.ts";
import { recallWindow } from "../extensions/llm-wiki/lib/temporal/recall-window.ts";
import type { PageMeta } from "../extensions/llm-wiki/lib/vault/page.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const NOW = new Date("2026-06-17T09:30:00Z");

/** Pages by id that count every walk over them (a lookup by id is not a walk). */
class WatchedPages extends Map<string, PageMeta> {
  walks = 0;
  override [Symbol.iterator]() {
    this.walks += 1;
    return super[Symbol.iterator]();
  }
  override entries() {
    this.walks += 1;
    return super.entries();
  }
  override keys() {
    this.walks += 1;
    return super.keys();
  }
  override values() {
    this.walks += 1;
    return super.values();
  }
  override forEach(...args: Parameters<Map<string, PageMeta>["forEach"]>) {
    this.walks += 1;
    super.forEach(...args);
  }
}

function datedVault() {
  const topic = randomWord(7, 10);
  const offsite = `${randomWord(5, 8)} offsite`;
  const pages: Record<string, string> = {
    "sources/offsite": pageText(
      { type: "source", title: offsite, date: "2026-04-02" },
      "\nWe met.\n",
    ),
  };
  for (let i = 0; i < 30; i += 1) {
    const month = String(1 + Math.floor(Math.random() * 5)).padStart(2, "0");
    const day = String(1 + Math.floor(Math.random() * 27)).padStart(2, "0");
    const fields: Record<string, string> = {
      type: "concept",
      title: `${randomWord(5, 9)} ${randomWord(5, 9)}`,
    };
    // Some pages carry their own date; the others are dated by the event log or not at all.
    if (i % 3 !== 0) fields.created = `2026-${month}-${day}`;
    pages[`concepts/c${i}`] = pageText(
      fields,
      `\nNotes on ${i % 2 === 0 ? topic : randomWord(6, 9)}.\n`,
    );
  }
  const vault = makeTempVault({ pages });
  const service = serviceFor(vault.root);
  const registry = service.registry(vault.paths).pages;
  const watched = new WatchedPages(registry);
  // The name table is built once per set of names (and kept on disk by the
  // registry); recall's name matching builds it before any time window.
  matchNames(watched, "anything");
  watched.walks = 0;
  const status: IndexStatus = {
    state: "ready",
    documents: registry.size,
    canonical: registry.size,
    evidence: 0,
    pending: 0,
    needsEmbedding: 0,
    vectors: { present: false },
    diagnostics: [],
  };
  const retrieval: RetrievalVault = {
    kind: "project",
    status,
    store: async () => undefined,
    pages: watched,
  };
  return { vault, topic, offsite, watched, retrieval, registry };
}

describe("the time window of a question with a subject", () => {
  it("dates the pages asked about without walking every page", () => {
    const { vault, topic, watched, retrieval, registry } = datedVault();
    const timed = recallWindow({ query: `how did ${topic} change since march`, now: NOW }, [
      { vault: retrieval, paths: vault.paths },
    ]);
    expect(timed.ok && timed.window?.since).toBe("2026-03-01");
    if (!timed.ok) return;
    const dates = timed.vaults[0]?.dates;
    expect(dates).toBeDefined();
    const whole = pageDates(vault.paths, registry);
    // A page at a time gives the same date as the whole vault's reading.
    for (const id of registry.keys()) expect(dates?.get(id), id).toEqual(whole.get(id));
    expect(watched.walks).toBe(0);
  });

  it("finds a named event's date through the names, not a walk", () => {
    const { vault, topic, offsite, watched, retrieval } = datedVault();
    const timed = recallWindow(
      { query: `what changed in ${topic} since the ${offsite.toUpperCase()}`, now: NOW },
      [{ vault: retrieval, paths: vault.paths }],
    );
    expect(timed.ok && timed.window?.anchor).toBe("sources/offsite");
    expect(timed.ok && timed.window?.since).toBe("2026-04-02");
    expect(watched.walks).toBe(0);
    // An ordinary page's title after "since" is no event: no window, still no walk.
    const card = [...retrieval.pages.values()].find((p) => p.type === "concept");
    watched.walks = 0;
    const plain = recallWindow({ query: `errors since ${card?.title}`, now: NOW }, [
      { vault: retrieval, paths: vault.paths },
    ]);
    expect(plain.ok && plain.window).toBeUndefined();
    expect(watched.walks).toBe(0);
  });
});
