/**
 * The one retrieval service behind every recall (Pi tool, automatic hook,
 * MCP, CLI): mode selection, fallback chains, per-list scores, the bounded
 * final multiplier, floors and reciprocal-rank fusion across vaults, with
 * structured diagnostics and a trace of what ran and how long it took.
 * A failed or slow step falls toward a cheaper mode or no recall, never
 * toward unrelated memory; an empty result is a valid answer.
 */
import { type Diagnostic, diagnostic, errorMessage } from "./diagnostics.ts";
import type { IndexStatus } from "./index/index-state.ts";
import type { QmdHit, QmdStore } from "./index/qmd-store.ts";
import { matchNames } from "./name-match.ts";
import {
  escalationReason,
  fuseByRank,
  fuseScored,
  normalizeQuery,
  type RecallPolicy,
  topRankBonus,
} from "./retrieval-policy.ts";
import { type RecallWhy, scoreVault } from "./score-vault.ts";
import type { RetrievalMode } from "./settings.ts";
import type { PageDate } from "./temporal/page-dates.ts";
import type { TimeWindow } from "./temporal/time-window.ts";
import type { PageMeta } from "./vault/page.ts";
import type { RelationGraph } from "./vault/relations.ts";

export type { RecallWhy } from "./score-vault.ts";

/** The store operations retrieval uses. */
export type RetrievalStore = Pick<QmdStore, "searchLex" | "searchVector" | "searchExpanded">;

/** One vault as retrieval sees it. */
export interface RetrievalVault {
  kind: "project" | "personal";
  status: IndexStatus;
  /** Opens (or reuses) the vault's store; undefined when there is no index. */
  store(): Promise<RetrievalStore | undefined>;
  /** Page metadata by id, for exact matches, titles and deprecation. */
  pages: ReadonlyMap<string, PageMeta>;
  /**
   * Stays the same object while no page id, title or alias changes, so the
   * name table is not rebuilt after every edit (default: `pages`).
   */
  names?: object;
  /** Typed relations between the pages: assembly's one hop, adaptive's contradiction trigger. */
  relations?: RelationGraph;
  /**
   * The index is open read-only (its folder is not writable here): only the
   * lexical list answers; the caller says why once (`index_read_only`).
   */
  lexicalOnly?: boolean;
  /** Each page's date, given when the request has a time window. */
  dates?: ReadonlyMap<string, PageDate>;
}

/** What the model-backed paths may use, decided before any model call. */
export interface RetrievalCapabilities {
  /** Embed model available and the index has vectors. */
  vectors: boolean;
  /** Generate and rerank models available. */
  expansion: boolean;
  /** Why a capability is missing, for the diagnostic. */
  vectorsMissing?: Diagnostic;
  /** The embed model queries would use; vectors made by another model are not comparable. */
  embedModel?: string;
  expansionMissing?: Diagnostic;
}

export interface RetrievalRequest {
  query: string;
  policy: RecallPolicy;
  mode: RetrievalMode;
  capabilities: RetrievalCapabilities;
  /** Wall-clock budget for the whole retrieval; the cheaper result in hand wins on overrun. */
  budgetMs?: number;
  intent?: string;
  signal?: AbortSignal;
  /** Attach to each hit why it was recalled (`RetrievalHit.why`). */
  explain?: boolean;
  /** Pages dated inside it are preferred (a bounded factor, `window-preference.ts`). */
  window?: TimeWindow;
  /**
   * What the search steps look for: the query without its time words when a
   * window was read from it. Names are matched on `query` itself.
   */
  searchQuery?: string;
}

/** One recalled page. */
export interface RetrievalHit {
  id: string;
  vault: "project" | "personal";
  title: string;
  type: string;
  role: "canonical" | "evidence";
  /** Final score: confidence × bounded multiplier, at most 1. */
  score: number;
  confidence: number;
  exact: boolean;
  /** The query is the page's name or contains its title or an alias. */
  named: boolean;
  excerpt?: string;
  source: QmdHit["source"];
  /** With `explain`: the name match and the matched terms' evidence. */
  why?: RecallWhy;
}

export interface TraceStep {
  step: string;
  vault?: "project" | "personal";
  ms: number;
  hits?: number;
  note?: string;
}

export interface RetrievalOutcome {
  query: string;
  requestedMode: RetrievalMode;
  /**
   * The mode the answer can claim: the least capable one any searched vault
   * ended up using (a vault that fell back to lexical makes it lexical).
   */
  modeUsed: RetrievalMode | "none";
  hits: RetrievalHit[];
  diagnostics: Diagnostic[];
  trace: TraceStep[];
  durationMs: number;
}

const MODE_RANK: Record<RetrievalMode, number> = { lexical: 0, hybrid: 1, adaptive: 2, quality: 3 };

/**
 * Whether the two best candidates contradict each other with no user
 * resolution in force: the list alone cannot tell which is current, so
 * adaptive mode asks the reranker.
 */
function contradictionBetween(
  graph: RelationGraph | undefined,
  candidates: readonly { hit: QmdHit }[],
): boolean {
  const [a, b] = candidates;
  if (!graph || !a || !b) return false;
  const x = a.hit.pageId;
  const y = b.hit.pageId;
  if (graph.activeResolution(x, y)) return false;
  return graph
    .outgoing(x)
    .concat(graph.incoming(x))
    .some((e) => e.type === "contradicts" && (e.from === y || e.to === y));
}

class BudgetExceeded extends Error {
  constructor() {
    super("turn budget exceeded");
  }
}

/** Rejects when `ms` runs out first; the loser keeps running but its result is ignored. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms)) return promise;
  if (ms <= 0) throw new BudgetExceeded();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BudgetExceeded()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Candidate {
  hit: QmdHit;
  confidence: number;
  /** The lexical list's confidence in the page (0 when only vectors found it). */
  lexical: number;
  /** Standing in the mode's own ranked list, 0..1 (top = 1): what orders the results. */
  standing: number;
}

/** A model's file name: the same model named by path or by `hf:` URI compares equal. */
function modelName(model: string): string {
  return model.split(/[\\/]/).pop() ?? model;
}

/** The absolute confidence a store list gives a hit (lexical coverage, vector similarity, rerank score). */
function confidenceOf(hit: QmdHit): number {
  return Math.max(0, Math.min(1, hit.confidence ?? hit.score));
}

/** A store list as candidates, standing by the list's own scores. */
function candidatesOf(hits: QmdHit[]): Candidate[] {
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
function withLexicalEvidence(reranked: QmdHit[], lex: QmdHit[]): Candidate[] {
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
function fuseLexVec(lex: QmdHit[], vec: QmdHit[]): Candidate[] {
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

export interface VaultRun {
  candidates: Candidate[];
  mode: RetrievalMode;
  /** The list came from QMD's reranker (expanded search). */
  reranked?: boolean;
}

/** Runs the requested mode on one store, falling back toward cheaper modes. */
async function runVault(
  vault: RetrievalVault,
  store: RetrievalStore,
  req: RetrievalRequest,
  query: string,
  deadline: number,
  trace: TraceStep[],
  diagnostics: Diagnostic[],
): Promise<VaultRun> {
  const limit = req.policy.maxPerVault;
  /** Runs one search step within the deadline and records it in the trace. */
  const timed = async <T extends readonly unknown[]>(
    step: string,
    work: () => Promise<T>,
  ): Promise<T> => {
    const t0 = performance.now();
    const entry: TraceStep = { step, vault: vault.kind, ms: 0 };
    try {
      const result = await within(work(), deadline - performance.now());
      entry.hits = result.length;
      return result;
    } catch (error) {
      entry.note = errorMessage(error);
      throw error;
    } finally {
      entry.ms = Math.round(performance.now() - t0);
      trace.push(entry);
    }
  };
  const fallback = (from: string, error: unknown, to: string) => {
    const code =
      (error as { code?: string }).code === "model_unavailable"
        ? "model_unavailable"
        : error instanceof BudgetExceeded
          ? "recall_budget_exceeded"
          : "retrieval_failed";
    diagnostics.push(
      diagnostic(
        code,
        code === "retrieval_failed" ? "warning" : "info",
        `${from} retrieval ${error instanceof BudgetExceeded ? "ran out of time" : `failed (${errorMessage(error)})`}; used ${to}`,
        {
          ...((error as { repair?: string }).repair
            ? { repair: (error as { repair: string }).repair }
            : {}),
        },
      ),
    );
  };

  // Lexical first: about a millisecond, model-free, and always the result in hand.
  const searched = req.searchQuery ?? query;
  const lex = await timed("lexical", () => store.searchLex(searched, { limit }));
  let current: VaultRun = { candidates: candidatesOf(lex), mode: "lexical" };
  if (req.mode === "lexical" || vault.lexicalOnly) return current;

  if (!req.capabilities.vectors) {
    if (req.capabilities.vectorsMissing) diagnostics.push(req.capabilities.vectorsMissing);
    return current;
  }
  if (!vault.status.vectors.present) {
    // Per vault: a personal vault without vectors does not turn hybrid off for the project.
    diagnostics.push(
      diagnostic(
        "vectors_missing",
        "info",
        `${vault.kind} vault: vector search skipped, the index has no vectors yet; used lexical`,
        { repair: "llm-wiki reindex --vectors" },
      ),
    );
    return current;
  }
  const built = vault.status.vectors.model;
  if (
    req.capabilities.embedModel &&
    built &&
    modelName(built) !== modelName(req.capabilities.embedModel)
  ) {
    diagnostics.push(
      diagnostic(
        "vectors_stale",
        "warning",
        `${vault.kind} vault: vectors were made with ${modelName(built)}, queries would use ${modelName(req.capabilities.embedModel)}; used lexical`,
        { repair: "llm-wiki reindex --vectors --force" },
      ),
    );
    return current;
  }
  let vec: QmdHit[];
  try {
    vec = await timed("vector", () =>
      store.searchVector(searched, { limit, ...(req.signal ? { signal: req.signal } : {}) }),
    );
  } catch (error) {
    fallback("vector", error, "lexical");
    return current;
  }
  current = { candidates: fuseLexVec(lex, vec).slice(0, limit), mode: "hybrid" };
  if (req.mode === "hybrid") return current;

  if (req.mode === "adaptive") {
    const { exact } = matchNames(vault.pages, query, vault.names);
    const exactConfidence = Math.max(
      0,
      ...current.candidates.filter((c) => exact.has(c.hit.pageId)).map((c) => c.confidence),
    );
    const reason = escalationReason({
      query,
      // The fused list's own standing (reciprocal rank with QMD's top-rank bonus), top = 1.
      scores: current.candidates.map((c) => c.standing),
      lexTop5: lex.slice(0, 5).map((h) => h.pageId),
      vecTop5: vec.slice(0, 5).map((h) => h.pageId),
      exactConfidence,
      contradictionEdge: contradictionBetween(vault.relations, current.candidates),
    });
    if (reason === undefined) return { ...current, mode: "adaptive" };
    trace.push({ step: "escalate", vault: vault.kind, ms: 0, note: reason });
  }
  if (!req.capabilities.expansion) {
    if (req.capabilities.expansionMissing) diagnostics.push(req.capabilities.expansionMissing);
    return current;
  }
  try {
    const expanded = await timed("expanded", () =>
      store.searchExpanded(searched, {
        limit,
        ...(req.intent ? { intent: req.intent } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
      }),
    );
    return { candidates: withLexicalEvidence(expanded, lex), mode: req.mode, reranked: true };
  } catch (error) {
    fallback("expanded", error, "hybrid");
    return current;
  }
}

/**
 * A vault's index diagnostics, each saying which vault. An index this user
 * may not write cannot be repaired by `reindex`: those repairs are left out
 * (the `index_read_only` note beside them names the one that works).
 */
function ofVault(vault: RetrievalVault): Diagnostic[] {
  return vault.status.diagnostics.map(({ repair, ...d }) => ({
    ...d,
    ...(repair !== undefined && !vault.lexicalOnly ? { repair } : {}),
    message: `${vault.kind} vault: ${d.message}`,
  }));
}

/** Diagnostics without repeats (same severity, code and message), in first-seen order. */
function distinct(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.severity}|${d.code}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Runs one recall over `vaults` (project first) under `req.policy`. */
export async function retrieve(
  vaults: readonly RetrievalVault[],
  req: RetrievalRequest,
): Promise<RetrievalOutcome> {
  const started = performance.now();
  const trace: TraceStep[] = [];
  const diagnostics: Diagnostic[] = [];
  const done = (
    query: string,
    hits: RetrievalHit[],
    modeUsed: RetrievalOutcome["modeUsed"],
  ): RetrievalOutcome => ({
    query,
    requestedMode: req.mode,
    modeUsed,
    hits,
    // Capability diagnostics are met once per vault: say each once.
    diagnostics: distinct(diagnostics),
    trace,
    durationMs: Math.round(performance.now() - started),
  });
  const normalized = normalizeQuery(req.query);
  if (!normalized.ok) {
    diagnostics.push(normalized.diagnostic);
    return done(req.query, [], "none");
  }
  const query = normalized.query;
  // Time words out (the caller's choice); a query that was only time words searches as asked.
  const search = req.searchQuery === undefined ? undefined : normalizeQuery(req.searchQuery);
  const searchReq: RetrievalRequest = { ...req, searchQuery: search?.ok ? search.query : query };
  const deadline = started + (req.budgetMs ?? Number.POSITIVE_INFINITY);
  const lists: RetrievalHit[][] = [];
  let modeUsed: RetrievalOutcome["modeUsed"] = "none";

  for (const vault of vaults) {
    if (vault.kind === "personal" && !req.policy.includePersonal) continue;
    if (vault.status.state === "missing" || vault.status.state === "error") {
      if (req.policy.name === "explicit") diagnostics.push(...ofVault(vault));
      trace.push({ step: "skip", vault: vault.kind, ms: 0, note: `index ${vault.status.state}` });
      continue;
    }
    if (vault.status.state === "stale" && req.policy.name === "explicit") {
      // The previous index still answers: a stale one is worth knowing, not an error.
      diagnostics.push(...ofVault(vault).map((d) => ({ ...d, severity: "info" as const })));
    }
    let run: VaultRun;
    try {
      const store = await vault.store();
      if (!store) {
        trace.push({ step: "skip", vault: vault.kind, ms: 0, note: "no store" });
        continue;
      }
      run = await runVault(vault, store, searchReq, query, deadline, trace, diagnostics);
    } catch (error) {
      // Even lexical failed (store cannot open, or the budget ran out before it answered).
      if (req.policy.name === "explicit") {
        diagnostics.push(
          diagnostic(
            "retrieval_failed",
            "error",
            `${vault.kind} vault: search failed (${errorMessage(error)})`,
            {
              repair: "llm-wiki reindex --force",
            },
          ),
        );
      }
      continue;
    }
    if (modeUsed === "none" || MODE_RANK[run.mode] < MODE_RANK[modeUsed]) modeUsed = run.mode;
    lists.push(scoreVault(vault, run, query, req.policy, req.explain === true, req.window));
  }

  const fused = fuseByRank(lists, (h) => `${h.vault}:${h.id}`).slice(0, req.policy.maxResults);
  return done(query, fused, modeUsed);
}
