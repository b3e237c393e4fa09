/**
 * An answer cut to its budget never leaves the recall block open: the model
 * reads an opening fence only with its end. Random answers (a listing, then
 * a block of random lines) cut at random budgets, generated afresh each run.
 */
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CUT_MARKER, withinBudget } from "../extensions/llm-wiki/lib/answer-budget.ts";
import { randomWords } from "./helpers/random-text.ts";

/** The block's fence lines, as every host prints them. */
const OPEN = '<wiki-recall source="llm-wiki">';
const CLOSE = "</wiki-recall>";

function answer(): string {
  const listing = Array.from({ length: randomInt(0, 6) }, (_, i) => `${i + 1}. ${randomWords(4)}`);
  const block = Array.from({ length: randomInt(1, 40) }, () => randomWords(randomInt(1, 20)));
  return [`${listing.length} page(s)`, ...listing, "", OPEN, ...block, CLOSE].join("\n");
}

describe("withinBudget", () => {
  it("keeps what fits, marks a cut, and closes a block the cut would leave open", () => {
    for (let i = 0; i < 500; i += 1) {
      const text = answer();
      const max = randomInt(CUT_MARKER.length + CLOSE.length + 2, text.length + 50);
      const out = withinBudget(text, max);
      // The case itself, so a failure can be replayed whatever was drawn.
      const at = `withinBudget(${JSON.stringify(text)}, ${max})`;
      expect(out.length, at).toBeLessThanOrEqual(max);
      if (text.length <= max) {
        expect(out, at).toBe(text);
        continue;
      }
      expect(out.endsWith(CUT_MARKER), at).toBe(true);
      const lines = out.split("\n");
      const opens = lines.filter((l) => l === OPEN).length;
      const closes = lines.filter((l) => l === CLOSE).length;
      expect(opens, at).toBe(closes);
      if (opens === 1) expect(lines.indexOf(CLOSE), at).toBeGreaterThan(lines.indexOf(OPEN));
    }
  });
});
