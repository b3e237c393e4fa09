/**
 * Several events in one append: a turn's feedback signals reach the log in
 * one write, in order, each line redacted and counted on its own, and a
 * session's shown pages are logged as one batch with one timestamp.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { FeedbackSession } from "../extensions/llm-wiki/lib/feedback/feedback-session.ts";
import type { RecallItem } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { appendEvents } from "../extensions/llm-wiki/lib/vault/events.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { randomWord } from "./helpers/random-text.ts";
import { corpusSeedNote, secretCorpus } from "./helpers/secret-corpus.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

function lines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("appendEvents", () => {
  it("writes every event in order, each redacted and counted on its own line", () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const [secret] = secretCorpus(seed);
    if (!secret) throw new Error("empty corpus");
    const paths = vaultPaths(makeTempDir(), "project");
    const words = Array.from({ length: 5 }, () => randomWord(5, 9));
    const events = words.map((w, i) => ({
      kind: "note",
      detail: i === 2 ? `${w} ${secret.text}` : w,
    }));
    const found = appendEvents(paths, events, new Date(Date.UTC(2026, 11, 1)));
    const logged = lines(paths.events);
    expect(
      logged.map((e) => String(e.detail).split(" ")[0]),
      corpusSeedNote(seed),
    ).toEqual(words);
    expect(readFileSync(paths.events, "utf8")).not.toContain(secret.secret);
    expect(Object.values(found).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    logged.forEach((e, i) => {
      expect(e.ts).toBe("2026-12-01T00:00:00.000Z");
      if (i === 2) expect(e.redactions).toBeDefined();
      else expect(e.redactions).toBeUndefined();
    });
  });

  it("redacts and counts a secret repeated across a batch in every event, as one append per event would", () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const [secret] = secretCorpus(seed);
    if (!secret) throw new Error("empty corpus");
    const when = new Date(Date.UTC(2026, 11, 1));
    // The same value (and key) in every event, beside values that differ: a batch's shape.
    const events = Array.from({ length: 4 }, (_, i) => ({
      kind: "note",
      shared: secret.text,
      [secret.text]: i,
      page: `concepts/${randomWord(5, 9)}`,
    }));
    const batched = vaultPaths(makeTempDir(), "project");
    const single = vaultPaths(makeTempDir(), "project");
    const found = appendEvents(batched, events, when);
    const alone: Record<string, number> = {};
    for (const event of events) {
      for (const [kind, n] of Object.entries(appendEvents(single, [event], when)))
        alone[kind] = (alone[kind] ?? 0) + n;
    }
    expect(readFileSync(batched.events, "utf8"), corpusSeedNote(seed)).not.toContain(secret.secret);
    expect(found).toEqual(alone);
    expect(readFileSync(batched.events, "utf8")).toBe(readFileSync(single.events, "utf8"));
    for (const e of lines(batched.events)) expect(e.redactions).toBeDefined();
  });

  it("writes nothing, not even the folder's log file, for no events", () => {
    const paths = vaultPaths(makeTempDir(), "project");
    expect(appendEvents(paths, [])).toEqual({});
    expect(existsSync(paths.events)).toBe(false);
  });
});

describe("a session's implicit signals", () => {
  it("logs a recall's shown pages together and a turn's unused ones together", () => {
    const paths = vaultPaths(makeTempDir(), "project");
    let clock = Date.UTC(2026, 11, 1);
    const session = new FeedbackSession({
      implicit: true,
      now: () => {
        clock += 1000;
        return new Date(clock);
      },
      vault: (kind) =>
        kind === "project"
          ? { paths, vaultId: "v-test", page: (id) => ({ id, title: id, path: `wiki/${id}.md` }) }
          : undefined,
    });
    const ids = Array.from({ length: 4 }, () => `concepts/${randomWord(5, 9)}`);
    const results = ids.map((id) => ({ id, vault: "project" }) as RecallItem);
    session.recordShown({ query: randomWord(6, 9), results, modeUsed: "lexical" });
    session.recordOpened("project", ids[1] as string);
    session.endTurn();
    const logged = lines(paths.events);
    const shown = logged.filter((e) => e.action === "shown");
    const unused = logged.filter((e) => e.action === "shown_only");
    expect(shown.map((e) => e.page)).toEqual(ids);
    expect(new Set(shown.map((e) => e.ts)).size).toBe(1);
    expect(unused.map((e) => e.page)).toEqual([ids[0], ids[2], ids[3]]);
    expect(new Set(unused.map((e) => e.ts)).size).toBe(1);
    expect(shown[0]?.ts).not.toBe(unused[0]?.ts);
  });
});
