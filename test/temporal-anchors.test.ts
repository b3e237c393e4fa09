/**
 * A named event dates a question only when the name is an event's: a page
 * that says when something happened (a source, an event or release type, or
 * a `date:` of its own) after a temporal preposition (before, after, since,
 * until). Every other prepositional phrase is an ordinary part of the
 * question: "errors from the sync engine" searches for the sync engine and
 * finds its page, through the service and through the real CLI.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  type AnchorLookup,
  parseTimeWindow,
} from "../extensions/llm-wiki/lib/temporal/time-window.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const NOW = new Date("2026-06-17T09:30:00Z");
/** Every preposition the time parser knows, temporal or not. */
const PREPOSITIONS = [
  "from",
  "by",
  "up to",
  "after",
  "since",
  "before",
  "until",
  "till",
  "prior to",
];
/** Ordinary (non-event) page types, each with dates of its own edits. */
const CARD_TYPES = ["concept", "entity", "analysis", "requirement"];

/** A vault of ordinary dated cards with fresh two-word titles, and one dated release. */
function cardVault() {
  const cards = CARD_TYPES.map((type, i) => {
    const title = `${randomWord(5, 9)} ${randomWord(5, 9)}`;
    const topic = randomWord(6, 10);
    return {
      id: `${type === "analysis" ? "analyses" : `${type}s`}/${title.replace(" ", "-")}`,
      type,
      title,
      topic,
      created: `2026-0${i + 1}-0${i + 2}`,
      updated: `2026-0${i + 2}-1${i}`,
    };
  });
  const release = {
    id: "sources/release",
    title: `${randomWord(5, 9)} release`,
    date: "2026-03-01",
  };
  const pages: Record<string, string> = {
    [release.id]: pageText(
      { type: "source", title: release.title, date: release.date },
      `The ${release.title} shipped on ${release.date}.`,
    ),
  };
  for (const c of cards) {
    pages[c.id] = pageText(
      { type: c.type, title: c.title, created: c.created, updated: c.updated },
      `The ${c.title} handles ${c.topic}. Every ${c.topic} passes through the ${c.title}.`,
    );
  }
  return { vault: makeTempVault({ pages }), cards, release };
}

/** "what <topic> comes <preposition> the <title>", one per card and preposition. */
function phrasings(cards: ReturnType<typeof cardVault>["cards"]) {
  return cards.flatMap((c) =>
    PREPOSITIONS.map((p) => ({ card: c, query: `what ${c.topic} comes ${p} the ${c.title}` })),
  );
}

describe("parseTimeWindow: event names", () => {
  it("reads a named event only after a temporal preposition", () => {
    const name = `${randomWord()} ${randomWord()}`;
    // A lookup that knows the name: whether it dates the question is the preposition's choice.
    const anchor: AnchorLookup = (n) =>
      n.toLowerCase() === name ? { date: "2026-04-01", pageId: "sources/x" } : undefined;
    for (const p of ["from", "by", "up to"]) {
      const q = `notes ${p} the ${name}`;
      const parsed = parseTimeWindow(q, { now: NOW, anchor });
      expect(parsed.window, q).toBeUndefined();
      expect(parsed.rest, q).toBe(q);
    }
    for (const [p, side, day] of [
      ["before", "until", "2026-03-31"],
      ["prior to", "until", "2026-03-31"],
      ["until", "until", "2026-04-01"],
      ["till", "until", "2026-04-01"],
      ["after", "since", "2026-04-02"],
      ["since", "since", "2026-04-01"],
    ] as const) {
      const q = `notes ${p} the ${name}`;
      const parsed = parseTimeWindow(q, { now: NOW, anchor });
      expect(parsed.window?.[side], q).toBe(day);
      expect(parsed.window?.anchor, q).toBe("sources/x");
      expect(parsed.rest, q).toBe("notes");
    }
    // A period still takes every bounding preposition.
    expect(parseTimeWindow("notes by March", { now: NOW }).window?.until).toBe("2026-03-31");
    expect(parseTimeWindow("notes from 2026-02", { now: NOW }).window?.since).toBe("2026-02-01");
  });
});

describe("recall: a prepositional phrase naming an ordinary dated page", () => {
  it("stays a plain query and finds the page (service, explicit and automatic)", async () => {
    const { vault, cards } = cardVault();
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    for (const { card, query } of phrasings(cards)) {
      for (const policy of ["explicit", "automatic"] as const) {
        const r = await service.recall({ query, policy, mode: "lexical", now: NOW });
        expect(r.window, `${policy}: ${query}`).toBeUndefined();
        expect(r.results[0]?.id, `${policy}: ${query}`).toBe(card.id);
      }
    }
  });

  it("still dates the question by an event-like page: a source, or a card with a date of its own", async () => {
    const { vault, cards, release } = cardVault();
    const dated = cards[0];
    if (!dated) throw new Error("no card");
    // The same card, now saying when what it records happened.
    vault.writePage(
      dated.id,
      pageText(
        { type: dated.type, title: dated.title, date: "2026-05-04", updated: dated.updated },
        `The ${dated.title} handles ${dated.topic}.`,
      ),
    );
    const service = serviceFor(vault.root);
    await service.reindex({ scope: "all" });
    const byRelease = await service.recall({
      query: `${dated.topic} before the ${release.title}`,
      mode: "lexical",
      now: NOW,
    });
    expect(byRelease.window).toMatchObject({ until: "2026-02-28", anchor: release.id });
    const byCard = await service.recall({
      query: `${cards[1]?.topic ?? ""} since the ${dated.title}`,
      mode: "lexical",
      now: NOW,
    });
    expect(byCard.window).toMatchObject({ since: "2026-05-04", anchor: dated.id });
    // "from" and "by" never name an event, even an event's.
    for (const p of ["from", "by"]) {
      const r = await service.recall({
        query: `what ${dated.topic} comes ${p} the ${release.title}`,
        mode: "lexical",
        now: NOW,
      });
      expect(r.window, p).toBeUndefined();
    }
  });

  it("stays a plain query through the real CLI: `recall --auto`", () => {
    const { vault, cards } = cardVault();
    const env = childEnv({ NO_COLOR: "1" });
    // Several phrasings per run, a fresh pick each time (one child each).
    const all = phrasings(cards);
    const picked = Array.from(
      { length: 4 },
      (_, i) => all[(i * 9 + Math.floor(Math.random() * 9)) % all.length],
    );
    for (const item of picked) {
      if (!item) continue;
      const run = runCli(["recall", "--auto", "--json", item.query, "--vault", vault.root], {
        env,
      });
      expect(run.status, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout) as { window?: unknown; results: Array<{ id: string }> };
      expect(out.window, item.query).toBeUndefined();
      expect(out.results[0]?.id, item.query).toBe(item.card.id);
    }
  });
});
