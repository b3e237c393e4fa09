/**
 * What retrieval takes and gives, as types only: the vault view, the
 * request, the candidates of one vault's run, the hits and the outcome.
 * Every retrieval stage (run-vault.ts, score-vault.ts, retrieval.ts) names
 * these without importing another stage.
 */

import type { Diagnostic } from "../diagnostics.ts";
import type { IndexStatus } from "../index/index-state.ts";
import type { QmdHit, QmdStore } from "../index/qmd-store-types.ts";
import type { SpellingRepair } from "../lexical/spelling.ts";
import type { NameMatches } from "../name-match.ts";
import type { PageEvidence } from "../recall-evidence.ts";
import type { RecallPolicy } from "../retrieval-policy.ts";
import type { RetrievalMode } from "../settings.ts";
import type { PageDateLookup } from "../temporal/page-dates.ts";
import type { TimeWindow } from "../temporal/time-window.ts";
import type { TimeWhy } from "../temporal/window-preference.ts";
import type { PageMeta } from "../vault/page.ts";
import type { RelationGraph } from "../vault/relations.ts";
import type { QuestionIntent } from "./question-intent.ts";

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
  dates?: PageDateLookup;
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
  /**
   * The query as asked (time words out) when `searchQuery` is its subject
   * alone (words of intent and filler out): searched instead where no page
   * the subject found is a typed note, since in a corpus of conversation
   * turns or papers those words are content.
   */
  askedQuery?: string;
  /** The question's intent, read once by `retrieve` (retrieval/question-intent.ts). */
  asks?: QuestionIntent;
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
  /**
   * Below the policy's floor: explicit recall shows its best candidates,
   * marked so, rather than answer nothing when pages match.
   */
  weak?: true;
}

export interface TraceStep {
  step: string;
  vault?: "project" | "personal";
  ms: number;
  hits?: number;
  note?: string;
  /**
   * The lexical search was skipped: the query's words are on so many of the
   * vault's pages that none could pass automatic recall's evidence gate.
   */
  tooCommon?: boolean;
  /** Nothing was searched: an unasked turn of conversation ("go ahead") names nothing to recall. */
  conversation?: true;
}

export interface RetrievalOutcome {
  query: string;
  requestedMode: RetrievalMode;
  /**
   * The mode the answer can claim: the least capable one any searched vault
   * ended up using (a vault that fell back to lexical makes it lexical).
   */
  modeUsed: RetrievalMode | "none";
  /** The mode of each vault searched, project first: which one fell back, and why. */
  vaultModes: VaultMode[];
  /** Query words searched as another spelling a vault holds ("postgress" as "postgres"). */
  respelled: SpellingRepair[];
  hits: RetrievalHit[];
  diagnostics: Diagnostic[];
  trace: TraceStep[];
  durationMs: number;
  /** Where the time went, summed over the vaults searched (see `RetrievalPartName`). */
  parts: RetrievalPart[];
}

/** The mode one vault answered in. */
export interface VaultMode {
  vault: "project" | "personal";
  mode: RetrievalMode;
  /** Why it answered in a cheaper mode than asked: the diagnostics its search raised. */
  reasons?: Diagnostic[];
}

/**
 * The parts of one retrieval: `store` opening each vault's index (nothing
 * once open), `search` the store's lists (FTS5 candidates rescored with
 * BM25, excerpts; vectors, expansion and reranking where asked), `score`
 * names, multipliers, floors and the evidence gate, `fuse` the vaults' lists
 * into one.
 */
export type RetrievalPartName = "store" | "search" | "score" | "fuse";

/** One part's time in milliseconds (0.01 ms resolution). */
export interface RetrievalPart {
  stage: RetrievalPartName;
  ms: number;
}

/** Why a page was recalled, for `--explain` and every host's trace. */
export interface RecallWhy {
  /** The query is the page's name, or contains its whole title or an alias. */
  name?: "exact" | "contained";
  /** Lexical evidence: each matched term and what it contributed. */
  evidence?: PageEvidence;
  /** The page's date against the request's time window, and the factor it gave. */
  time?: TimeWhy;
  /** The share of the question's subject the page's names, description and tags hold. */
  about?: number;
  /** The question's intent, when the page is of a kind that answers it. */
  intent?: string;
  /** The page's standing in the mode's own list (top = 1). */
  standing?: number;
  /** What ordered the vault's list: standing, subject share, intent and name together. */
  order?: number;
}

export interface Candidate {
  hit: QmdHit;
  confidence: number;
  /** The lexical list's confidence in the page (0 when only vectors found it). */
  lexical: number;
  /** Standing in the mode's own ranked list, 0..1 (top = 1): what orders the results. */
  standing: number;
}

export interface VaultRun {
  candidates: Candidate[];
  mode: RetrievalMode;
  /** The list came from QMD's reranker (expanded search). */
  reranked?: boolean;
  /** The pages the query names, when the search already matched them (scoring reuses them). */
  names?: NameMatches;
  /** Query words searched as another spelling the vault holds. */
  respelled?: SpellingRepair[];
}
