/**
 * One vault's store lists as candidates: each hit's absolute confidence,
 * its lexical evidence and its standing in the mode's own ranked list
 * (lexical alone, lexical fused with vectors, or the reranked list).
 */
import type { QmdHit } from "../index/qmd-store-types.ts";
import { fuseScored, topRankBonus } from "../retrieval-policy.ts";
import type { Candidate } from "./retrieval-types.ts";

/** The absolute confidence a store list gives a hit (lexical coverage, vector similarity, rerank score). */
function confidenceOf(hit: QmdHit): number {
  return Math.max(0, Math.min(1, hit.confidence ?? hit.score));
}

/** A store list as candidates, standing by the list's own scores. */
export function candidatesOf(hits: QmdHit[]): Candidate[] {
  return hits.map((hit) => {
    const confidence = confidenceOf(hit);
    return { hit, confidence, lexical: hit.source === "fts" ? confidence : 0, standing: hit.score };
  });
}

/**
 * The reranked list as candidates, each carrying what the lexical list said of
 * its page (confidence and matched terms; nothing when only the expansion or
 * the vectors found it). The reranker orders and judges usefulness, but it
 * is no candidate generator and no evidence (the design's "cannot create
 * evidence"): automatic recall admits a reranked page on this lexical
 * evidence alone, as it does a fused one.
 */
export function withLexicalEvidence(reranked: QmdHit[], lex: QmdHit[]): Candidate[] {
  const lexical = new Map(lex.map((h) => [h.pageId, h]));
  return candidatesOf(reranked).map((candidate) => {
    const own = lexical.get(candidate.hit.pageId);
    const { matches: _reranked, ...hit } = candidate.hit;
    return {
      ...candidate,
      hit: own?.matches ? { ...hit, matches: own.matches } : hit,
      lexical: own ? confidenceOf(own) : 0,
    };
  });
}

/**
 * Fuses a lexical and a vector list by rank; a page's confidence is its best
 * evidence, its standing its fused reciprocal rank (plus QMD's top-rank
 * bonus) over the best one's, and the list is in standing order. The two
 * lists' own scores are not comparable: a vector-only hit must not pass a
 * page both lists rank higher.
 */
export function fuseLexVec(lex: QmdHit[], vec: QmdHit[]): Candidate[] {
  const best = new Map<string, number>();
  for (const h of [...lex, ...vec]) {
    best.set(h.pageId, Math.max(best.get(h.pageId) ?? 0, confidenceOf(h)));
  }
  const lexical = new Map(lex.map((h) => [h.pageId, confidenceOf(h)]));
  const fused = fuseScored([lex, vec], (h) => h.pageId, topRankBonus);
  const top = fused[0]?.score ?? 0;
  return fused.map(({ item, score }) => ({
    hit: { ...item, source: "hybrid" },
    confidence: best.get(item.pageId) ?? 0,
    lexical: lexical.get(item.pageId) ?? 0,
    standing: top > 0 ? score / top : 0,
  }));
}
