/**
 * The pure half of the QMD adapter: bounded excerpts around the query's
 * words, list-relative scores, query text safe for QMD's typed queries, and
 * QMD's reciprocal-rank fusion. No QMD, no I/O; qmd-store.ts feeds it rows.
 */
import type { LexTerm } from "./lex-query.ts";
import type { TermMatch } from "./qmd-store-types.ts";

/** Upper bound of an excerpt (`QmdHit.bestChunk`). */
export const EXCERPT_MAX_CHARS = 800;
/** Most hits one search returns. */
export const MAX_LIMIT = 200;
/** Excerpt window: this many characters before the first query word, this many in all. */
export const WINDOW_BEFORE = 120;
export const WINDOW_CHARS = 720;
/** QMD's reciprocal-rank constant and top-rank bonuses (store.js `reciprocalRankFusion`). */
const RRF_K = 60;

/** Plain words a term may appear as in a page body (phrases like "召 回" excepted). */
export function surfaces(terms: LexTerm[]): string[] {
  const out = new Set<string>();
  for (const term of terms) {
    out.add(term.text);
    for (const fts of term.fts) {
      const word = fts.slice(1, -1);
      if (!word.includes(" ")) out.add(word);
    }
  }
  return [...out];
}

/** Tidies a body window: whole words at cut edges, one line, ellipses where cut. */
export function tidyWindow(text: string, cutStart: boolean, cutEnd: boolean): string {
  let t = text;
  if (cutStart) t = t.replace(/^\S{0,30}\s/, "");
  if (cutEnd) t = t.replace(/\s\S{0,30}$/, "");
  // Every run of spaces becomes one space; matching only the runs that are
  // not already one plain space is what keeps this cheap (a hundred hits).
  t = t.replace(/\s{2,}|[^\S ]/g, " ").trim();
  return `${cutStart ? "…" : ""}${t}${cutEnd ? "…" : ""}`;
}

/** QMD's chunk as one line, cut to EXCERPT_MAX_CHARS around the first query word found. */
export function boundExcerpt(chunk: string, terms: LexTerm[]): string {
  const text = chunk.replace(/\s+/g, " ").trim();
  if (text.length <= EXCERPT_MAX_CHARS) return text;
  const lower = text.toLowerCase();
  const found = surfaces(terms)
    .map((word) => lower.indexOf(word))
    .filter((i) => i >= 0);
  const at = found.length > 0 ? Math.min(...found) : 0;
  const start = Math.max(0, Math.min(at - WINDOW_BEFORE, text.length - WINDOW_CHARS));
  const end = Math.min(text.length, start + WINDOW_CHARS);
  return tidyWindow(text.slice(start, end), start > 0, end < text.length);
}

export function clampLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(0, Math.min(MAX_LIMIT, Math.floor(limit)));
}

/** `rawScore / max` times a list-wide factor; stable for an all-zero list. */
export function normalise<T extends { rawScore: number }>(
  hits: T[],
  factor = 1,
): Array<T & { score: number }> {
  const max = Math.max(0, ...hits.map((h) => h.rawScore));
  return hits.map((h) => ({ ...h, score: max > 0 ? (h.rawScore / max) * factor : factor }));
}

/** Query text safe for QMD's typed queries: one line, no `-negation`. */
export function plainQuery(query: string): string {
  return query
    .normalize("NFKC")
    .replace(/\s+/g, " ")
    .replace(/(^|\s)-+(?=\S)/g, "$1")
    .trim();
}

/**
 * QMD's reciprocal-rank fusion (k = 60; +0.05 for a list's first, +0.02 for
 * its second and third), with equal weights: every list answers the original
 * query. A page keeps its best confidence and the first excerpt found. Ties
 * break by key, so the order is deterministic.
 */
export function fuse(lists: Candidate[][], limit: number) {
  const fused = new Map<
    string,
    { candidate: Candidate; rrf: number; top: number; lists: Set<number> }
  >();
  lists.forEach((list, index) => {
    list.forEach((candidate, rank) => {
      const entry = fused.get(candidate.key) ?? {
        candidate,
        rrf: 0,
        top: rank,
        lists: new Set<number>(),
      };
      entry.rrf += 1 / (RRF_K + rank + 1);
      entry.top = Math.min(entry.top, rank);
      entry.lists.add(index);
      entry.candidate = {
        ...entry.candidate,
        confidence: Math.max(entry.candidate.confidence, candidate.confidence),
        ...(!entry.candidate.bestChunk && candidate.bestChunk
          ? { bestChunk: candidate.bestChunk }
          : {}),
      };
      fused.set(candidate.key, entry);
    });
  });
  return [...fused.values()]
    .map((e) => ({ ...e, rrf: e.rrf + (e.top === 0 ? 0.05 : e.top <= 2 ? 0.02 : 0) }))
    .sort((a, b) => b.rrf - a.rrf || a.candidate.key.localeCompare(b.candidate.key))
    .slice(0, limit);
}

/** A page on its way to becoming a hit. */
export interface Candidate {
  /** `collection/path`, unique within a store. */
  key: string;
  collection: string;
  path: string;
  title: string;
  rawScore: number;
  confidence: number;
  bestChunk?: string;
  /** Lexical candidates: how each query term matched (see qmd-lexical.ts). */
  matches?: TermMatch[];
}
