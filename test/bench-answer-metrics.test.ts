/**
 * Recall-answer metrics of the retrieval benchmark (memory bundles):
 * canonical-first, evidence precision and recall by bundle part, strict
 * contradiction coverage, duplicate and context waste, and the attribution
 * of a rendered block's characters to pages.
 */
import { describe, expect, it } from "vitest";
import {
  type AnswerRun,
  contextWaste,
  duplicateWaste,
  evaluateAnswer,
  evaluateAnswers,
} from "../extensions/llm-wiki/lib/bench/answer-metrics.ts";
import type { BenchmarkQuery } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { evaluateQuery } from "../extensions/llm-wiki/lib/bench/metrics.ts";
import { renderedCharsByPage } from "../extensions/llm-wiki/lib/bench/rendered-pages.ts";

const query: BenchmarkQuery = {
  id: "q-1",
  text: "which index location",
  category: "superseded",
  split: "train",
  judgments: [
    { pageId: "concepts/new", grade: 3, role: "canonical" },
    { pageId: "concepts/old", grade: 2, role: "canonical", historical: true },
    { pageId: "sources/a", grade: 2, role: "evidence" },
    { pageId: "sources/b", grade: 1, role: "evidence" },
  ],
  autoExpectation: "hit",
  expectedConflicts: ["sources/a", "sources/b"],
};

function run(items: [string, string][], rendered = "", auto: string[] = []): AnswerRun {
  return {
    queryId: "q-1",
    items: items.map(([pageId, part], bundle) => ({ pageId, part, bundle })),
    rendered,
    autoPageIds: auto,
  };
}

const section = (id: string, body: string, level = "###") =>
  `${level} ${id} (concept; score 0.50)\nid: ${id} · path: .llm-wiki/wiki/${id}.md\n> ${body}`;

describe("recall-answer metrics", () => {
  it("counts a historical page as relevant but never as the canonical answer", () => {
    const first = evaluateAnswer(query, run([["concepts/old", "card"]]));
    expect(first.canonicalFirst).toBe(0);
    expect(first.canonicalAt3).toBe(0);
    expect(first.recall20).toBe(0.25);
    const flat = evaluateQuery(query, {
      queryId: "q-1",
      rankedPageIds: ["concepts/old"],
      autoPageIds: [],
    });
    expect(flat.canonicalFirst).toBe(0);
    expect(flat.canonicalAt3).toBe(0);
    const right = evaluateAnswer(
      query,
      run([
        ["concepts/new", "card"],
        ["concepts/old", "superseded"],
      ]),
    );
    expect(right.canonicalFirst).toBe(1);
  });

  it("reads canonical-first and canonical@3 over the cards: evidence leading a bundle is its card's support", () => {
    const led = evaluateAnswer(
      query,
      run([
        ["sources/a", "evidence"],
        ["concepts/new", "card"],
      ]),
    );
    expect(led.canonicalFirst).toBe(1);
    const third = evaluateAnswer(
      query,
      run([
        ["concepts/x", "card"],
        ["sources/a", "evidence"],
        ["sources/b", "evidence"],
        ["concepts/y", "card"],
        ["concepts/new", "card"],
        ["concepts/z", "card"],
      ]),
    );
    expect(third.canonicalFirst).toBe(0);
    expect(third.canonicalAt3).toBe(1);
  });

  it("scores evidence precision and recall over evidence, unpromoted and competing items only", () => {
    const m = evaluateAnswer(
      query,
      run([
        ["concepts/new", "card"],
        ["sources/a", "evidence"],
        ["sources/x", "unpromoted"],
        ["sources/b", "competing"],
        ["concepts/other", "qualifier"],
      ]),
    );
    // a, b judged evidence; x not: precision 2/3; both judged shown: recall 1.
    expect(m.evidencePrecision20).toBe(2 / 3);
    expect(m.evidenceRecall20).toBe(1);
    expect(evaluateAnswer(query, run([["concepts/new", "card"]])).evidencePrecision20).toBeNull();
  });

  it("covers a conflict only when both sides are in the answer", () => {
    expect(evaluateAnswer(query, run([["sources/a", "card"]])).contradictionCovered).toBe(0);
    expect(
      evaluateAnswer(
        query,
        run([
          ["sources/a", "card"],
          ["sources/b", "competing"],
        ]),
      ).contradictionCovered,
    ).toBe(1);
  });

  it("measures duplicate waste as the share of repeated pages", () => {
    expect(duplicateWaste([])).toBeNull();
    expect(duplicateWaste(["a/x", "a/y", "a/x", "a/x"])).toBe(0.5);
  });

  it("attributes a rendered block's characters to pages, frame and conflict notes to none", () => {
    const a = section("concepts/new", "the index lives in the cache");
    const b = section("sources/x", "unrelated words", "####");
    const block = `<wiki-recall source="llm-wiki">\npreamble\n\n${a}\n\n${b}\nCONFLICT, unresolved: x and y\nAsk the user.\n</wiki-recall>`;
    const chars = renderedCharsByPage(block);
    expect(chars.get("concepts/new")).toBe(a.length + 2);
    expect(chars.get("sources/x")).toBe(b.length + 1);
    expect([...chars.keys()]).toEqual(["concepts/new", "sources/x"]);
    expect(contextWaste(block, new Set(["concepts/new"]))).toBeCloseTo(
      (b.length + 1) / block.length,
      9,
    );
    expect(contextWaste("", new Set())).toBeNull();
  });

  it("reports automatic false positives on negative queries and averages per split", () => {
    const negative: BenchmarkQuery = {
      id: "n-1",
      text: "unrelated",
      category: "negative",
      split: "heldout",
      judgments: [],
      autoExpectation: "none",
    };
    const report = evaluateAnswers(
      [query, negative],
      [run([["concepts/new", "card"]]), { ...run([], "", ["concepts/new"]), queryId: "n-1" }],
    );
    expect(report.heldout.autoFalsePositiveRate).toBe(1);
    expect(report.train.canonicalFirst).toBe(1);
    expect(report.all.queryCount).toBe(2);
    expect(report.heldout.contextWaste).toBeNull();
  });
});
