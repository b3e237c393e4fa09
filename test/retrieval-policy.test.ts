/**
 * The pure retrieval policy (`retrieval-policy.ts`): query normalisation, the
 * adaptive escalation triggers with the Phase 3 plan's pinned examples, the
 * bounded final multiplier, reciprocal-rank fusion and the two recall
 * policies' constants (DESIGN.md, "Retrieval policy").
 */
import { describe, expect, it } from "vitest";
import {
  AUTOMATIC_POLICY,
  boundedMultiplier,
  ESCALATE_JACCARD,
  ESCALATE_MARGIN,
  type EscalationInput,
  EXACT_NO_ESCALATE,
  EXPLICIT_DEFAULT_RESULTS,
  EXPLICIT_MAX_RESULTS,
  escalationReason,
  explicitPolicy,
  fuseByRank,
  interrogativePrefix,
  jaccardOverlap,
  normalizeQuery,
  QUERY_MAX_CHARS,
  RRF_K,
  reciprocalRank,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";

/** An input on which no trigger fires: clear margin, identical lists, a statement. */
function calm(overrides: Partial<EscalationInput> = {}): EscalationInput {
  return {
    query: "cached response design",
    scores: [1, 0.5],
    lexTop5: ["a", "b", "c"],
    vecTop5: ["a", "b", "c"],
    exactConfidence: 0,
    ...overrides,
  };
}

describe("normalizeQuery", () => {
  it("applies NFKC, trims and collapses whitespace", () => {
    expect(normalizeQuery("  ｃａｃｈｅ\t\n  ﬁle   policy  ")).toEqual({
      ok: true,
      query: "cache file policy",
    });
    expect(normalizeQuery("a\u00a0\u3000b")).toEqual({ ok: true, query: "a b" });
  });

  it("keeps punctuation, quoted phrases, path separators and identifier characters", () => {
    const text = `"wiki_reindex --force" src/lib/qmd-store.ts v1.0.21 foo-bar (x) C++ #42 a.b:c?`;
    expect(normalizeQuery(text)).toEqual({ ok: true, query: text });
  });

  it("turns an empty or blank query into recall_query_empty, not an error", () => {
    for (const raw of ["", "   ", "\n\t \u3000"]) {
      const result = normalizeQuery(raw);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.diagnostic).toMatchObject({ code: "recall_query_empty", severity: "info" });
    }
  });

  it("refuses 2,001 characters with recall_query_too_long and never truncates", () => {
    expect(QUERY_MAX_CHARS).toBe(2_000);
    const long = "x".repeat(QUERY_MAX_CHARS + 1);
    const result = normalizeQuery(long);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostic.code).toBe("recall_query_too_long");
    expect(result.diagnostic.severity).not.toBe("error");
    expect(result.diagnostic.message).toContain("2001");
    expect(result).not.toHaveProperty("query");
  });

  it("accepts exactly 2,000 characters unchanged", () => {
    const max = "y".repeat(QUERY_MAX_CHARS);
    expect(normalizeQuery(max)).toEqual({ ok: true, query: max });
  });

  it("measures the length after normalisation: collapsed whitespace does not count", () => {
    // 1,000 words of one letter: 2,999 raw characters, 1,999 once collapsed.
    const raw = Array.from({ length: 1_000 }, () => "z").join("   ");
    expect(raw.length).toBeGreaterThan(QUERY_MAX_CHARS);
    const result = normalizeQuery(raw);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.query.length).toBe(1_999);
  });
});

describe("interrogativePrefix", () => {
  it("is true for a question word first, false otherwise (plan's pinned pair)", () => {
    expect(interrogativePrefix("who designed the cache")).toBe(true);
    expect(interrogativePrefix("cached response design")).toBe(false);
  });

  it("ignores case, leading space and trailing punctuation, but not a longer word", () => {
    for (const q of [
      "What is RRF",
      "  how does sync work",
      "Why? the cache",
      "which vault",
      "when",
      "where is it",
      "compare lexical and hybrid",
      "explain the floor",
    ]) {
      expect(interrogativePrefix(q), q).toBe(true);
    }
    for (const q of ["whoever wrote this", "showcase the cache", "the how of sync", "", "   "]) {
      expect(interrogativePrefix(q), q).toBe(false);
    }
  });
});

describe("jaccardOverlap", () => {
  it("is |A ∩ B| / |A ∪ B| (plan's pinned example: 1/5)", () => {
    expect(jaccardOverlap(["a", "b", "c"], ["a", "d", "e"])).toBe(1 / 5);
    expect(jaccardOverlap(["a", "b"], ["a", "b"])).toBe(1);
    expect(jaccardOverlap(["a"], ["b"])).toBe(0);
  });

  it("counts duplicates once and treats two empty lists as full agreement", () => {
    expect(jaccardOverlap(["a", "a", "b"], ["b", "b"])).toBe(1 / 2);
    expect(jaccardOverlap([], [])).toBe(1);
    expect(jaccardOverlap(["a"], [])).toBe(0);
  });
});

describe("escalationReason", () => {
  it("pins the constants: margin 0.08, overlap 0.40, exact 0.80", () => {
    expect(ESCALATE_MARGIN).toBe(0.08);
    expect(ESCALATE_JACCARD).toBe(0.4);
    expect(EXACT_NO_ESCALATE).toBe(0.8);
  });

  it("stays when no trigger fires", () => {
    expect(escalationReason(calm())).toBeUndefined();
  });

  it("has a contradiction-edge hook that fires only when a caller reports an edge", () => {
    // No relation projection exists yet: retrieval always passes false.
    expect(escalationReason({ ...calm(), contradictionEdge: false })).toBeUndefined();
    expect(escalationReason({ ...calm(), contradictionEdge: true })).toBe("contradiction");
    expect(
      escalationReason({ ...calm(), contradictionEdge: true, exactConfidence: 0.9 }),
    ).toBeUndefined();
  });

  it("escalates a two-hit list with margin 0.07, not one with margin 0.12", () => {
    expect(escalationReason(calm({ scores: [0.9, 0.83] }))).toBe("margin");
    expect(escalationReason(calm({ scores: [0.9, 0.78] }))).toBeUndefined();
  });

  it("needs two hits for a margin: a single hit does not escalate on it", () => {
    expect(escalationReason(calm({ scores: [0.3] }))).toBeUndefined();
    expect(escalationReason(calm({ scores: [] }))).toBeUndefined();
  });

  it("escalates when the lexical and vector top 5 overlap below 0.40", () => {
    expect(escalationReason(calm({ lexTop5: ["a", "b", "c"], vecTop5: ["a", "d", "e"] }))).toBe(
      "overlap",
    );
    // Exactly 0.40 (2 of 5) is enough agreement.
    expect(
      escalationReason(calm({ lexTop5: ["a", "b"], vecTop5: ["a", "b", "c", "d", "e"] })),
    ).toBeUndefined();
  });

  it("escalates an interrogative query", () => {
    expect(escalationReason(calm({ query: "who designed the cache" }))).toBe("interrogative");
  });

  it("never escalates when an exact match has confidence ≥ 0.80, whatever else fires", () => {
    const everything = calm({
      query: "how does the cache work",
      scores: [0.5, 0.49],
      lexTop5: ["a"],
      vecTop5: ["b"],
    });
    expect(escalationReason(everything)).toBe("margin");
    expect(escalationReason({ ...everything, exactConfidence: 0.8 })).toBeUndefined();
    expect(escalationReason({ ...everything, exactConfidence: 1 })).toBeUndefined();
    expect(escalationReason({ ...everything, exactConfidence: 0.79 })).toBeDefined();
  });
});

describe("boundedMultiplier", () => {
  it("adds exact +0.05, canonical +0.03, evidence −0.02, deprecated −0.08", () => {
    expect(boundedMultiplier(true, "canonical", false)).toBeCloseTo(1.08, 10);
    expect(boundedMultiplier(false, "canonical", false)).toBeCloseTo(1.03, 10);
    expect(boundedMultiplier(true, "evidence", false)).toBeCloseTo(1.03, 10);
    expect(boundedMultiplier(false, "evidence", false)).toBeCloseTo(0.98, 10);
    expect(boundedMultiplier(false, "canonical", true)).toBeCloseTo(0.95, 10);
    expect(boundedMultiplier(true, "canonical", true)).toBeCloseTo(1.0, 10);
    expect(boundedMultiplier(true, "evidence", true)).toBeCloseTo(0.95, 10);
    expect(boundedMultiplier(false, "evidence", true)).toBeCloseTo(0.9, 10);
  });

  it("ranks a deprecated page below its live twin and evidence below canonical", () => {
    expect(boundedMultiplier(false, "canonical", true)).toBeLessThan(
      boundedMultiplier(false, "canonical", false),
    );
    expect(boundedMultiplier(false, "evidence", false)).toBeLessThan(
      boundedMultiplier(false, "canonical", false),
    );
  });
});

describe("reciprocal-rank fusion", () => {
  it("gives a 1-based rank r the weight 1/(60 + r)", () => {
    expect(RRF_K).toBe(60);
    expect(reciprocalRank(0)).toBe(1 / 61);
    expect(reciprocalRank(4)).toBe(1 / 65);
  });

  it("interleaves two lists, the earlier list (the project) first on every tie", () => {
    const project = ["p1", "p2", "p3"];
    const personal = ["q1", "q2"];
    expect(fuseByRank([project, personal], (x) => x)).toEqual(["p1", "q1", "p2", "q2", "p3"]);
    expect(fuseByRank([personal, project], (x) => x)).toEqual(["q1", "p1", "q2", "p2", "p3"]);
  });

  it("sums the reciprocal ranks of an item found in both lists", () => {
    // b: 1/62 + 1/61 beats a's 1/61 alone.
    expect(
      fuseByRank(
        [
          ["a", "b"],
          ["b", "c"],
        ],
        (x) => x,
      ),
    ).toEqual(["b", "a", "c"]);
  });

  it("keeps the first list's item for a shared key, and an empty input gives nothing", () => {
    const lex = [{ id: "a", from: "lex" }];
    const vec = [{ id: "a", from: "vec" }];
    expect(fuseByRank([lex, vec], (x) => x.id)).toEqual([{ id: "a", from: "lex" }]);
    expect(fuseByRank<string>([], (x) => x)).toEqual([]);
    expect(fuseByRank<string>([[], []], (x) => x)).toEqual([]);
  });

  it("is deterministic: the same lists always fuse to the same order", () => {
    const lists = [
      ["c", "a", "b", "d"],
      ["b", "c", "e"],
      ["e", "a"],
    ];
    const first = fuseByRank(lists, (x) => x);
    for (let i = 0; i < 5; i += 1) expect(fuseByRank(lists, (x) => x)).toEqual(first);
  });
});

describe("recall policies", () => {
  it("automatic: project vault only, floor 0.30 plus vault evidence, at most 3 results and 10 candidates per vault", () => {
    expect(AUTOMATIC_POLICY).toEqual({
      name: "automatic",
      includePersonal: false,
      minScore: 0.3,
      maxPerVault: 10,
      maxResults: 3,
      minEvidence: 1.25,
    });
    expect(Object.isFrozen(AUTOMATIC_POLICY)).toBe(true);
  });

  it("explicit: both vaults, floor 0.25, 5 results by default and at most 10", () => {
    expect(EXPLICIT_DEFAULT_RESULTS).toBe(5);
    expect(EXPLICIT_MAX_RESULTS).toBe(10);
    expect(explicitPolicy()).toEqual({
      name: "explicit",
      includePersonal: true,
      minScore: 0.25,
      maxPerVault: 10,
      maxResults: 5,
    });
    expect(explicitPolicy(10).maxResults).toBe(10);
    expect(explicitPolicy(99).maxResults).toBe(10);
    expect(explicitPolicy(3.7).maxResults).toBe(3);
    expect(explicitPolicy(0).maxResults).toBe(1);
    expect(explicitPolicy(-4).maxResults).toBe(1);
  });
});
