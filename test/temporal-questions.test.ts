/**
 * Time as people mean it. A page is dated by when what it records happened
 * or was decided (`date`, `created`), not by its last edit; the everyday
 * time expressions ("before March", "in Q3", "last quarter", "between Feb
 * and April") become windows relative to an injected `now`, while ordinary
 * sentences that merely hold a month's or a quarter's word get none; and a
 * question only about a time ("what did we decide last week") is answered
 * by the pages of the asked type dated in its window, by automatic recall
 * too (the real CLI's `recall --auto` and `hook user-prompt`), while an
 * ordinary prompt still gets nothing.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { timeQuestion } from "../extensions/llm-wiki/lib/temporal/time-question.ts";
import { isoDay, parseTimeWindow } from "../extensions/llm-wiki/lib/temporal/time-window.ts";
import { runCli } from "./helpers/cli.ts";
import { decisionVault } from "./helpers/decision-vault.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const DAY = 86_400_000;
const dayOf = (now: Date) => Math.floor(now.getTime() / DAY);
const window = (q: string, now: Date) => {
  const w = parseTimeWindow(q, { now }).window;
  return w ? { since: w.since, until: w.until } : undefined;
};

describe("time expressions, relative to now", () => {
  const MID_MARCH = new Date("2026-03-15T10:00:00Z");
  const JUNE = new Date("2026-06-17T10:00:00Z");
  const FEBRUARY = new Date("2026-02-10T10:00:00Z");

  it("reads each everyday expression as the days people mean", () => {
    const cases: Array<[string, Date, { since?: string; until?: string }]> = [
      // This year's March when it has begun, else last year's.
      ["decisions before March", JUNE, { until: "2026-02-28" }],
      ["decisions before March", MID_MARCH, { until: "2026-02-28" }],
      ["decisions before March", FEBRUARY, { until: "2025-02-28" }],
      ["changes after March 2026", JUNE, { since: "2026-04-01" }],
      ["changes since March 2026", JUNE, { since: "2026-03-01" }],
      ["what shipped in Q3", JUNE, { since: "2025-07-01", until: "2025-09-30" }],
      ["what shipped in Q2", JUNE, { since: "2026-04-01", until: "2026-06-30" }],
      ["the Q3 2025 roadmap", JUNE, { since: "2025-07-01", until: "2025-09-30" }],
      ["notes from 2025 Q4", JUNE, { since: "2025-10-01" }],
      ["the second quarter of 2025", JUNE, { since: "2025-04-01", until: "2025-06-30" }],
      ["what we did last quarter", JUNE, { since: "2026-01-01", until: "2026-03-31" }],
      ["what we did last quarter", FEBRUARY, { since: "2025-10-01", until: "2025-12-31" }],
      ["progress this quarter", JUNE, { since: "2026-04-01", until: "2026-06-17" }],
      ["progress this year", JUNE, { since: "2026-01-01", until: "2026-06-17" }],
      ["reviews last week", JUNE, { since: "2026-06-08", until: "2026-06-14" }],
      ["reviews last month", JUNE, { since: "2026-05-01", until: "2026-05-31" }],
      ["reviews last year", JUNE, { since: "2025-01-01", until: "2025-12-31" }],
      ["what we chose in January", JUNE, { since: "2026-01-01", until: "2026-01-31" }],
      ["what we chose in January", new Date("2026-01-05T00:00:00Z"), { since: "2026-01-01" }],
      ["work between Feb and April", JUNE, { since: "2026-02-01", until: "2026-04-30" }],
      // Asked in March, April has not come yet: last year's February to April.
      ["work between Feb and April", MID_MARCH, { since: "2025-02-01", until: "2025-04-30" }],
      ["what did we decide in May?", JUNE, { since: "2026-05-01", until: "2026-05-31" }],
      // Seasons (northern, by month), halves and thirds of a year.
      ["outages in the summer of 2025", JUNE, { since: "2025-06-01", until: "2025-08-31" }],
      ["outages in winter 2026", JUNE, { since: "2025-12-01", until: "2026-02-28" }],
      ["incidents last summer", JUNE, { since: "2025-06-01", until: "2025-08-31" }],
      ["incidents last summer", new Date("2026-12-07T00:00:00Z"), { since: "2026-06-01" }],
      ["what did we decide this spring", JUNE, { since: "2026-03-01", until: "2026-05-31" }],
      // A season after a preposition, without its year: the latest one begun.
      ["what did we decide in the spring", JUNE, { since: "2026-03-01", until: "2026-05-31" }],
      ["outages during the winter", JUNE, { since: "2025-12-01", until: "2026-02-28" }],
      ["what broke in the fall", JUNE, { since: "2025-09-01", until: "2025-11-30" }],
      ["changes since the summer", new Date("2026-12-07T00:00:00Z"), { since: "2026-06-01" }],
      // A winter begun this December is the latest one, not last year's.
      [
        "outages during the winter",
        new Date("2026-12-07T00:00:00Z"),
        { since: "2026-12-01", until: "2027-02-28" },
      ],
      ["incidents last winter", new Date("2026-12-07T00:00:00Z"), { since: "2025-12-01" }],
      ["in the winter when the cache died", JUNE, { since: "2025-12-01", until: "2026-02-28" }],
      ["what broke in H1 2026", JUNE, { since: "2026-01-01", until: "2026-06-30" }],
      ["decisions in the second half of 2025", JUNE, { since: "2025-07-01", until: "2025-12-31" }],
      ["decisions made in late 2025", JUNE, { since: "2025-09-01", until: "2025-12-31" }],
      ["plans for early 2026", JUNE, { since: "2026-01-01", until: "2026-04-30" }],
    ];
    for (const [q, now, expected] of cases) {
      const got = window(q, now);
      expect(got, `${q} @ ${now.toISOString()}`).toBeDefined();
      for (const side of ["since", "until"] as const) {
        if (expected[side] !== undefined) expect(got?.[side], `${q}: ${side}`).toBe(expected[side]);
      }
      if (expected.since === undefined) expect(got?.since, q).toBeUndefined();
    }
  });

  it("reads a quarter without its year as the latest that has begun, whatever the day", () => {
    for (let i = 0; i < 40; i += 1) {
      const now = new Date(Date.UTC(2021, 0, 1) + ((i * 7_919) % 2_000) * DAY);
      for (const q of [1, 2, 3, 4]) {
        const w = window(`notes in Q${q}`, now);
        const since = w?.since ?? "";
        expect(since <= isoDay(dayOf(now)), `Q${q} @ ${now.toISOString()}`).toBe(true);
        expect(Number(since.slice(5, 7))).toBe(3 * q - 2);
        // The latest such quarter: a year later it would not have begun.
        const next = `${Number(since.slice(0, 4)) + 1}${since.slice(4)}`;
        expect(next > isoDay(dayOf(now))).toBe(true);
      }
    }
  });

  it("names no window for ordinary sentences that hold a month's or quarter's word", () => {
    for (const q of [
      "march forward with the migration",
      "this may break the build",
      "the cache in may be stale",
      "what may happen when the index is locked",
      "the second quarter of the pipeline",
      "split the file into the last quarter of rows",
      "errors in q3 of the loop",
      "the Q3 scheduler test",
      "a quarterly report template",
      "may I ask about the parser",
      "decide how the reranker orders candidates",
      "summer interns start on the parser",
      "the second half of the file",
      "fall back to the cache when the spring config is missing",
      "a spring boot app with a winter theme",
      "what broke in winter mode",
      "bugs in the spring boot app",
      "errors in the spring-boot service",
      "tests during summer school",
      "late binding in the h1 header parser",
    ]) {
      expect(window(q, JUNE), q).toBeUndefined();
    }
  });
});

describe("ordinary words around a lowercase may or q3, randomised", () => {
  it("never name a window, whatever words surround them", () => {
    const now = new Date("2026-06-17T10:00:00Z");
    const vocabulary =
      "cache index parser build test the a of loop file be stale break run fail value".split(" ");
    const seed = Math.floor(Math.random() * 2 ** 31);
    let state = seed;
    const next = (n: number) => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state % n;
    };
    const words = (k: number) =>
      Array.from({ length: k }, () => vocabulary[next(vocabulary.length)]).join(" ");
    for (let i = 0; i < 300; i += 1) {
      const prep = ["in", "from", "by", "since", "before", "until", "during", "of"][next(8)];
      const word = ["may", "q1", "q2", "q3", "q4"][next(5)];
      const q = `${words(1 + next(3))} ${prep} ${word} ${words(1 + next(3))}`;
      expect(window(q, now), `seed ${seed}: ${q}`).toBeUndefined();
      const marched = `${words(1 + next(2))} march ${words(1 + next(2))}`;
      expect(window(marched, now), `seed ${seed}: ${marched}`).toBeUndefined();
    }
  });
});

describe("timeQuestion", () => {
  it("is a question with no subject of its own, and names the asked type", () => {
    expect(timeQuestion("what did we decide")).toEqual({ types: new Set(["decision"]) });
    expect(timeQuestion("which decisions did we make?")).toEqual({
      types: new Set(["decision"]),
    });
    expect(timeQuestion("what happened")).toEqual({});
    expect(timeQuestion("what did we learn")).toEqual({ types: new Set(["insight"]) });
    for (const subject of [
      "what did we decide about the reranker",
      "fix what broke in the parser",
      "good morning! let's pick up where we left off",
      randomWords(3),
      "",
    ]) {
      expect(timeQuestion(subject), subject).toBeUndefined();
    }
  });
});

describe("a decision created 01-20 and edited 03-10", () => {
  it('is inside "before March" (service, real index), and the March edit does not move it', async () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const topic = randomWord(7, 10);
    const vault = makeTempVault({
      pages: {
        "decisions/early": pageText(
          {
            type: "decision",
            title: `Early ${topic} choice`,
            created: "2026-01-20",
            updated: "2026-03-10",
          },
          `We chose how ${topic} works.`,
        ),
        "decisions/later": pageText(
          { type: "decision", title: `Later ${topic} choice`, created: "2026-04-02" },
          `We chose how ${topic} works again, ${topic} and ${topic}.`,
        ),
      },
    });
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    const r = await service.recall({
      query: `${topic} decisions before March`,
      mode: "lexical",
      explain: true,
      now,
    });
    expect(r.window).toMatchObject({ until: "2026-02-28" });
    expect(r.results[0]?.id).toBe("decisions/early");
    expect(r.results[0]?.why?.time).toMatchObject({ date: "2026-01-20", inside: true });
    expect(r.results.find((x) => x.id === "decisions/later")?.why?.time).toMatchObject({
      inside: false,
    });
    // Explicit bounds read the same date.
    const bounded = await service.recall({
      query: topic,
      mode: "lexical",
      until: "2026-02",
      explain: true,
      now,
    });
    expect(bounded.results[0]?.id).toBe("decisions/early");
  });
});

describe('"what did we decide last week" (service, both policies)', () => {
  it("answers with last week's decisions, not last week's other pages nor older decisions", async () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const { vault, lastWeek, older, card } = decisionVault(now);
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    for (const policy of ["automatic", "explicit"] as const) {
      const r = await service.recall({
        query: "what did we decide last week",
        policy,
        mode: "lexical",
        now,
      });
      expect(r.results[0]?.id, policy).toBe(lastWeek.id);
      expect(
        r.results.map((x) => x.id),
        policy,
      ).not.toContain(card.id);
      if (policy === "automatic") {
        expect(r.results.map((x) => x.id)).not.toContain(older.id);
        expect(r.rendered).toContain(lastWeek.title);
      }
    }
    // The same window given as explicit bounds answers the same question.
    const t = dayOf(now);
    const monday = t - ((t + 3) % 7);
    const bounded = await service.recall({
      query: "what did we decide",
      policy: "automatic",
      mode: "lexical",
      since: isoDay(monday - 7),
      until: isoDay(monday - 1),
      now,
    });
    expect(bounded.results.map((x) => x.id)).toEqual([lastWeek.id]);
    // Nothing decided in the window: automatic recall stays quiet.
    const none = await service.recall({
      query: "what did we decide last month",
      policy: "automatic",
      mode: "lexical",
      now,
    });
    expect(none.results).toEqual([]);
    expect(none.rendered).toBe("");
  });
});

describe('"what did we decide last week" through the real CLI', () => {
  it("`recall --auto --now` injects last week's decision; an ordinary prompt gets nothing", () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const { vault, lastWeek, card } = decisionVault(now);
    const env = childEnv({ NO_COLOR: "1" });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const auto = (query: string) => {
      const run = runCli(
        ["recall", "--auto", "--json", "--now", now.toISOString(), query, "--vault", vault.root],
        { env },
      );
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as RecallResult;
    };
    const asked = auto("what did we decide last week?");
    expect(asked.results.map((r) => r.id)).toEqual([lastWeek.id]);
    expect(asked.rendered).toContain(lastWeek.title);
    expect(asked.results.map((r) => r.id)).not.toContain(card.id);
    for (const ordinary of [
      "write a haiku about autumn leaves",
      "good morning! let's pick up where we left off yesterday",
    ]) {
      const r = auto(ordinary);
      expect(r.results, ordinary).toEqual([]);
      expect(r.rendered, ordinary).toBe("");
    }
  });

  it("`hook user-prompt` injects last week's decision (counted from today); an ordinary prompt gets nothing", () => {
    // The hook's clock is the real one: the vault is dated relative to today.
    const { vault, lastWeek } = decisionVault(new Date());
    const env = childEnv({ NO_COLOR: "1" });
    expect(runCli(["reindex", "--vault", vault.root], { env }).status).toBe(0);
    const hook = (prompt: string) =>
      runCli(["hook", "user-prompt"], {
        cwd: vault.root,
        env,
        input: JSON.stringify({
          session_id: randomUUID(),
          transcript_path: `${vault.root}/transcript.jsonl`,
          cwd: vault.root,
          permission_mode: "default",
          hook_event_name: "UserPromptSubmit",
          prompt,
        }),
      });
    const asked = hook("what did we decide last week");
    expect(asked.status).toBe(0);
    expect(asked.stdout.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
    expect(asked.stdout).toContain(lastWeek.id);
    const ordinary = hook("write a haiku about autumn leaves");
    expect(ordinary.status).toBe(0);
    expect(ordinary.stdout).toBe("");
  });
});

describe('"since the v2 release": a page that names the release dates the question', () => {
  it("finds the release by its version, whatever the page calls it, and answers with the decisions on its side", async () => {
    const now = new Date("2026-06-17T09:30:00Z");
    const topic = randomWord(7, 10);
    const vault = makeTempVault({
      pages: {
        "releases/v2": pageText(
          { type: "release", title: "Release v2.0", date: "2026-03-01" },
          "The second major version shipped.",
        ),
        // Names the version, but is no release: never an anchor.
        "concepts/v2-api": pageText(
          { type: "concept", title: "v2 API", created: "2025-01-01" },
          "The v2 API of the service.",
        ),
        "decisions/before": pageText(
          { type: "decision", title: `First ${topic} rule`, created: "2026-02-10" },
          `We decided the first ${topic} rule.`,
        ),
        "decisions/after": pageText(
          {
            type: "decision",
            title: `Second ${topic} rule`,
            created: "2026-04-10",
            updated: "2026-06-01",
          },
          `We decided the second ${topic} rule.`,
        ),
      },
    });
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    for (const [query, side, day, id] of [
      ["what did we decide since the v2 release", "since", "2026-03-01", "decisions/after"],
      ["what did we decide before the 2.0 launch", "until", "2026-02-28", "decisions/before"],
      ["what did we decide after the v2 rollout", "since", "2026-03-02", "decisions/after"],
    ] as const) {
      const r = await service.recall({ query, policy: "automatic", mode: "lexical", now });
      expect(r.window?.[side], query).toBe(day);
      expect(r.window?.anchor, query).toBe("releases/v2");
      expect(
        r.results.map((x) => x.id),
        query,
      ).toEqual([id]);
    }
    // A name with words of its own is no release's name.
    for (const query of ["what changed since the v2 API", "what changed since v2"]) {
      const plain = await service.recall({ query, mode: "lexical", now });
      expect(plain.window, query).toBeUndefined();
    }
  });
});

describe("a time question whose answer its words rank low", () => {
  it("still finds the page dated in the window: the window orders a wider pool than the answer's length", async () => {
    const now = new Date("2026-12-01T09:00:00Z");
    const subject = randomWord(6, 9);
    const pages: Record<string, string> = {};
    // Thirty older pages say the subject far more often than the one incident of the asked month.
    for (let i = 0; i < 30; i += 1) {
      const words = randomWords(6);
      pages[`concepts/${subject}-note-${i}`] = pageText(
        {
          type: "concept",
          title: `${subject} note ${i}`,
          created: `2025-0${(i % 9) + 1}-1${i % 10}`,
        },
        `${subject} ${subject} ${subject}: ${words}. The ${subject} path, the ${subject} queue.`,
      );
    }
    const answer = `analyses/incident-2026-07-${randomWord(5, 8)}`;
    pages[answer] = pageText(
      {
        type: "incident",
        title: `${subject} alerts sent nine times`,
        created: "2026-07-21",
      },
      `Alerts went out nine times for one forecast; the ${subject} retry had no idempotency key. ${randomWords(40)}`,
    );
    const service = serviceFor(makeTempVault({ pages }).root);
    await service.reindex({ scope: "all" });
    const flat = await service.recall({ query: subject, mode: "lexical", now });
    expect(flat.results.slice(0, 10).map((r) => r.id)).not.toContain(answer);
    const r = await service.recall({
      query: `what happened with ${subject} in july`,
      mode: "lexical",
      now,
    });
    expect(r.window).toMatchObject({ since: "2026-07-01", until: "2026-07-31" });
    expect(r.results[0]?.id).toBe(answer);
  });
});
