/**
 * Temporal recall: time words in a question become a window of days
 * (relative to an injected `now`), pages dated inside it are preferred on a
 * real vault and a real index, explicit since/until narrow it, and hostile
 * dates are structured diagnostics, never exceptions.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  appendFeedback,
  INDEX_VERSION,
} from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { pageDates } from "../extensions/llm-wiki/lib/temporal/page-dates.ts";
import {
  combineWindows,
  dayNumber,
  explicitDay,
  isoDay,
  parseTimeWindow,
} from "../extensions/llm-wiki/lib/temporal/time-window.ts";
import { appendEvent } from "../extensions/llm-wiki/lib/vault/events.ts";
import { runCli } from "./helpers/cli.ts";
import { commitAll, initRepo, loggingGit } from "./helpers/code-repo.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const DAY = 86_400_000;
/** Deterministic moments spread over 2020–2031 (no clock). */
const NOWS = Array.from(
  { length: 60 },
  (_, i) =>
    new Date(Date.UTC(2020, 0, 1) + ((i * 7_919 * 13) % 4_380) * DAY + (i % 24) * 3_600_000),
);
const today = (now: Date) => Math.floor(now.getTime() / DAY);
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

describe("parseTimeWindow", () => {
  it("reads relative days and weeks against now", () => {
    for (const now of NOWS) {
      const t = today(now);
      const y = parseTimeWindow("what broke yesterday in the indexer", { now });
      expect(y.window).toMatchObject({ since: isoDay(t - 1), until: isoDay(t - 1) });
      expect(y.rest).toBe("what broke in the indexer");
      const w = parseTimeWindow("reranking decisions last week", { now }).window;
      const since = dayNumber(w?.since ?? "") ?? Number.NaN;
      const until = dayNumber(w?.until ?? "") ?? Number.NaN;
      expect(until - since).toBe(6);
      expect(new Date(since * DAY).getUTCDay()).toBe(1); // a Monday
      expect(until).toBeLessThan(t);
      expect(t - until).toBeLessThanOrEqual(7);
      const n = parseTimeWindow("notes over the last 10 days", { now }).window;
      expect(n).toMatchObject({ since: isoDay(t - 9), until: isoDay(t) });
      const ago = parseTimeWindow("the failure 3 days ago", { now }).window;
      expect(ago).toMatchObject({ since: isoDay(t - 3), until: isoDay(t - 3) });
    }
  });

  it("reads named months as the most recent such month, and ISO dates and months as given", () => {
    for (const now of NOWS) {
      for (const [i, name] of MONTHS.entries()) {
        const w = parseTimeWindow(`what we decided in ${name} about fusion`, { now }).window;
        expect(w?.since?.slice(5, 7)).toBe(String(i + 1).padStart(2, "0"));
        expect((w?.since ?? "") <= isoDay(today(now))).toBe(true);
        expect(dayNumber(w?.until ?? "")).toBeGreaterThan(dayNumber(w?.since ?? "") ?? 0);
      }
    }
    const now = NOWS[0] as Date;
    expect(parseTimeWindow("changes since 2026-02", { now })).toMatchObject({
      window: { since: "2026-02-01" },
      rest: "changes",
    });
    expect(parseTimeWindow("since 2026-02", { now }).window?.until).toBeUndefined();
    expect(parseTimeWindow("fusion between 2026-01-05 and 2026-01-20", { now })).toMatchObject({
      window: { since: "2026-01-05", until: "2026-01-20" },
      rest: "fusion",
    });
    expect(parseTimeWindow("notes before 2025-03-04", { now }).window).toEqual({
      phrase: "before 2025-03-04",
      origin: "query",
      until: "2025-03-03",
    });
    expect(parseTimeWindow("March 3, 2026 meeting", { now }).window).toMatchObject({
      since: "2026-03-03",
      until: "2026-03-03",
    });
  });

  it("dates a named event from the page that gives its date", () => {
    const now = new Date("2026-06-17T12:00:00Z");
    const anchor = (name: string) =>
      name.toLowerCase() === "v2 release"
        ? { date: "2026-04-01", pageId: "sources/v2" }
        : undefined;
    const w = parseTimeWindow("cache bugs before the v2 release", { now, anchor });
    expect(w.window).toMatchObject({ until: "2026-03-31", anchor: "sources/v2" });
    expect(w.rest).toBe("cache bugs");
    expect(parseTimeWindow("after the v2 release", { now, anchor }).window?.since).toBe(
      "2026-04-02",
    );
  });

  it("leaves ordinary words alone", () => {
    const now = new Date("2026-06-17T12:00:00Z");
    for (const q of [
      "it may rain",
      "chunks of 2048 tokens",
      "in 2048 tokens",
      "march the files",
      "a weekly job",
      // The latest of something, not a window of days.
      "the most recent firmware release",
      "Traceback (most recent call last)",
    ]) {
      expect(parseTimeWindow(q, { now }).window).toBeUndefined();
    }
    // "recent X" is the last thirty days, as "lately" is, and leaves X to search.
    const recent = parseTimeWindow("recent firmware problems", { now });
    const lately = parseTimeWindow("firmware lately", { now }).window;
    expect(recent.window).toMatchObject({ since: lately?.since, until: lately?.until });
    expect(recent.rest).toBe("firmware problems");
  });

  it("finds a phrase the same way whatever ordinary words, digits and case surround it", () => {
    const now = new Date("2026-06-17T12:00:00Z");
    const phrases = [
      "yesterday",
      "last week",
      "in the last 3 months",
      "two weeks ago",
      "in March",
      "since Feb 2026",
      "March 4th, 2026",
      "between 2026-01-05 and 2026-01-20",
      "from January to March 2026",
      "before 2026-05",
      "during 2025",
      "lately",
      "recent",
    ];
    const noise = ["ticket 4821", "in topic 3", "note 7", "the Api", "v2", "of 12 shards", "for"];
    const seed = Date.now();
    for (const [i, phrase] of phrases.entries()) {
      const alone = parseTimeWindow(`notes ${phrase}`, { now }).window;
      expect(alone, phrase).toBeDefined();
      // Fresh surroundings on every run, from words that name no period themselves.
      const pick = (k: number) => noise[(seed + i * 7 + k) % noise.length] ?? "";
      const upper = (seed + i) % 2 === 0 ? phrase.toUpperCase() : phrase;
      const query = `${pick(1)} ${pick(2)} notes ${upper} about ${pick(3)}`;
      const found = parseTimeWindow(query, { now }).window;
      expect({ since: found?.since, until: found?.until }, query).toEqual({
        since: alone?.since,
        until: alone?.until,
      });
    }
  });

  it("refuses impossible dates with a warning and no window", () => {
    const now = new Date("2026-06-17T12:00:00Z");
    for (const q of ["since 2026-13", "on 2026-02-30", "before 9999-01-01", "since 1066-10-14"]) {
      const r = parseTimeWindow(q, { now });
      expect(r.window).toBeUndefined();
      expect(r.rest).toBe(q);
      expect(r.diagnostics.map((d) => d.code)).toEqual(["time_window_invalid"]);
    }
  });
});

describe("explicit since/until", () => {
  it("takes days, months and years; refuses anything else with a diagnostic", () => {
    expect(explicitDay("2026-02", "since")).toEqual({ ok: true, day: "2026-02-01" });
    expect(explicitDay("2024-02", "until")).toEqual({ ok: true, day: "2024-02-29" });
    expect(explicitDay("2025", "until")).toEqual({ ok: true, day: "2025-12-31" });
    for (const bad of [
      "yesterday",
      "2026-02-30",
      "0001-01-01",
      "99999-01-01",
      "2026-00",
      "x".repeat(5_000),
      "2026-01-01\u001b[31m",
    ]) {
      const r = explicitDay(bad, "since");
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.diagnostic).toMatchObject({ code: "time_window_invalid", severity: "error" });
        expect(r.diagnostic.message.length).toBeLessThan(200);
        expect(r.diagnostic.message).not.toContain("\u001b");
      }
    }
  });

  it("intersects with the query's window; an empty intersection is an error", () => {
    const q = {
      since: "2026-03-01",
      until: "2026-03-31",
      phrase: "in March",
      origin: "query" as const,
    };
    expect(combineWindows(q, { since: "2026-03-10" })).toMatchObject({
      ok: true,
      window: { since: "2026-03-10", until: "2026-03-31", origin: "both" },
    });
    expect(combineWindows(q, { since: "2026-05-01" })).toMatchObject({
      ok: false,
      diagnostic: { code: "time_window_empty" },
    });
    expect(combineWindows(undefined, { since: "2000-01-01", until: "2199-12-31" })).toMatchObject({
      ok: true,
      window: { origin: "explicit" },
    });
  });
});

/** Four pages on one subject, dated apart; the oldest matches the words best. */
function datedVault(now: Date) {
  const t = today(now);
  const monday = t - ((t + 3) % 7);
  const lastWeek = isoDay(monday - 4); // Thursday of last week
  const old = isoDay(t - 120);
  return {
    lastWeek,
    vault: makeTempVault({
      pages: {
        "concepts/reranking-cutoff": pageText(
          { type: "concept", title: "Reranking cutoff", updated: old },
          "Reranking reranking cutoff: rerank the top forty reranking candidates; reranking is slow.",
        ),
        "sources/reranking-review": pageText(
          { type: "source", title: "Reranking review", date: lastWeek },
          "We reviewed reranking latency and kept the cutoff.",
        ),
        "concepts/chunking": pageText(
          { type: "concept", title: "Chunking", updated: lastWeek },
          "Pages are split at headings.",
        ),
        "concepts/fusion": pageText(
          { type: "concept", title: "Fusion" },
          "Reranking lists are fused by reciprocal rank.",
        ),
      },
    }),
  };
}

describe("recall with a time window (real vault, real index)", () => {
  it('prefers the pages dated last week for "last week", and says why', async () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const { vault, lastWeek } = datedVault(now);
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    const plain = await service.recall({ query: "reranking", mode: "lexical", now });
    expect(plain.results[0]?.id).toBe("concepts/reranking-cutoff");
    expect(plain.window).toBeUndefined();

    const timed = await service.recall({
      query: "reranking last week",
      mode: "lexical",
      explain: true,
      now,
    });
    expect(timed.ok).toBe(true);
    expect(timed.window).toMatchObject({ phrase: "last week" });
    expect((timed.window?.since ?? "") <= lastWeek && lastWeek <= (timed.window?.until ?? "")).toBe(
      true,
    );
    expect(timed.results[0]?.id).toBe("sources/reranking-review");
    expect(timed.results[0]?.why?.time).toMatchObject({
      date: lastWeek,
      dateSource: "frontmatter",
      inside: true,
    });
    const old = timed.results.find((r) => r.id === "concepts/reranking-cutoff");
    expect(old?.why?.time).toMatchObject({ inside: false });
    // The page that only shares "week" is not pulled in by the date words.
    expect(timed.results.map((r) => r.id)).not.toContain("concepts/chunking");
  });

  it("dates a question by a named event without answering with the event's page", async () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const vault = makeTempVault({
      pages: {
        "sources/v2-release": pageText(
          { type: "source", title: "v2 release", date: "2026-03-01" },
          "The v2 release shipped the new sync protocol.",
        ),
        "concepts/cache-bug-early": pageText(
          { type: "concept", title: "Cache bug in the beta", updated: "2026-02-10" },
          "A cache bug served stale lists in the beta.",
        ),
        "concepts/cache-bug-late": pageText(
          { type: "concept", title: "Cache bug after launch", updated: "2026-05-02" },
          "A cache bug served stale lists after launch.",
        ),
      },
    });
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    const r = await service.recall({
      query: "cache bugs before the v2 release",
      mode: "lexical",
      explain: true,
      now,
    });
    expect(r.window).toMatchObject({ until: "2026-02-28", anchor: "sources/v2-release" });
    expect(r.results[0]?.id).toBe("concepts/cache-bug-early");
    expect(r.results.find((x) => x.id === "sources/v2-release")?.why?.name).toBeUndefined();
  });

  it("takes explicit since/until, and refuses bad ones with a structured diagnostic", async () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const { vault, lastWeek } = datedVault(now);
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    const r = await service.recall({ query: "reranking", mode: "lexical", since: lastWeek, now });
    expect(r.window).toEqual({ since: lastWeek, origin: "explicit", pagesInside: 1 });
    expect(r.results[0]?.id).toBe("sources/reranking-review");

    for (const [since, until, code] of [
      ["2026-02-30", undefined, "time_window_invalid"],
      ["0000-01-01", undefined, "time_window_invalid"],
      ["2026-05-01", "2026-04-01", "time_window_empty"],
    ] as const) {
      const bad = await service.recall({
        query: "reranking",
        mode: "lexical",
        since,
        ...(until ? { until } : {}),
        now,
      });
      expect(bad.ok).toBe(false);
      expect(bad.results).toEqual([]);
      expect(bad.diagnostics.map((d) => d.code)).toContain(code);
    }
    // A window over every year allowed is harmless: everything dated is inside.
    const wide = await service.recall({
      query: "reranking",
      mode: "lexical",
      since: "1970",
      until: "2200",
      now,
    });
    expect(wide.ok).toBe(true);
    expect(wide.results[0]?.id).toBe("concepts/reranking-cutoff");
  });
});

describe("temporal recall through the real CLI", () => {
  it('"last week" prefers the pages dated last week, counted from today', () => {
    // The CLI's clock is the real one: the vault is dated relative to today.
    const { vault, lastWeek } = datedVault(new Date());
    const env = childEnv({ NO_COLOR: "1" });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const recall = (query: string) => {
      const run = runCli(["recall", query, "--json", "--vault", vault.root], { env });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as RecallResult;
    };
    expect(recall("reranking").results[0]?.id).toBe("concepts/reranking-cutoff");
    const timed = recall("reranking last week");
    expect(timed.window).toMatchObject({ phrase: "last week" });
    expect((timed.window?.since ?? "") <= lastWeek && lastWeek <= (timed.window?.until ?? "")).toBe(
      true,
    );
    expect(timed.results[0]?.id).toBe("sources/reranking-review");
    // The plain text says which window it preferred.
    const text = runCli(["recall", "reranking last week", "--vault", vault.root], {
      env,
    }).stdout;
    expect(text).toContain('("last week")');
  });
});

describe("page dates", () => {
  it("dates a page by when it happened or was decided (date, created), its last edit only when it says neither, then the event log", () => {
    const vault = makeTempVault({
      pages: {
        "sources/paper": pageText({
          type: "source",
          title: "Paper",
          date: "2025-11-02",
          updated: "2026-01-09",
        }),
        "concepts/card": pageText({
          type: "concept",
          title: "Card",
          created: "2025-01-01",
          updated: "2025-02-03",
        }),
        "decisions/store": pageText({
          type: "decision",
          title: "Store",
          created: "2026-01-20",
          updated: "2026-03-10",
        }),
        "concepts/edited": pageText({ type: "concept", title: "Edited", updated: "2025-04-05" }),
        // The older system's source template: `ingested` is its only date.
        "sources/legacy": pageText({
          type: "source",
          title: "Legacy",
          ingested: "2024-09-09",
          updated: "2025-01-02",
        }),
        "concepts/logged": pageText({ type: "concept", title: "Logged" }),
        "concepts/unknown": pageText({ type: "concept", title: "Unknown" }),
      },
    });
    appendEvent(
      vault.paths,
      { kind: "page_created", id: "concepts/logged" },
      new Date("2026-03-04T10:00:00Z"),
    );
    appendEvent(
      vault.paths,
      { kind: "page_updated", id: "concepts/logged" },
      new Date("2026-03-09T10:00:00Z"),
    );
    // A recall showing a page, and a judgment of it, say nothing of when it happened.
    for (const page of ["concepts/logged", "concepts/unknown"])
      appendFeedback(
        vault.paths,
        [
          {
            vault_id: "v",
            page,
            query_hash: null,
            action: "shown",
            rank: 1,
            mode: "lexical",
            index_version: INDEX_VERSION,
          },
          {
            vault_id: "v",
            page,
            query_hash: null,
            action: "relevant",
            rank: 1,
            mode: "lexical",
            index_version: INDEX_VERSION,
          },
        ],
        new Date("2026-05-01T10:00:00Z"),
      );
    const service = serviceFor(vault.root);
    const dates = pageDates(vault.paths, service.registry(vault.paths).pages, { git: false });
    expect(dates.get("sources/paper")).toEqual({
      date: "2025-11-02",
      source: "frontmatter",
      field: "date",
    });
    expect(dates.get("concepts/card")).toEqual({
      date: "2025-01-01",
      source: "frontmatter",
      field: "created",
    });
    expect(dates.get("decisions/store")).toMatchObject({ date: "2026-01-20", field: "created" });
    expect(dates.get("concepts/edited")).toMatchObject({ date: "2025-04-05", field: "updated" });
    expect(dates.get("sources/legacy")).toMatchObject({ date: "2024-09-09", field: "date" });
    // Freshness (priming) asks when a page was last touched instead.
    const changed = pageDates(vault.paths, service.registry(vault.paths).pages, {
      git: false,
      basis: "changed",
    });
    expect(changed.get("decisions/store")).toMatchObject({ date: "2026-03-10", field: "updated" });
    expect(dates.get("concepts/logged")).toEqual({ date: "2026-03-09", source: "events" });
    expect(dates.has("concepts/unknown")).toBe(false);
  });
});

describe("page dates from git history", () => {
  /** A vault committed in a fresh repository: one commit per (date, pages) step. */
  function committedVault(steps: Array<[string, Record<string, string>]>) {
    const vault = makeTempVault({});
    initRepo(vault.root);
    for (const [date, pages] of steps) {
      for (const [id, text] of Object.entries(pages)) vault.writePage(id, text);
      commitAll(vault.root, `notes ${randomWords(2)}`, date);
    }
    return vault;
  }
  const undated = (title: string) => pageText({ type: "concept", title }, `${randomWords(8)}.`);

  it("dates a page with no date of its own and no event by its file's last commit", () => {
    // A non-ASCII name too: git prints it as it is, not quoted.
    const vault = committedVault([
      [
        "2025-05-01T10:00:00Z",
        { "concepts/first": undated("First"), "concepts/café": undated("Café") },
      ],
      ["2025-07-10T10:00:00Z", { "concepts/second": undated("Second") }],
      [
        "2025-08-20T10:00:00Z",
        {
          "concepts/first": undated("First again"),
          "concepts/own": pageText({ type: "concept", title: "Own", updated: "2024-02-02" }),
        },
      ],
    ]);
    vault.writePage("concepts/uncommitted", undated("Uncommitted"));
    const service = serviceFor(vault.root);
    const dates = pageDates(vault.paths, service.registry(vault.paths).pages);
    expect(dates.get("concepts/first")).toEqual({ date: "2025-08-20", source: "git" });
    expect(dates.get("concepts/second")).toEqual({ date: "2025-07-10", source: "git" });
    expect(dates.get("concepts/café")).toEqual({ date: "2025-05-01", source: "git" });
    // Front matter first, whatever git says; nothing for a file git never saw.
    expect(dates.get("concepts/own")).toMatchObject({ date: "2024-02-02", source: "frontmatter" });
    expect(dates.has("concepts/uncommitted")).toBe(false);
  });

  it("asks git through the project's hardened runner: no GIT_* variable, no hooks, literal paths", () => {
    const vault = committedVault([["2025-03-03T10:00:00Z", { "concepts/a": undated("A") }]]);
    // Another repository the environment points git at, with a commit of its own on the same path.
    const other = committedVault([["2021-01-01T10:00:00Z", { "concepts/a": undated("A") }]]);
    const logging = loggingGit();
    const saved = { ...process.env };
    try {
      process.env.GIT_DIR = join(other.root, ".git");
      process.env.GIT_WORK_TREE = other.root;
      process.env.PATH = `${logging.bin}:${saved.PATH ?? ""}`;
      const service = serviceFor(vault.root);
      const dates = pageDates(vault.paths, service.registry(vault.paths).pages);
      expect(dates.get("concepts/a")).toEqual({ date: "2025-03-03", source: "git" });
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    const [call] = logging.calls().filter((c) => c.includes(" log "));
    expect(call).toContain("core.hooksPath=/dev/null");
    expect(call).toContain("--literal-pathspecs");
  });
});
