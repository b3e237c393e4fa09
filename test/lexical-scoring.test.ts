/**
 * The lexical second pass, pure: term proximity rewards query words close
 * together, feedback terms come from the best pages' own words (never the
 * query's or stop words) and weigh 1 together, and a vague query (best page
 * under the clarity gate, which is stricter in a vault of few pages) is left
 * as BM25 ranked it.
 */
import { describe, expect, it } from "vitest";
import { tokenizedDoc } from "../extensions/llm-wiki/lib/lexical/bm25.ts";
import { ftsTokens } from "../extensions/llm-wiki/lib/lexical/fts-tokens.ts";
import { distinctTerms, proximityScore } from "../extensions/llm-wiki/lib/lexical/proximity.ts";
import { feedbackTerms } from "../extensions/llm-wiki/lib/lexical/relevance-feedback.ts";
import {
  DEFAULT_SCORING,
  secondPass,
  withScoring,
} from "../extensions/llm-wiki/lib/lexical/scoring.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";

const doc = (body: string, title = "") => tokenizedDoc([], ftsTokens(title), ftsTokens(body));

describe("lexical second pass", () => {
  it("scores two query words higher the closer they stand, and nothing for one word", () => {
    const [a, b] = [randomWord(6, 9), randomWord(6, 9)];
    const filler = randomWords(8, 5, 8);
    const terms = distinctTerms([
      { stem: ftsTokens(a)[0] ?? a, weight: 2 },
      { stem: ftsTokens(b)[0] ?? b, weight: 1 },
    ]);
    const near = proximityScore(doc(`${a} ${b} ${filler}`), terms, 1.2);
    const apart = proximityScore(doc(`${a} ${randomWords(3, 5, 8)} ${b} ${filler}`), terms, 1.2);
    const far = proximityScore(doc(`${a} ${filler} ${b}`), terms, 1.2);
    expect(near).toBeGreaterThan(apart);
    expect(apart).toBeGreaterThan(far);
    expect(far).toBe(0);
    expect(proximityScore(doc(`${a} ${a} ${filler}`), terms, 1.2)).toBe(0);
  });

  it("draws feedback terms from the best pages, without the query's words or stop words", () => {
    const [topic, shared, other] = [randomWord(6, 9), randomWord(6, 9), randomWord(6, 9)];
    const stem = (w: string) => ftsTokens(w)[0] ?? w;
    const ranked = [
      { doc: doc(`${topic} ${shared} ${shared} the of`), score: 3 },
      { doc: doc(`${topic} ${shared} ${other}`), score: 1 },
    ];
    const terms = feedbackTerms(ranked, new Set([stem(topic), "the", "of"]), 5);
    expect(terms[0]?.stem).toBe(stem(shared));
    expect(terms.map((t) => t.stem)).not.toContain(stem(topic));
    expect(terms.map((t) => t.stem)).not.toContain("the");
    expect(terms.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 9);
  });

  it("weighs each page's words by its score, and with sharpness the best page's far more", () => {
    const [top, lower] = [randomWord(6, 9), randomWord(6, 9)];
    const stem = (w: string) => ftsTokens(w)[0] ?? w;
    const filler = randomWords(4, 5, 8);
    const ranked = [
      { doc: doc(`${top} ${filler}`), score: 10 },
      { doc: doc(`${lower} ${filler}`), score: 5 },
    ];
    const ratio = (sharpness: number) => {
      const terms = feedbackTerms(ranked, new Set(), 20, sharpness);
      const weight = (w: string) => terms.find((t) => t.stem === stem(w))?.weight ?? 0;
      return weight(top) / weight(lower);
    };
    // In proportion to the scores: twice the weight.
    expect(ratio(0)).toBeCloseTo(2, 9);
    // As a likelihood: exp(0.5 × 5) times the weight.
    expect(ratio(0.5)).toBeCloseTo(Math.exp(2.5), 6);
  });

  it("leaves a vague query's order alone: feedback runs only past the clarity gate", () => {
    const pool = [
      { doc: doc(randomWords(10, 5, 8)), score: 1 },
      { doc: doc(randomWords(10, 5, 8)), score: 0.5 },
    ];
    const terms = [{ stems: [randomWord()], weight: 2 }];
    const scoring = withScoring(DEFAULT_SCORING, {
      proximity: 0,
      feedback: { minConfidence: 0.9 },
    });
    let probed = 0;
    const df = (stems: string[]) => {
      probed += 1;
      return new Map(stems.map((s) => [s, 2]));
    };
    const stats = { documents: 1000, averageLength: 10 };
    // Ceiling 10: the best page's confidence 0.1 is under the gate; nothing is probed or added.
    expect(secondPass(pool, terms, 10, stats, scoring, new Set(), df, 256)).toEqual([1, 0.5]);
    expect(probed).toBe(0);
    // Ceiling 1: confidence 1 passes, and the feedback terms are probed.
    secondPass(pool, terms, 1, stats, scoring, new Set(), df, 256);
    expect(probed).toBe(1);
  });

  it("counts feedback stems best first, only until it has its terms: later stems never change the answer", () => {
    const vocabulary = randomWords(240, 5, 9).split(" ");
    const pick = () => vocabulary[Math.floor(Math.random() * vocabulary.length)] as string;
    const pool = Array.from({ length: 14 }, (_, i) => ({
      doc: doc(Array.from({ length: 60 }, pick).join(" "), `${pick()} ${pick()}`),
      score: 6 - i * 0.3,
    }));
    const terms = [{ stems: ftsTokens(pick()), weight: 3 }];
    const counts = new Map<string, number>();
    // Most stems of useful frequency, some on one page or too common to weigh.
    const draw = () => [0, 1, 300, 2, 7, 40, 120, 5, 18][Math.floor(Math.random() * 9)] as number;
    const run = (counted: (stem: string) => number) => {
      const asked: string[] = [];
      const df = (stems: string[]) => {
        asked.push(...stems);
        return new Map(stems.map((s) => [s, counted(s)]));
      };
      const stats = { documents: 5000, averageLength: 60 };
      return {
        scores: secondPass(pool, terms, 1, stats, DEFAULT_SCORING, new Set(), df, 256),
        asked,
      };
    };
    const first = run((s) => {
      if (!counts.has(s)) counts.set(s, draw());
      return counts.get(s) as number;
    });
    // The relevance model of the best 10 pages, as the pass draws it.
    const candidates = feedbackTerms(pool.slice(0, 10), new Set(terms[0]?.stems), 60, 0.75).map(
      (t) => t.stem,
    );
    // Asked best first, and fewer than every candidate.
    expect(first.asked).toEqual(candidates.slice(0, first.asked.length));
    expect(first.asked.length).toBeLessThan(candidates.length);
    // Stems it never asked about may count anything: the same scores.
    const again = run((s) => (counts.has(s) ? (counts.get(s) as number) : draw()));
    expect(again.scores).toEqual(first.scores);
    expect(first.scores.some((score, i) => score !== pool[i]?.score)).toBe(true);
  });

  it("asks a small vault for a clearer query before feedback runs", () => {
    const pool = [
      { doc: doc(randomWords(10, 5, 8)), score: 3 },
      { doc: doc(randomWords(10, 5, 8)), score: 1 },
    ];
    const terms = [{ stems: [randomWord()], weight: 2 }];
    const scoring = withScoring(DEFAULT_SCORING, {
      proximity: 0,
      feedback: { minConfidence: 0.2, smallVault: { pages: 200, minConfidence: 0.45 } },
    });
    const probes = (documents: number) => {
      let probed = 0;
      const df = (stems: string[]) => {
        probed += 1;
        return new Map(stems.map((s) => [s, 2]));
      };
      // Ceiling 10: the best page's confidence is 0.3, between the two gates.
      secondPass(pool, terms, 10, { documents, averageLength: 10 }, scoring, new Set(), df, 256);
      return probed;
    };
    expect(probes(199)).toBe(0);
    expect(probes(200)).toBe(1);
    expect(probes(5000)).toBe(1);
  });
});
