/**
 * What a recall takes and answers, as every host sees it: the input, the
 * items (one per recalled page, bundle by bundle), conflicts, the rendered
 * block and how the pipeline ran. Types only; the stages live beside this.
 */
import type { BundlePart, Declaration, ItemRelation } from "../assembly/bundles.ts";
import type { LinkedCommit } from "../code-refs/recall-code.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { SpellingRepair } from "../lexical/spelling.ts";
import type {
  RetrievalHit,
  RetrievalPart,
  TraceStep,
  VaultMode,
} from "../retrieval/retrieval-types.ts";
import type { RetrievalMode } from "../settings.ts";
import type { TimeWindow } from "../temporal/time-window.ts";
import type { TrustState } from "../vault/provenance.ts";

export type { BundlePart, Declaration, ItemRelation } from "../assembly/bundles.ts";

/** The stages of one recall, in order (recall-operation.ts runs them). */
export type RecallStageName =
  | "plan"
  | "vaults"
  | "window"
  | "retrieve"
  | "prefer"
  | "assemble"
  | "fit";

/** One stage's wall time, in milliseconds (0.01 ms resolution). */
export interface RecallStage {
  stage: RecallStageName;
  ms: number;
  /** `retrieve` only: where its time went (store, search, score, fuse). */
  parts?: RetrievalPart[];
}

/** `priming`: session priming (lib/priming/prime.ts), automatic in every respect but its policy. */
export type RecallPolicyName = "automatic" | "explicit" | "priming";

export interface RecallInput {
  query: string;
  /** `explicit` (default): both vaults, floor 0.25. `automatic`: project only, floor 0.50, at most 3. */
  policy?: RecallPolicyName;
  maxResults?: number;
  mode?: RetrievalMode;
  signal?: AbortSignal;
  /**
   * Explicit recall first indexes pages changed since the last index update
   * (default true). False answers from the index exactly as it is.
   */
  refreshIndex?: boolean;
  /** Attach to each result why it was recalled (matched terms, their contribution and evidence). */
  explain?: boolean;
  /**
   * Assemble memory bundles (cards, their evidence and related claims over
   * typed relations; default true). False returns the ranked list as
   * retrieved, each page its own bundle: the benchmark's ablation.
   */
  assembly?: boolean;
  /** Only pages dated on or after this day are preferred (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`). */
  since?: string;
  /** Only pages dated on or before this day are preferred. */
  until?: string;
  /** The moment "yesterday" and "last week" count from (default: the clock). */
  now?: Date;
  /**
   * Pages (`vault:id`) already in the model's context this turn (Pi's
   * priming block): never shown again.
   */
  exclude?: ReadonlySet<string>;
  /** Feedback in ranking for this call (default: the `feedbackRanking` setting); the benchmark's switch. */
  feedback?: boolean;
  /**
   * Only pages of these types (`skill`, `case`: "have I done this before?").
   * Candidates are drawn from a wider pool, so other types do not crowd them
   * out, and no relation brings in a page of another type.
   */
  types?: readonly string[];
}

/** An unresolved conflict recall shows both sides of. */
export interface RecallConflict {
  vault: "project" | "personal";
  /** The two claims' ids and shown dates (as their items show them), `a` the one ranked higher. */
  a: { id: string; date?: string; edited?: string };
  b: { id: string; date?: string; edited?: string };
}

/** One recalled page in a host's answer. */
export interface RecallItem extends RetrievalHit {
  /** Path relative to the vault's root folder, e.g. `.llm-wiki/wiki/concepts/rag.md`. */
  path: string;
  /** Absolute path, readable with a file tool. */
  file: string;
  /** The bundle the item belongs to (0 = the top bundle); items are listed bundle by bundle. */
  bundle: number;
  part: BundlePart;
  /** Why it is here: the query named it, its terms matched, or a typed relation to the card admitted it. */
  matchReason: "name" | "terms" | "relation";
  /** Set for every item but a card: how it relates to its bundle's card. */
  relation?: ItemRelation;
  status?: string;
  /**
   * The page's date: when what it records happened or was decided (front
   * matter `date`, else `created`, else `updated`, else its last logged
   * event or commit), the day a time window judges it by.
   */
  date?: string;
  /** Its last edit (front matter `updated`), when that is another day than `date`. */
  edited?: string;
  /** "historical": a later claim supersedes it; "stale": past its `stale_after` date. */
  freshness: "current" | "stale" | "historical";
  /** The scope under which it applies (`applies_under`), when one is declared. */
  scope?: string;
  /** For a historical item: the page that supersedes it. */
  successor?: string;
  /**
   * Who said so, with that page's date: for a historical item the page that
   * declared the supersession (its successor, or a resolution page); for an
   * item a resolution admitted, the resolution page.
   */
  declaredBy?: Declaration;
  /**
   * For a draft that declares it supersedes stable pages: those pages. The
   * draft is their proposed replacement (`part: "proposed"` under such a
   * card); they stay current until a person accepts or drops it.
   */
  proposes?: string[];
  /** The heading of the section the excerpt comes from. */
  heading?: string;
  /** Why the page is stale by code: a path it names was deleted or changed since its date, and the commit. */
  staleReason?: string;
  /** The newest commit whose message names the page (`[[id]]`, `wiki: id`). */
  lastCommit?: LinkedCommit;
  /** OKF trust, for a page declaring `generated` or `verified`. */
  trust?: TrustState;
  /** Regions of the page git left unmerged: its text shows both versions until a person resolves them. */
  mergeConflicts?: number;
  /** The page's `sources` (ids or paths), the first few, for following a claim to its evidence. */
  sources?: string[];
  /** The feedback adjustment its score was multiplied by (1 + this), when recorded feedback moved it. */
  feedback?: number;
}

export interface RecallResult {
  ok: boolean;
  query: string;
  policy: RecallPolicyName;
  requestedMode: RetrievalMode;
  modeUsed: RetrievalMode | "none";
  results: RecallItem[];
  /** Unresolved conflicts among the results: both sides are always listed together. */
  conflicts: RecallConflict[];
  /** The text a model receives (empty when nothing was recalled). */
  rendered: string;
  /**
   * `vault:id` of each page `rendered` holds, in order: fewer than `results`
   * when bundles were cut to fit the character budget.
   */
  renderedPages: string[];
  diagnostics: Diagnostic[];
  trace: TraceStep[];
  durationMs: number;
  /** Each stage of the recall pipeline in the order it ran, and its time (see recall-operation.ts). */
  stages: RecallStage[];
  /**
   * The time window pages were preferred in (from the query's words and
   * `since`/`until`), and how many of the results are dated inside it: none
   * means the list answers the subject but not the time.
   */
  window?: TimeWindow & { pagesInside: number };
  /**
   * The mode each searched vault answered in, and why one answered in a
   * cheaper mode than asked (`modeUsed` is the least of them).
   */
  vaultModes?: VaultMode[];
  /**
   * Query words searched as another spelling the vault holds ("postgress"
   * as "postgres", "pol" beside "warm" as "pool"), so a person sees what
   * was looked for.
   */
  respelled?: SpellingRepair[];
  /**
   * Pages that qualified but were left out as already in the context
   * (`exclude`: a session's primed pages), so a hook with no block can say so.
   */
  alreadyGiven?: number;
}
