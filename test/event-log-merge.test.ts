/**
 * The event log after a git merge: `meta/events.jsonl` merges as a union of
 * lines, so a teammate's events can land before lines a long-running reader
 * already read, in a file git rewrote (often with the inode it just freed).
 * Every incremental reader sees the merged log exactly as a fresh read does:
 * the feedback projection, the timed events behind `recent`, `status` and
 * the digest, and the activity logs; a line a merge brought twice (git's
 * union merge can, across criss-crossed merges) is one event.
 */
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  appendFeedback,
  INDEX_VERSION,
  queryHash,
} from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import { loadProjection } from "../extensions/llm-wiki/lib/feedback/projection.ts";
import { readEventLog } from "../extensions/llm-wiki/lib/temporal/event-log.ts";
import { recentChanges } from "../extensions/llm-wiki/lib/temporal/recent.ts";
import { appendEvent } from "../extensions/llm-wiki/lib/vault/events.ts";
import { readLogEntries } from "../extensions/llm-wiki/lib/views/event-entries.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const NOW = Date.UTC(2026, 11, 1);

function feedback(vault: TempVault, page: string, at: number): void {
  appendFeedback(
    vault.paths,
    [
      {
        vault_id: "v",
        page,
        query_hash: queryHash("the question"),
        action: "cited",
        rank: 1,
        mode: "lexical",
        index_version: INDEX_VERSION,
      },
    ],
    new Date(at),
  );
}

/**
 * The log as a teammate's merge leaves it: the common lines, then theirs,
 * then ours — written in place, so the file keeps its inode and only grows.
 */
function mergeInPlace(vault: TempVault, base: string, ours: string, theirs: string): void {
  writeFileSync(vault.paths.events, base + theirs + ours);
}

describe("readers of a log a merge rewrote", () => {
  it("fold the teammate's lines into the feedback projection as a replay does", () => {
    const vault = makeTempVault();
    const pages = Array.from({ length: 4 }, () => `concepts/${randomWord()}`);
    // Long enough that the bytes before the read point differ from its head.
    for (let i = 0; i < 20; i += 1) feedback(vault, pages[i % 2] as string, NOW - i * 60_000);
    const base = readFileSync(vault.paths.events, "utf8");
    for (let i = 0; i < 5; i += 1) feedback(vault, pages[2] as string, NOW - i * 1000);
    const ours = readFileSync(vault.paths.events, "utf8").slice(base.length);
    const held = loadProjection(vault.paths);
    writeFileSync(vault.paths.events, base);
    for (let i = 0; i < 7; i += 1) feedback(vault, pages[3] as string, NOW - i * 1000);
    const theirs = readFileSync(vault.paths.events, "utf8").slice(base.length);
    mergeInPlace(vault, base, ours, theirs);

    const followed = loadProjection(vault.paths, { current: held });
    const replayed = loadProjection(vault.paths, { rebuild: true });
    expect(followed.snapshot()).toEqual(replayed.snapshot());
    expect(followed.adjustment(pages[3] as string, undefined, NOW)).toBeGreaterThan(0);
  });

  it("count a feedback line a merge brought twice once, when the merge only added lines at the end", () => {
    const vault = makeTempVault();
    const pages = Array.from({ length: 3 }, () => `concepts/${randomWord()}`);
    for (let i = 0; i < 12; i += 1) feedback(vault, pages[i % 2] as string, NOW - i * 60_000);
    const base = readFileSync(vault.paths.events, "utf8");
    feedback(vault, pages[2] as string, NOW - 5000);
    const ours = readFileSync(vault.paths.events, "utf8").slice(base.length);
    const held = loadProjection(vault.paths);
    const once = held.adjustment(pages[2] as string, undefined, NOW);
    // Criss-crossed merges: the teammate's side holds our line too, and git
    // writes the merged file anew with both copies after what was read here.
    unlinkSync(vault.paths.events);
    writeFileSync(vault.paths.events, base + ours + ours);

    const followed = loadProjection(vault.paths, { current: held });
    expect(followed.adjustment(pages[2] as string, undefined, NOW)).toBe(once);
    expect(loadProjection(vault.paths, { rebuild: true }).snapshot()).toEqual(followed.snapshot());
  });

  it("give recent, the timed events and the activity logs every event of both sides once", () => {
    const vault = makeTempVault();
    const day = (n: number) => new Date(NOW - n * 3_600_000);
    const [a, b, c] = [randomWord(), randomWord(), randomWord()];
    appendEvent(vault.paths, { kind: "page_created", id: `concepts/${a}` }, day(5));
    const base = readFileSync(vault.paths.events, "utf8");
    appendEvent(vault.paths, { kind: "page_created", id: `concepts/${b}` }, day(1));
    const ours = readFileSync(vault.paths.events, "utf8").slice(base.length);
    expect(readEventLog(vault.paths).events).toHaveLength(2);
    writeFileSync(vault.paths.events, base);
    appendEvent(vault.paths, { kind: "page_created", id: `concepts/${c}` }, day(3));
    const theirs = readFileSync(vault.paths.events, "utf8").slice(base.length);
    // A line a merge brought twice (both sides had it) is one change.
    mergeInPlace(vault, base, ours, theirs + ours);

    expect(readEventLog(vault.paths).events.map((e) => e.page)).toEqual([
      `concepts/${a}`,
      `concepts/${c}`,
      `concepts/${b}`,
    ]);
    const shown = readLogEntries(vault.paths.events);
    expect(shown.available && shown.entries.map((e) => e.detail.id)).toEqual([
      `concepts/${a}`,
      `concepts/${c}`,
      `concepts/${b}`,
    ]);
    const recent = recentChanges(vault.paths, { now: new Date(NOW) });
    expect(recent.entries.map((e) => e.page)).toEqual([
      `concepts/${b}`,
      `concepts/${c}`,
      `concepts/${a}`,
    ]);
  });
});
