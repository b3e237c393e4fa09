/**
 * Feedback in ranking: after retrieval, each hit's score is multiplied by
 * 1 + its page's feedback adjustment (within ±FEEDBACK_MAX), and the list
 * re-sorted. It reorders what retrieval found and nothing else: no page is
 * added or removed, and assembly (which keeps conflict neighbours together)
 * runs after it.
 */
import type { RetrievalHit } from "../retrieval.ts";
import type { FeedbackAdjustments } from "./projection.ts";

/** Hits reordered by feedback; the same array when no hit has any. */
export function preferFeedback<T extends Pick<RetrievalHit, "id" | "vault" | "score">>(
  hits: readonly T[],
  projectionOf: (vault: T["vault"]) => FeedbackAdjustments | undefined,
  queryHash: string | undefined,
  now: number,
): { hits: T[]; adjusted: Map<string, number> } {
  const adjusted = new Map<string, number>();
  const scored = hits.map((hit, i) => {
    const adj = projectionOf(hit.vault)?.adjustment(hit.id, queryHash, now) ?? 0;
    if (adj !== 0) adjusted.set(`${hit.vault}:${hit.id}`, adj);
    return { hit, i, score: hit.score * (1 + adj) };
  });
  if (adjusted.size === 0) return { hits: [...hits], adjusted };
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return {
    hits: scored.map(({ hit, score }) => (score === hit.score ? hit : { ...hit, score })),
    adjusted,
  };
}
