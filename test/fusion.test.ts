import { describe, expect, it } from "vitest";
import {
  fuseByRank,
  fuseScored,
  reciprocalRank,
  topRankBonus,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";

const id = (s: string) => s;

describe("reciprocal-rank fusion", () => {
  it("orders by the fused score it reports, top-rank bonus included", () => {
    // Without the bonus in the order, B (2nd in both lists) would lead a list
    // whose reported scores put A and C above it: the adaptive margin check
    // would then read a near-tie that is not there.
    const fused = fuseScored(
      [
        ["A", "B", "X", "Y", "Z"],
        ["C", "B", "X", "Y", "Z", "A"],
      ],
      id,
      topRankBonus,
    );
    expect(fused.map((f) => f.item)).toEqual(["A", "C", "B", "X", "Y", "Z"]);
    const scores = fused.map((f) => f.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(fused[0]?.score).toBeCloseTo(reciprocalRank(0) + reciprocalRank(5) + 0.05, 12);
    const margin = 1 - (fused[1]?.score ?? 0) / (fused[0]?.score ?? 1);
    expect(margin).toBeGreaterThan(0.08);
  });

  it("without a bonus ranks by summed reciprocal rank, earlier lists winning ties", () => {
    expect(
      fuseByRank(
        [
          ["A", "B"],
          ["B", "C"],
        ],
        id,
      ),
    ).toEqual(["B", "A", "C"]);
    expect(fuseByRank([["P"], ["Q"]], id)).toEqual(["P", "Q"]);
  });
});
