/**
 * Recall feedback's core: the query is hashed and never stored, a session
 * can judge only what it was shown, the projection decays, corrects for
 * position, stays within ±0.02, is rebuilt from the log (and from the
 * correction and resolution pages when the log is gone), and in ranking it
 * reorders what retrieval found without adding or removing a page.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { queryHash } from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import { preferFeedback } from "../extensions/llm-wiki/lib/feedback/feedback-term.ts";
import {
  FEEDBACK_MAX,
  FeedbackProjection,
  loadProjection,
  projectionFile,
  SHOWN_ONLY_FLOOR,
} from "../extensions/llm-wiki/lib/feedback/projection.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 1);

function copyExample(): string {
  const root = makeTempDir();
  cpSync(EXAMPLE, root, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  return root;
}

/** Every file's bytes under `dir`, as one string per file. */
function allFiles(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = join(dir, name);
    if (statSync(file).isFile())
      out.push({ path: name, text: readFileSync(file).toString("latin1") });
  }
  return out;
}

describe("the query hash", () => {
  it("is the same for the same question however spaced or cased, and differs otherwise", () => {
    const q = `How do we ${randomWord()} the cache?`;
    expect(queryHash(q)).toBe(queryHash(`  ${q.toUpperCase()}\n`));
    expect(queryHash(q)).not.toBe(queryHash(`${q} now`));
    expect(queryHash(q)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("the projection", () => {
  const signal = (
    action: "opened" | "cited" | "shown_only" | "relevant",
    rank: number,
    at = NOW,
  ) => ({
    page: "concepts/a",
    queryHash: "sha256:q",
    action,
    rank,
    at,
  });

  it("halves an effect every 90 days", () => {
    const recent = new FeedbackProjection();
    recent.add(signal("cited", 1, NOW));
    const old = new FeedbackProjection();
    old.add(signal("cited", 1, NOW - 90 * DAY));
    const a = recent.adjustment("concepts/a", undefined, NOW);
    expect(a).toBeGreaterThan(0);
    expect(old.adjustment("concepts/a", undefined, NOW)).toBeCloseTo(a / 2, 10);
  });

  it("counts an open far down the list more than one at the top, and silence there less", () => {
    const top = new FeedbackProjection();
    top.add(signal("opened", 1));
    const low = new FeedbackProjection();
    low.add(signal("opened", 5));
    expect(low.adjustment("concepts/a", undefined, NOW)).toBeGreaterThan(
      top.adjustment("concepts/a", undefined, NOW),
    );
    const silentTop = new FeedbackProjection();
    silentTop.add(signal("shown_only", 1));
    const silentLow = new FeedbackProjection();
    silentLow.add(signal("shown_only", 5));
    expect(silentTop.adjustment("concepts/a", undefined, NOW)).toBeLessThan(
      silentLow.adjustment("concepts/a", undefined, NOW),
    );
  });

  it("keeps engagement-only silence above −0.005 and everything within ±0.02", () => {
    const p = new FeedbackProjection();
    for (let i = 0; i < 500; i += 1) p.add(signal("shown_only", 1));
    expect(p.adjustment("concepts/a", undefined, NOW)).toBeCloseTo(SHOWN_ONLY_FLOOR, 10);
    const q = new FeedbackProjection();
    for (let i = 0; i < 50; i += 1) q.add(signal("relevant", 1));
    expect(q.adjustment("concepts/a", "sha256:q", NOW)).toBe(FEEDBACK_MAX);
    expect(q.adjustment("concepts/b", "sha256:q", NOW)).toBe(0);
  });

  it("is rebuilt from the log: cached, extended by new lines, read anew when the log is replaced", () => {
    const root = makeTempDir();
    const paths = vaultPaths(root, "project");
    const event = (page: string, action: string, ts: string) =>
      `${JSON.stringify({ ts, kind: "recall_feedback", schema: 1, visibility: "internal", vault_id: "v", page, query_hash: "sha256:q", action, rank: 2, mode: "lexical", index_version: "x" })}\n`;
    mkdirSync(paths.meta, { recursive: true });
    appendFileSync(paths.events, event("concepts/a", "cited", "2026-11-30T00:00:00Z"));
    appendFileSync(paths.events, "{torn line\n");
    const first = loadProjection(paths);
    const cited = first.adjustment("concepts/a", undefined, NOW);
    expect(cited).toBeGreaterThan(0);
    expect(statSync(projectionFile(paths)).isFile()).toBe(true);
    appendFileSync(paths.events, event("concepts/a", "irrelevant", "2026-11-30T00:00:00Z"));
    const second = loadProjection(paths, { current: first });
    expect(second.adjustment("concepts/a", "sha256:q", NOW)).toBeLessThan(0);
    // A log replaced by another (restored from elsewhere): nothing of the old one remains.
    rmSync(paths.events);
    appendFileSync(paths.events, event("concepts/b", "cited", "2026-11-30T00:00:00Z"));
    const third = loadProjection(paths, { current: second });
    expect(third.adjustment("concepts/a", "sha256:q", NOW)).toBe(0);
    expect(third.adjustment("concepts/b", undefined, NOW)).toBeGreaterThan(0);
  });
});

describe("feedback in ranking", () => {
  it("reorders hits by at most ±2 % and never adds or removes one", () => {
    const p = new FeedbackProjection();
    const hits = Array.from({ length: 12 }, (_, i) => ({
      id: `concepts/p${i}`,
      vault: "project" as const,
      score: 1 - i * 0.001 - Math.random() * 0.0005,
    }));
    for (const h of hits) {
      const action = Math.random() < 0.5 ? "relevant" : "irrelevant";
      p.add({ page: h.id, queryHash: "sha256:q", action, rank: 1, at: NOW });
    }
    p.add({
      page: "concepts/not-a-hit",
      queryHash: "sha256:q",
      action: "relevant",
      rank: 1,
      at: NOW,
    });
    const { hits: moved, adjusted } = preferFeedback(hits, () => p, "sha256:q", NOW);
    expect(new Set(moved.map((h) => h.id))).toEqual(new Set(hits.map((h) => h.id)));
    expect(moved).toHaveLength(hits.length);
    for (const adj of adjusted.values()) expect(Math.abs(adj)).toBeLessThanOrEqual(FEEDBACK_MAX);
    for (let i = 1; i < moved.length; i += 1)
      expect((moved[i - 1]?.score ?? 0) >= (moved[i]?.score ?? 0)).toBe(true);
  });
});

describe("a session's feedback through the service (real vault, real index)", () => {
  const settings = { ...DEFAULT_SETTINGS, feedbackRanking: true };

  it("judges only shown pages, writes the correction page before its event, and never stores the query", async () => {
    const root = copyExample();
    const service = serviceFor(root, { settings });
    await service.reindex({});
    const secretWord = `${randomWord(6, 9)}${randomWord(6, 9)}`;
    const question = `how do we keep the cache consistent ${secretWord}`;
    const result = await service.recall({ query: question });
    const session = service.feedbackSession();
    session.recordShown(result);
    const first = result.results[0];
    if (!first) throw new Error("nothing recalled");
    const refused = await service.recallFeedback(session, {
      page: "concepts/never-shown",
      judgment: "relevant",
    });
    expect(refused.ok).toBe(false);
    expect(refused.diagnostics[0]?.code).toBe("feedback_not_shown");
    const noText = await service.recallFeedback(session, { page: first.id, judgment: "corrected" });
    expect(noText.diagnostics[0]?.code).toBe("feedback_invalid");
    const corrected = await service.recallFeedback(session, {
      page: first.id,
      judgment: "corrected",
      correction: "That page is the old TTL decision; ADR-004 holds now.",
    });
    expect(corrected.ok).toBe(true);
    expect(corrected.correction?.path).toMatch(/^wiki\/sources\/rc-/);
    const page = readFileSync(join(root, ".llm-wiki", corrected.correction?.path ?? ""), "utf8");
    expect(page).toContain("category: recall-correction");
    expect(page).toContain(`corrected_page: ${first.id}`);
    expect(page).toContain(queryHash(question));
    session.endTurn();
    const again = await service.recall({ query: question });
    const item = again.results.find((r) => r.id === first.id);
    expect(item?.feedback).toBeLessThan(0);
    for (const f of allFiles(join(root, ".llm-wiki")))
      expect(f.text.includes(secretWord), `query text in ${f.path}`).toBe(false);
  });

  it("keeps a correction's effect when meta/ is deleted: it is replayed from the correction page", async () => {
    const root = copyExample();
    const service = serviceFor(root, { settings });
    await service.reindex({});
    const question = "what did we decide about cache invalidation";
    const result = await service.recall({ query: question });
    const session = service.feedbackSession();
    session.recordShown(result);
    const target = result.results[0];
    if (!target) throw new Error("nothing recalled");
    const written = await service.recallFeedback(session, {
      page: target.id,
      judgment: "corrected",
      correction: `Not this one: ${randomWord()} is answered elsewhere.`,
    });
    expect(written.ok).toBe(true);
    await closeServices();
    rmSync(join(root, ".llm-wiki", "meta"), { recursive: true, force: true });
    const fresh = serviceFor(root, { settings });
    await fresh.reindex({});
    const after = await fresh.recall({ query: question });
    expect(after.results.find((r) => r.id === target.id)?.feedback).toBeLessThan(0);
    // The same question with feedback off is the plain ranking.
    const off = await fresh.recall({ query: question, feedback: false });
    expect(off.results.every((r) => r.feedback === undefined)).toBe(true);
  });

  it("keeps both sides of an unresolved conflict with feedback on and off, whichever side was judged", async () => {
    const root = copyExample();
    const service = serviceFor(root, { settings });
    await service.reindex({});
    const question = "what is the sync latency SLO";
    const result = await service.recall({ query: question });
    const pair = result.conflicts[0];
    if (!pair) throw new Error("the example's conflict pair was not recalled");
    const session = service.feedbackSession();
    session.recordShown(result);
    // One side judged irrelevant (as strongly as feedback goes), the other relevant; which is drawn afresh.
    const [down, up] = Math.random() < 0.5 ? [pair.a.id, pair.b.id] : [pair.b.id, pair.a.id];
    for (const [page, judgment] of [
      [down, "irrelevant"],
      [up, "relevant"],
    ] as const) {
      expect((await service.recallFeedback(session, { page, judgment })).ok).toBe(true);
    }
    for (const feedback of [true, false]) {
      const again = await service.recall({ query: question, feedback });
      const ids = again.results.map((r) => r.id);
      expect(ids, `feedback ${feedback}`).toContain(down);
      expect(ids, `feedback ${feedback}`).toContain(up);
      expect(again.conflicts.map((c) => new Set([c.a.id, c.b.id]))).toContainEqual(
        new Set([down, up]),
      );
      // Both sides, and the statement that they conflict, reach the model.
      expect(again.renderedPages).toEqual(
        expect.arrayContaining([`project:${down}`, `project:${up}`]),
      );
      expect(again.rendered).toContain("CONFLICT, unresolved");
      const moved = again.results.find((r) => r.id === down)?.feedback;
      if (feedback) expect(moved).toBeLessThan(0);
      else expect(moved).toBeUndefined();
    }
  });

  it("captures no implicit signal with recallFeedback off, but keeps explicit judgments", async () => {
    const root = copyExample();
    const service = serviceFor(root, { settings: { ...settings, recallFeedback: false } });
    await service.reindex({});
    const result = await service.recall({ query: "idempotency keys for webhook retries" });
    const session = service.feedbackSession();
    session.recordShown(result);
    const first = result.results[0];
    if (!first) throw new Error("nothing recalled");
    session.recordOpened(first.vault, first.id);
    session.endTurn();
    const log = join(root, ".llm-wiki", "meta", "events.jsonl");
    const events = () =>
      (existsSync(log) ? readFileSync(log, "utf8") : "")
        .split("\n")
        .filter((l) => l.includes('"recall_feedback"'))
        .map((l) => JSON.parse(l).action as string);
    expect(events()).toEqual([]);
    expect(
      (await service.recallFeedback(session, { page: first.id, judgment: "relevant" })).ok,
    ).toBe(true);
    expect(events()).toEqual(["relevant"]);
  });

  it("holds a shown page's log line when asked: judged at once, logged on flush or before the next line, in order", async () => {
    const root = copyExample();
    const service = serviceFor(root, { settings });
    await service.reindex({});
    const log = join(root, ".llm-wiki", "meta", "events.jsonl");
    const lines = () =>
      (existsSync(log) ? readFileSync(log, "utf8") : "")
        .split("\n")
        .filter((l) => l.includes('"recall_feedback"'))
        .map((l) => JSON.parse(l) as { page: string; action: string });
    const session = service.feedbackSession();

    // Held, then flushed: nothing in the log until the flush, the page judgeable meanwhile.
    const first = await service.recall({ query: "idempotency keys for webhook retries" });
    const page = first.results[0];
    if (!page) throw new Error("nothing recalled");
    session.recordShown(first, undefined, { holdLog: true });
    expect(lines()).toEqual([]);
    expect(session.find(page.vault, page.id)).toBeDefined();
    session.flushShown();
    expect(lines().map((l) => l.action)).toEqual(first.results.map(() => "shown"));
    session.flushShown();
    expect(lines()).toHaveLength(first.results.length);

    // Held, then a judgment: the held line is written first, so the log keeps the session's order.
    session.endTurn();
    const second = await service.recall({ query: "what is the sync latency SLO" });
    const judged = second.results[0];
    if (!judged) throw new Error("nothing recalled");
    session.recordShown(second, undefined, { holdLog: true });
    const before = lines().length;
    expect(
      (await service.recallFeedback(session, { page: judged.id, judgment: "relevant" })).ok,
    ).toBe(true);
    const after = lines().slice(before);
    expect(after.map((l) => l.action)).toEqual([...second.results.map(() => "shown"), "relevant"]);
    expect(after.at(-1)?.page).toBe(judged.id);
  });

  it("loses only the signal when a held line cannot be written, never the flush's caller", async () => {
    const root = copyExample();
    const service = serviceFor(root, { settings });
    await service.reindex({});
    const result = await service.recall({ query: "idempotency keys for webhook retries" });
    const session = service.feedbackSession();
    session.recordShown(result, undefined, { holdLog: true });
    // The log's place taken by a folder: appending to it fails.
    const log = join(root, ".llm-wiki", "meta", "events.jsonl");
    rmSync(log, { force: true });
    mkdirSync(log);
    expect(() => session.flushShown()).not.toThrow();
    expect(statSync(log).isDirectory()).toBe(true);
  });
});
