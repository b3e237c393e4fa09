/**
 * Excerpts are cut in JavaScript from the page text (index/body-window.ts),
 * and must be the windows SQLite cut before, character for character:
 * SQLite folds ASCII letters only, counts positions in code points and
 * stops `length` at a NUL. The oracle is SQLite itself (the one QMD loads),
 * run on random texts with accents, emoji, CJK, NULs and mixed case.
 */
import { randomInt } from "node:crypto";
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bodyWindow, sqliteLower } from "../extensions/llm-wiki/lib/index/body-window.ts";
import {
  tidyWindow,
  WINDOW_BEFORE,
  WINDOW_CHARS,
} from "../extensions/llm-wiki/lib/index/qmd-excerpts.ts";

const root = join(import.meta.dirname, "..");

interface Db {
  prepare(sql: string): { get(...a: unknown[]): unknown };
  close(): void;
}

function sqlite(): Db {
  const qmdRequire = createRequire(
    realpathSync(join(root, "node_modules", "@tobilu", "qmd", "package.json")),
  );
  const Database = qmdRequire("better-sqlite3") as new (path: string) => Db;
  return new Database(":memory:");
}

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
