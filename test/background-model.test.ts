/**
 * The background term model's lookup: every term of the shipped table gives
 * its own count, and any other word (a prefix or extension of a listed
 * term, a random word, an empty or spaced string) the unseen count, 0.
 */
import { describe, expect, it } from "vitest";
import { backgroundShare } from "../extensions/llm-wiki/lib/lexical/background.ts";
import {
  BACKGROUND_PASSAGES,
  BACKGROUND_TERMS,
} from "../extensions/llm-wiki/lib/lexical/background-terms.ts";
import { randomWord } from "./helpers/random-text.ts";

const share = (count: number) => (count + 0.5) / (BACKGROUND_PASSAGES + 1);
const table = new Map(
  BACKGROUND_TERMS.split("\n").map((line) => {
    const [term = "", count = "0"] = line.split(" ");
    return [term, Number(count)] as const;
  }),
);

describe("background term model", () => {
  it("gives every listed term its own count", () => {
    expect(table.size).toBeGreaterThan(1000);
    for (const [term, count] of table) expect(backgroundShare([term]), term).toBe(share(count));
  });

  it("gives any other word the unseen count", () => {
    const terms = [...table.keys()];
    const others = [
      "",
      " ",
      "a b",
      "\n",
      ...terms.slice(0, 50).map((t) => `${t}\u0000`),
      ...terms
        .filter((t) => t.length > 2)
        .slice(0, 50)
        .map((t) => t.slice(0, -1)),
      ...terms.slice(-50).map((t) => `${t}zz`),
      ...Array.from({ length: 200 }, () => randomWord(3, 12)),
    ].filter((w) => !table.has(w));
    for (const word of others) expect(backgroundShare([word]), JSON.stringify(word)).toBe(share(0));
  });
});
