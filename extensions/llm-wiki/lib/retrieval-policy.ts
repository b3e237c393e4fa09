/**
 * The pure parts of retrieval: query normalisation, adaptive escalation
 * triggers, the bounded final multiplier, reciprocal-rank fusion and the
 * recall policies. Constants come from the Phase 3 plan (DESIGN.md); change
 * them only with benchmark evidence.
 */
import { type Diagnostic, diagnostic } from "./diagnostics.ts";
import { AUTOMATIC_EVIDENCE } from "./recall-evidence.ts";

export const QUERY_MAX_CHARS = 2_000;
export const RRF_K = 60;
export const ESCALATE_MARGIN = 0.08;
export const ESCALATE_JACCARD = 0.4;
export const EXACT_NO_ESCALATE = 0.8;

/** How many results recall returns and how confident each must be. */
export interface RecallPolicy {
  name: "automatic" | "explicit";
  includePersonal: boolean;
  /** Floor on the final score (confidence × bounded multiplier). */
  minScore: number;
  maxPerVault: number;
  maxResults: number;
  /**
   * Lexical evidence (recall-evidence.ts) a page needs besides the floor,
   * unless the query names it specifically; absent: none needed.
   */
  minEvidence?: number;
}

/**
 * Automatic recall on every user turn: precision first. The floor is on
 * absolute confidence (the share of the query's BM25 ceiling a page
 * reaches); the evidence gate keeps ordinary prompts that share generic
 * words with the vault out.
 */
export const AUTOMATIC_POLICY: Readonly<RecallPolicy> = Object.freeze({
  name: "automatic",
  includePersonal: false,
  minScore: 0.3,
  maxPerVault: 10,
  maxResults: 3,
  minEvidence: AUTOMATIC_EVIDENCE,
});

export const EXPLICIT_DEFAULT_RESULTS = 5;
export const EXPLICIT_MAX_RESULTS = 10;

/** Recall the agent or a person asked for: both vaults, a lower floor. */
export function explicitPolicy(maxResults: number = EXPLICIT_DEFAULT_RESULTS): RecallPolicy {
  const n = Math.max(1, Math.min(EXPLICIT_MAX_RESULTS, Math.floor(maxResults)));
  return {
    name: "explicit",
    includePersonal: true,
    minScore: 0.25,
    maxPerVault: 10,
    maxResults: n,
  };
}

export type NormalizedQuery = { ok: true; query: string } | { ok: false; diagnostic: Diagnostic };

/** NFKC, trimmed, whitespace collapsed; empty → no result; too long → diagnostic, never truncated. */
export function normalizeQuery(raw: string): NormalizedQuery {
  const query = raw.normalize("NFKC").trim().replace(/\s+/g, " ");
  if (query === "") {
    return {
      ok: false,
      diagnostic: diagnostic("recall_query_empty", "info", "the query is empty; nothing to recall"),
    };
  }
  if (query.length > QUERY_MAX_CHARS) {
    return {
      ok: false,
      diagnostic: diagnostic(
        "recall_query_too_long",
        "warning",
        `the query has ${query.length} characters; the limit is ${QUERY_MAX_CHARS}. Ask with the key terms instead.`,
      ),
    };
  }
  return { ok: true, query };
}

const INTERROGATIVES = new Set([
  "who",
  "what",
  "when",
  "where",
  "why",
  "how",
  "which",
  "compare",
  "explain",
]);

/** True when the query's first word asks a question. */
export function interrogativePrefix(query: string): boolean {
  const first = query
    .trim()
    .split(/\s+/)[0]
    ?.toLowerCase()
    .replace(/[^\p{L}]/gu, "");
  return first !== undefined && INTERROGATIVES.has(first);
}

/** |A ∩ B| / |A ∪ B|; 1 for two empty lists. */
export function jaccardOverlap(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  const union = new Set([...sa, ...sb]).size;
  if (union === 0) return 1;
  let both = 0;
  for (const x of sa) if (sb.has(x)) both += 1;
  return both / union;
}

/** Inputs of the adaptive escalation decision. */
export interface EscalationInput {
  query: string;
  /** Normalised scores of the fused list, best first. */
  scores: readonly number[];
  lexTop5: readonly string[];
  vecTop5: readonly string[];
  /** Best exact-match confidence among the hits (0 when none). */
  exactConfidence: number;
  /** Whether the two top hits contradict each other with no user resolution in force. */
  contradictionEdge?: boolean;
}

/** Why adaptive mode would escalate to expansion and reranking, or undefined to stay. */
export function escalationReason(input: EscalationInput): string | undefined {
  if (input.exactConfidence >= EXACT_NO_ESCALATE) return undefined;
  const [first = 0, second = 0] = input.scores;
  if (input.scores.length >= 2 && first - second < ESCALATE_MARGIN) return "margin";
  if (jaccardOverlap(input.lexTop5, input.vecTop5) < ESCALATE_JACCARD) return "overlap";
  if (interrogativePrefix(input.query)) return "interrogative";
  if (input.contradictionEdge === true) return "contradiction";
  return undefined;
}

/** The bounded final multiplier: exact +0.05, canonical +0.03, evidence −0.02, deprecated −0.08, clamped. */
export function boundedMultiplier(
  exact: boolean,
  role: "canonical" | "evidence",
  deprecated: boolean,
): number {
  let m = 1;
  if (exact) m += 0.05;
  m += role === "canonical" ? 0.03 : -0.02;
  if (deprecated) m -= 0.08;
  return Math.min(1.1, Math.max(0.9, m));
}

/** Reciprocal rank of a 0-based rank. */
export function reciprocalRank(rank: number): number {
  return 1 / (RRF_K + rank + 1);
}

/** QMD's top-rank bonuses in its fusion: a list's top hits keep their place. */
export function topRankBonus(bestRank: number): number {
  return bestRank === 0 ? 0.05 : bestRank <= 2 ? 0.02 : 0;
}

/**
 * Fuses ranked lists by reciprocal rank, plus `bonus` of each item's best
 * rank in any list, and returns the items with their fused scores, best
 * first. Ties: better first-seen rank, earlier list (the project vault is
 * passed first), then the key, so the order is stable.
 */
export function fuseScored<T>(
  lists: ReadonlyArray<readonly T[]>,
  key: (item: T) => string,
  bonus: (bestRank: number) => number = () => 0,
): Array<{ item: T; score: number }> {
  const fused = new Map<
    string,
    { item: T; score: number; list: number; rank: number; best: number }
  >();
  lists.forEach((list, li) => {
    list.forEach((item, rank) => {
      const k = key(item);
      const prev = fused.get(k);
      if (prev) {
        prev.score += reciprocalRank(rank);
        prev.best = Math.min(prev.best, rank);
      } else fused.set(k, { item, score: reciprocalRank(rank), list: li, rank, best: rank });
    });
  });
  return [...fused.entries()]
    .map(([k, v]) => ({ k, v, score: v.score + bonus(v.best) }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.v.rank - b.v.rank ||
        a.v.list - b.v.list ||
        (a.k < b.k ? -1 : a.k > b.k ? 1 : 0),
    )
    .map(({ v, score }) => ({ item: v.item, score }));
}

/** Items of ranked lists fused by reciprocal rank (see `fuseScored`). */
export function fuseByRank<T>(lists: ReadonlyArray<readonly T[]>, key: (item: T) => string): T[] {
  return fuseScored(lists, key).map((f) => f.item);
}

/**
 * Session priming: what the session is about (topic, project, branch,
 * commits, changed files) recalled once at its start. Lexical only (the
 * query is a bag of session words, not a question a model could expand),
 * the automatic evidence gate, few notes. The floor is lower than the
 * automatic one because a lexical hit's confidence is its share of the
 * whole query's ceiling, and a priming query holds many words no single
 * page holds; the evidence gate carries the precision.
 */
export const PRIMING_POLICY: Readonly<RecallPolicy> = Object.freeze({
  name: "automatic",
  includePersonal: false,
  minScore: 0.08,
  // Candidates the freshness preference may reorder before three are kept.
  maxPerVault: 10,
  maxResults: 8,
  minEvidence: AUTOMATIC_EVIDENCE,
});

/** Notes priming keeps, and the characters its block may take. */
export const PRIMING_MAX_NOTES = 3;
export const PRIMING_MAX_CHARS = 1_500;
/** Characters of each priming note's excerpt (recall's are 800): three notes fit the budget. */
export const PRIMING_EXCERPT_CHARS = 300;

/** A page dated within this many days counts as fresh for priming. */
export const PRIMING_FRESH_DAYS = 30;
/** …and within this many as recent. */
export const PRIMING_RECENT_DAYS = 180;

/**
 * Priming's bounded preference for fresher pages: ×1.10 within 30 days,
 * ×1.05 within 180, ×1.00 older or undated. Bounded so a fresh page only
 * passes an older one that scored about as well, never a clearly better one.
 */
export function freshnessMultiplier(date: string | undefined, now: Date): number {
  if (date === undefined) return 1;
  const t = Date.parse(date);
  if (Number.isNaN(t)) return 1;
  const days = (now.getTime() - t) / 86_400_000;
  if (days < -1) return 1; // a date in the future says nothing about freshness
  if (days <= PRIMING_FRESH_DAYS) return 1.1;
  if (days <= PRIMING_RECENT_DAYS) return 1.05;
  return 1;
}

/**
 * Reorders scored hits by score × freshness multiplier (stable), the shown
 * score capped at 1 and never above the one before it, so the list still
 * reads in the order of its scores. Pages the query names keep their place
 * at the top: a name is stronger evidence than a date.
 */
export function preferFresher<T extends { score: number; named?: boolean }>(
  hits: readonly T[],
  dateOf: (hit: T) => string | undefined,
  now: Date,
): T[] {
  const named = hits.filter((h) => h.named === true);
  const ranked = hits
    .filter((h) => h.named !== true)
    .map((hit, order) => ({
      hit,
      order,
      score: Math.min(1, hit.score * freshnessMultiplier(dateOf(hit), now)),
    }))
    .sort((a, b) => b.score - a.score || a.order - b.order);
  let ceiling = 1;
  return [...named.map((hit) => ({ hit, score: hit.score })), ...ranked].map(({ hit, score }) => {
    ceiling = Math.min(ceiling, Math.round(score * 1e4) / 1e4);
    return { ...hit, score: ceiling };
  });
}
