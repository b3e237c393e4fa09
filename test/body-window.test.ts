/**
 * Excerpts are cut in JavaScript from the page text (index/body-window.ts),
 * and must be the windows SQLite cut before, character for character:
 * SQLite folds ASCII letters only, counts positions in code points and
 * stops `length` at a NUL. The oracle is SQLite itself (the one QMD loads),
 * run on random texts with accents, emoji, CJK, NULs and mixed case.
 */
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bodyWindow, sqliteLower } from "../extensions/llm-wiki/lib/index/body-window.ts";
import {
  tidyWindow,
  WINDOW_BEFORE,
  WINDOW_CHARS,
} from "../extensions/llm-wiki/lib/index/qmd-excerpts.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";

interface Db {
  prepare(sql: string): { get(...a: unknown[]): unknown };
  close(): void;
}

const sqlite = () => openQmdSqlite<Db>();

/** The statement excerpts were cut with, for one page and its words. */
const WINDOW_SQL = `
  WITH page AS (SELECT ? AS doc, lower(?) AS low),
  hit AS (SELECT coalesce(min(nullif(instr(page.low, j.value), 0)), 1) AS at FROM page, json_each(?) j)
  SELECT substr(page.doc, max(1, hit.at - ${WINDOW_BEFORE}), ${WINDOW_CHARS}) AS text,
         max(1, hit.at - ${WINDOW_BEFORE}) AS start, length(page.doc) AS length
  FROM page, hit`;

const PIECES = [
  "flow",
  "Flow",
  "FLOW",
  "boundary",
  "layer",
  " ",
  "\n",
  "é",
  "É",
  "Ärger",
  "naïve",
  "😀",
  "𝔘",
  "召回",
  "ß",
  "İ",
  "K",
  "\u0000",
  "-",
  "v1.0.21",
];

function randomText(): string {
  let text = "";
  const n = randomInt(0, 400);
  for (let i = 0; i < n; i += 1) text += PIECES[randomInt(PIECES.length)];
  return text;
}

describe("excerpt windows cut in JavaScript", () => {
  it("equal SQLite's lower/instr/substr/length windows on random texts", () => {
    const db = sqlite();
    const stmt = db.prepare(WINDOW_SQL);
    try {
      for (let round = 0; round < 400; round += 1) {
        const doc = randomText();
        const words = ["flow", "layer", "é", "召回", "😀", "v1.0.21"].filter(
          () => randomInt(2) === 1,
        );
        if (words.length === 0) words.push("boundary");
        const expected = stmt.get(doc, doc, JSON.stringify(words));
        expect(bodyWindow(doc, words), JSON.stringify({ doc, words })).toEqual(expected);
      }
    } finally {
      db.close();
    }
  });

  it("find words made of pattern characters as plain text, and none when no word is asked", () => {
    const seed = Number(process.env.BODY_WINDOW_SEED) || randomInt(1, 2 ** 31);
    const random = new CorpusRandom(seed);
    const db = sqlite();
    const stmt = db.prepare(WINDOW_SQL);
    const specials = [
      "c++",
      "a.b",
      "(x)",
      "[y]",
      "$",
      "^",
      "|",
      "\\",
      "?",
      "*",
      "{2}",
      "/",
      "-",
      ".*",
    ];
    const pieces = [...specials, "cxx", "ab", "x", "y", " ", "\n", "é", "😀", "A.B", "C++"];
    try {
      for (let round = 0; round < 300; round += 1) {
        let doc = "";
        const n = random.between(0, 300);
        for (let i = 0; i < n; i += 1) doc += random.pick(pieces);
        const words = specials.filter(() => random.int(3) === 0);
        expect(bodyWindow(doc, words), `seed ${seed} (BODY_WINDOW_SEED replays it)`).toEqual(
          stmt.get(doc, doc, JSON.stringify(words)),
        );
      }
    } finally {
      db.close();
    }
  });

  it("equal SQLite's windows when one asked word begins another (a question's joined words)", () => {
    const db = sqlite();
    const stmt = db.prepare(WINDOW_SQL);
    const joined = ["flow", "flowboundary", "flowboundarylayer", "boundary", "boundarylayer"];
    try {
      for (let round = 0; round < 400; round += 1) {
        const doc = randomText();
        const words = [...joined, "layer", "layerflow", "é", "éflow", "v1.0", "v1.0.21"].filter(
          () => randomInt(3) === 1,
        );
        if (words.length === 0) words.push(...joined);
        const expected = stmt.get(doc, doc, JSON.stringify(words));
        expect(bodyWindow(doc, words), JSON.stringify({ doc, words })).toEqual(expected);
      }
    } finally {
      db.close();
    }
  });

  it("equal SQLite's windows on long pages, words found at, across and past where a page's start ends", () => {
    // A page's first 512 characters are searched before the whole page is folded.
    const seed = Number(process.env.BODY_WINDOW_SEED) || randomInt(1, 2 ** 31);
    const random = new CorpusRandom(seed);
    const db = sqlite();
    const stmt = db.prepare(WINDOW_SQL);
    const words = ["flow", "boundary layer", "é", "召回", "😀", "v1.0.21", "x"];
    try {
      for (let round = 0; round < 300; round += 1) {
        let text = "";
        const n = random.between(100, 500);
        for (let i = 0; i < n; i += 1) text += random.pick(PIECES.filter((p) => p !== "flow"));
        // One of the words placed just before, across or after character 512.
        const word = random.pick(words).toUpperCase();
        const at = Math.min(text.length, random.between(480, 530));
        const doc = `${text.slice(0, at)}${word}${text.slice(at)}`;
        const asked = words.filter(() => random.int(2) === 1);
        if (asked.length === 0) asked.push(random.pick(words));
        const expected = stmt.get(doc, doc, JSON.stringify(asked));
        expect(bodyWindow(doc, asked), `seed ${seed} (BODY_WINDOW_SEED replays it)`).toEqual(
          expected,
        );
      }
    } finally {
      db.close();
    }
  });

  it("find a word that begins in a page's start and ends past it, before a shorter one inside it", () => {
    const db = sqlite();
    try {
      const stmt = db.prepare(WINDOW_SQL);
      for (const at of [494, 500, 504, 508]) {
        const doc = `${"z ".repeat(at / 2)}RATE-LIMITING ${"tail ".repeat(200)}`;
        const words = ["limit", "rate-limiting"];
        expect(bodyWindow(doc, words)).toEqual(stmt.get(doc, doc, JSON.stringify(words)));
        expect(bodyWindow(doc, words).start).toBe(at + 1 - WINDOW_BEFORE);
      }
    } finally {
      db.close();
    }
  });

  it("find a word far into a long page and cut around it, as SQLite does", () => {
    const doc = `${"Intro words here. ".repeat(80)}The BOUNDARY layer separates. ${"Tail. ".repeat(200)}`;
    const w = bodyWindow(doc, ["boundary"]);
    expect(w.start).toBe(doc.indexOf("BOUNDARY") + 1 - WINDOW_BEFORE);
    expect(w.text).toContain("BOUNDARY layer");
    expect(w.text.length).toBe(WINDOW_CHARS);
  });

  it("fold ASCII letters only, as SQLite's lower does", () => {
    expect(sqliteLower("ÉCOLE Ärger ABC")).toBe("École Ärger abc");
  });

  it("tidy a window into one line: every run of spaces of any kind becomes one space", () => {
    const spaces = [" ", "  ", "\n", "\t", "\r\n", "\u00a0", "\u2028", "\u3000", "a", "bc", "é"];
    for (let round = 0; round < 500; round += 1) {
      let text = "";
      for (let i = randomInt(0, 40); i > 0; i -= 1) text += spaces[randomInt(spaces.length)];
      const oneLine = text.replace(/\s+/g, " ").trim();
      expect(tidyWindow(text, false, false), JSON.stringify(text)).toBe(oneLine);
    }
  });
});
