/**
 * The feedback projection over a vault's life: its cache is only a cache
 * (deleting it and replaying the log gives exactly the state kept up to
 * date line by line), and it is seen through the registry — a deleted page
 * has no feedback, a deleted correction page takes its correction with it,
 * and a page created again under an old id does not inherit the old page's
 * feedback. Real files: the event log, correction pages, the cache.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeCorrection } from "../extensions/llm-wiki/lib/feedback/correction.ts";
import {
  appendFeedback,
  FEEDBACK_ACTIONS,
  type FeedbackAction,
  INDEX_VERSION,
  queryHash,
} from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import { loadProjection, projectionFile } from "../extensions/llm-wiki/lib/feedback/projection.ts";
import { createVaultFeedback } from "../extensions/llm-wiki/lib/feedback/vault-feedback.ts";
import type { PageMeta } from "../extensions/llm-wiki/lib/vault/page.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 1);

/** A registry entry for `id`, created on `created` (YYYY-MM-DD) when given. */
function meta(id: string, created?: string): PageMeta {
  return {
    id,
    path: `wiki/${id}.md`,
    type: "concept",
    role: "canonical",
    title: id,
    aliases: [],
    tags: [],
    sources: [],
    recallTriggers: [],
    ...(created ? { created } : {}),
  };
}

const registryOf = (...pages: PageMeta[]) => ({ pages: new Map(pages.map((p) => [p.id, p])) });

/** Logs one feedback event for `page` at `at`. */
function logEvent(
  paths: ReturnType<typeof makeTempVault>["paths"],
  page: string,
  action: FeedbackAction,
  at: number,
  extra: { query?: string; rank?: number; observation?: string } = {},
): void {
  appendFeedback(
    paths,
    [
      {
        vault_id: "v",
        page,
        query_hash: queryHash(extra.query ?? "the question"),
        action,
        rank: extra.rank ?? 1,
        mode: "lexical",
        index_version: INDEX_VERSION,
        ...(extra.observation ? { observation: extra.observation } : {}),
      },
    ],
    new Date(at),
  );
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("the projection's cache", () => {
  it("loses nothing when deleted: a replay of the log equals the state kept up to date incrementally", () => {
    const vault = makeTempVault();
    const pages = Array.from({ length: 6 }, () => `concepts/${randomWord()}`);
    const queries = Array.from({ length: 3 }, () => randomWords(4));
    const pick = <T>(items: readonly T[]): T =>
      items[Math.floor(Math.random() * items.length)] as T;
    let incremental = loadProjection(vault.paths);
    // Batches of random events over 200 days, the projection brought up to date after each.
    for (let batch = 0; batch < 8; batch += 1) {
      for (let i = 0; i < 1 + Math.floor(Math.random() * 30); i += 1) {
        logEvent(
          vault.paths,
          pick(pages),
          pick(FEEDBACK_ACTIONS),
          NOW - Math.random() * 200 * DAY,
          {
            query: pick(queries),
            rank: 1 + Math.floor(Math.random() * 10),
          },
        );
      }
      // Now and then another process starts from the cache on disk instead of memory.
      incremental = loadProjection(
        vault.paths,
        Math.random() < 0.3 ? {} : { current: incremental },
      );
    }
    const kept = structuredClone(incremental.snapshot());
    expect(Object.keys(kept.pages).length).toBeGreaterThan(0);
    // Absent when every load extended the projection in memory (no save was due).
    rmSync(projectionFile(vault.paths), { force: true });
    const replayed = loadProjection(vault.paths);
    expect(replayed.snapshot()).toEqual(kept);
    for (const page of pages) {
      for (const q of [undefined, ...queries.map(queryHash)]) {
        expect(replayed.adjustment(page, q, NOW)).toBe(incremental.adjustment(page, q, NOW));
      }
    }
    // And it was written again, for the next reader.
    expect(existsSync(projectionFile(vault.paths))).toBe(true);
  });
});

describe("feedback seen through the registry", () => {
  it("gives a page that no longer exists no feedback, and the same page again once it exists", () => {
    const vault = makeTempVault();
    const page = `concepts/${randomWord()}`;
    for (let i = 0; i < 3; i += 1) logEvent(vault.paths, page, "cited", NOW - DAY, { rank: 3 });
    const feedback = createVaultFeedback(vault.paths);
    const present = feedback.projection(registryOf(meta(page)));
    const adj = present.adjustment(page, undefined, NOW);
    expect(adj).toBeGreaterThan(0);
    expect(present.pages()).toEqual([page]);
    const deleted = feedback.projection(registryOf(meta("concepts/other")));
    expect(deleted.adjustment(page, undefined, NOW)).toBe(0);
    expect(deleted.pages()).toEqual([]);
    // Restored as it was (same created date): its history is its own.
    expect(feedback.projection(registryOf(meta(page))).adjustment(page, undefined, NOW)).toBe(adj);
  });

  it("drops a correction whose correction page was deleted, and counts it from the page even with no event", () => {
    const vault = makeTempVault();
    const corrected = meta(`concepts/${randomWord()}`);
    const question = randomWords(5);
    const written = writeCorrection(
      vault.paths,
      {
        corrected,
        correction: `Wrong page: ${randomWords(6)}.`,
        vaultId: "v",
        queryHash: queryHash(question),
      },
      new Date(NOW - DAY),
    );
    const observation = written.id ?? "";
    logEvent(vault.paths, corrected.id, "corrected", NOW - DAY, { query: question, observation });
    const correctionPage = meta(observation);
    const feedback = createVaultFeedback(vault.paths);
    const withPage = feedback.projection(registryOf(corrected, correctionPage));
    const adj = withPage.adjustment(corrected.id, queryHash(question), NOW);
    expect(adj).toBeLessThan(0);
    // Counted once: the event and the page are one correction.
    rmSync(vault.paths.events);
    const pageOnly = createVaultFeedback(vault.paths).projection(
      registryOf(corrected, correctionPage),
    );
    expect(pageOnly.adjustment(corrected.id, queryHash(question), NOW)).toBe(adj);
    // Below the bound too (for other queries), where counting it twice would show.
    const general = withPage.adjustment(corrected.id, undefined, NOW);
    expect(general).toBeLessThan(0);
    expect(general).toBeGreaterThan(adj);
    expect(pageOnly.adjustment(corrected.id, undefined, NOW)).toBe(general);
    // The user deletes the correction page: the correction is withdrawn, event or not.
    logEvent(vault.paths, corrected.id, "corrected", NOW - DAY, { query: question, observation });
    rmSync(join(vault.paths.wiki, (written.path ?? "").replace(/^wiki\//, "")));
    const withdrawn = feedback.projection(registryOf(corrected));
    expect(withdrawn.adjustment(corrected.id, queryHash(question), NOW)).toBe(0);
    expect(withdrawn.pages()).toEqual([]);
  });

  it("starts a page created again under an old id without the old page's feedback, but with its own", () => {
    const vault = makeTempVault();
    const id = `concepts/${randomWord()}`;
    const oldDays = 30 + Math.floor(Math.random() * 60);
    for (let i = 0; i < 4; i += 1) logEvent(vault.paths, id, "relevant", NOW - oldDays * DAY);
    const feedback = createVaultFeedback(vault.paths);
    const original = meta(id, day(NOW - 200 * DAY));
    expect(
      feedback.projection(registryOf(original)).adjustment(id, undefined, NOW),
    ).toBeGreaterThan(0);
    // Deleted, then a different page written under the same id ten days ago.
    const recreated = meta(id, day(NOW - 10 * DAY));
    expect(feedback.projection(registryOf(recreated)).adjustment(id, undefined, NOW)).toBe(0);
    // A fresh process (from the cache on disk) sees the same.
    expect(
      createVaultFeedback(vault.paths)
        .projection(registryOf(recreated))
        .adjustment(id, undefined, NOW),
    ).toBe(0);
    // What the new page earns is its own, exactly as if the log held nothing else.
    logEvent(vault.paths, id, "cited", NOW - 2 * DAY, { rank: 2 });
    const earned = feedback.projection(registryOf(recreated)).adjustment(id, undefined, NOW);
    const alone = makeTempVault();
    logEvent(alone.paths, id, "cited", NOW - 2 * DAY, { rank: 2 });
    expect(earned).toBeGreaterThan(0);
    expect(earned).toBe(
      createVaultFeedback(alone.paths)
        .projection(registryOf(recreated))
        .adjustment(id, undefined, NOW),
    );
  });

  it("keeps the feedback of a page shown on the day it was created, whatever the writer's time zone", () => {
    const vault = makeTempVault();
    // Created "tomorrow" in a zone ahead of UTC, shown a few hours later (still today in UTC).
    const shownAt = NOW + 10 * 3_600_000;
    logEvent(vault.paths, "concepts/today", "cited", shownAt);
    const page = meta("concepts/today", day(NOW + DAY));
    const adj = createVaultFeedback(vault.paths)
      .projection(registryOf(page))
      .adjustment("concepts/today", undefined, shownAt);
    expect(adj).toBeGreaterThan(0);
  });
});
