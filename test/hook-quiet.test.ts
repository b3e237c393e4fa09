/**
 * The line a hook prints on stderr when it prints no block names the real
 * cause: on a session's first prompt, pages that matched but were primed at
 * its start are "already given", not "without the confidence recall needs".
 */
import { describe, expect, it } from "vitest";
import { quietReason } from "../cli/hook-quiet.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";

type Quiet = Pick<RecallResult, "results" | "diagnostics" | "trace" | "alreadyGiven">;

const searched = (hits: number): Quiet["trace"] => [
  { step: "search", vault: "project", hits } as Quiet["trace"][number],
];

describe("why a hook printed no block", () => {
  it("says the matching pages were already given at the session's start", () => {
    const line = quietReason("recall", {
      results: [],
      diagnostics: [],
      trace: searched(2),
      alreadyGiven: 2,
    });
    expect(line).toBe(
      "nothing recalled: the 2 page(s) this prompt matches were already given at the session's start",
    );
  });

  it("keeps the confidence reason when nothing was left out", () => {
    for (const alreadyGiven of [undefined, 0]) {
      const line = quietReason("recall", {
        results: [],
        diagnostics: [],
        trace: searched(3),
        ...(alreadyGiven === undefined ? {} : { alreadyGiven }),
      });
      expect(line).toMatch(/3 page\(s\) matched words of this prompt, none with the confidence/);
    }
  });
});
