/**
 * One vault's search in the requested mode: lexical first (always the
 * result in hand), then vectors, then expansion and reranking, each step
 * within the turn budget and falling back toward the cheaper list on a
 * missing model, a failure or an overrun.
 */
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import type { LexEvidenceFloor, QmdHit } from "../index/qmd-store-types.ts";
import type { SpellingRepair } from "../lexical/spelling.ts";
import { matchNames, type NameMatches } from "../name-match.ts";
import { termEvidence } from "../recall-evidence.ts";
import { escalationReason } from "../retrieval-policy.ts";
import type { RelationGraph } from "../vault/relations.ts";
import { candidatesOf, fuseLexVec, withLexicalEvidence } from "./candidates.ts";
import { pageKinds } from "./page-kind.ts";
import type {
  RetrievalRequest,
  RetrievalStore,
  RetrievalVault,
  TraceStep,
  VaultRun,
} from "./retrieval-types.ts";
import { BUDGET_DIAGNOSTIC, BudgetExceeded, within } from "./turn-budget.ts";

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

/** A model's file name: the same model named by path or by `hf:` URI compares equal. */
function modelName(model: string): string {
  return model.split(/[\\/]/).pop() ?? model;
}

/**
 * When each kind of step is abandoned (`performance.now()` times). The turn
 * budget bounds the model steps, which fall back to the lexical list in
 * hand. The lexical step is that list: cutting it would answer "no memory"
 * whenever the machine is busy or the process is cold (opening the store
 * counts), so it has only a ceiling against a hang.
 */
export interface StepDeadlines {
  models: number;
  lexical: number;
}

/** Candidates a time question's window orders, at least. */
export const WINDOW_POOL = 40;

/** Evidence a term gives on top of its bound: evidence is rounded to 4 decimals. */
const EVIDENCE_ROUNDING = 1e-4;

/**
 * Automatic recall's evidence gate for the lexical search, when the lexical
 * list is the answer's only source: then a page shows only with that much
 * evidence or when the query names it, so a search no page could pass can
 * be skipped with the same answer. A page the query names exactly shows
 * whatever the list says of it (confidence 1, first place), so such a query
 * keeps the gate too: skipped, its answer is the named pages (scoreVault
 * adds a named page the list lacks), each with no excerpt of the store's
 * (recall cuts its excerpts from the page itself). A page whose name the
 * query only contains takes its confidence from the list, and `--explain`
 * shows each page's matched terms, so either keeps the search; a
 * model-backed list is fused with the lexical one, so it has no gate. The
 * pages named are handed on, so scoring does not match the names again.
 */
function evidenceFloor(
  vault: RetrievalVault,
  req: RetrievalRequest,
  query: string,
  onSkip: () => void,
): { floor?: LexEvidenceFloor; names?: NameMatches } {
  const min = req.policy.minEvidence;
  if (min === undefined || !(req.mode === "lexical" || vault.lexicalOnly)) return {};
  const names = matchNames(vault.pages, query, vault.names);
  const { exact, contained } = names;
  if (contained.size > 0 || (exact.size > 0 && req.explain === true)) return { names };
  // A question of intent may be answered by a page of its kind about a common subject.
  if (req.asks !== undefined) return { names };
  return {
    floor: {
      min,
      bound: (match) => termEvidence({ ...match, score: match.idf }).evidence + EVIDENCE_ROUNDING,
      onSkip,
    },
    names,
  };
}

/** `repairs` with each word read once, the first reading kept. */
export function distinctRepairs(repairs: readonly SpellingRepair[]): SpellingRepair[] {
  const seen = new Set<string>();
  return repairs.filter(({ from }) => !seen.has(from) && seen.add(from) !== undefined);
}

/** Whether a page is a note of a kind a question can ask for (a decision, an incident…). */
function typedNote(vault: RetrievalVault, id: string): boolean {
  const page = vault.pages.get(id);
  return page !== undefined && pageKinds(page).size > 0;
}

/** Runs the requested mode on one store, falling back toward cheaper modes. */
export async function runVault(
  vault: RetrievalVault,
  store: RetrievalStore,
  req: RetrievalRequest,
  query: string,
  deadlines: StepDeadlines,
  trace: TraceStep[],
  diagnostics: Diagnostic[],
): Promise<VaultRun> {
  // A time question's answer may be a page its words rank low ("what happened
  // with push in july", push on half the pages): the window orders a wider pool.
  const limit = req.window ? Math.max(req.policy.maxPerVault, WINDOW_POOL) : req.policy.maxPerVault;
  /** Runs one search step within its deadline and records it in the trace. */
  const timed = async <T extends readonly unknown[]>(
    step: string,
    work: () => Promise<T>,
    deadline: number = deadlines.models,
  ): Promise<T> => {
    const t0 = performance.now();
    const entry: TraceStep = { step, vault: vault.kind, ms: 0 };
    try {
      const result = await within(work(), deadline - performance.now());
      entry.hits = result.length;
      return result;
    } catch (error) {
      entry.note = errorMessage(error);
      if (error instanceof BudgetExceeded) error.step = step;
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
          ? BUDGET_DIAGNOSTIC
          : "retrieval_failed";
    // A cut step makes the answer partial: said where a person sees it (a
    // warning), not only in `--explain`.
    diagnostics.push(
      diagnostic(
        code,
        code === "model_unavailable" ? "info" : "warning",
        `${from} retrieval ${error instanceof BudgetExceeded ? `ran past the turn budget (${req.budgetMs ?? "no"} ms)` : `failed (${errorMessage(error)})`}; used ${to}, a partial answer`,
        {
          ...((error as { repair?: string }).repair
            ? { repair: (error as { repair: string }).repair }
            : {}),
        },
      ),
    );
  };

  // Lexical first: about a millisecond, model-free, and always the result in hand.
  let searched = req.searchQuery ?? query;
  let skipped = false;
  const gate = evidenceFloor(vault, req, query, () => {
    skipped = true;
  });
  // The words the search that answers read as another spelling: said, so nobody wonders.
  let respelled: readonly SpellingRepair[] = [];
  const searchLex = (text: string) => {
    respelled = [];
    return timed(
      "lexical",
      () =>
        store.searchLex(text, {
          limit,
          ...(gate.floor ? { evidence: gate.floor } : {}),
          // Unasked, a related word is no evidence: a prompt about a test db is not about the database.
          relatedWords: req.policy.name !== "automatic",
          onRespelled: (repairs) => {
            respelled = repairs;
          },
        }),
      deadlines.lexical,
    );
  };
  let lex = await searchLex(searched);
  // Words of intent and filler ask for a kind of note; where the subject
  // found no typed note (conversation turns, papers), they are content.
  // Automatic recall keeps to the subject: unasked, filler is never evidence.
  if (
    req.askedQuery !== undefined &&
    req.policy.name !== "automatic" &&
    !lex.some((h) => typedNote(vault, h.pageId))
  ) {
    searched = req.askedQuery;
    lex = await searchLex(searched);
  }
  if (skipped) {
    const entry = trace.at(-1);
    if (entry?.step === "lexical") {
      entry.tooCommon = true;
      entry.note = gate.names?.exact.size
        ? "not searched: this prompt names its page, and its words are on too many of the vault's pages to add another"
        : "not searched: this prompt's words are on too many of the vault's pages to be evidence";
    }
  }
  // A model reads the question whole: its words of intent are meaning to it, not noise.
  const asked = req.askedQuery ?? searched;
  const names = gate.names ?? matchNames(vault.pages, query, vault.names);
  const read = distinctRepairs([...respelled, ...(names.respelled ?? [])]);
  // Every mode scores with the names matched here and says the words read otherwise.
  const said = { names, ...(read.length > 0 ? { respelled: read } : {}) };
  let current: VaultRun = { ...said, candidates: candidatesOf(lex), mode: "lexical" };
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
      store.searchVector(asked, { limit, ...(req.signal ? { signal: req.signal } : {}) }),
    );
  } catch (error) {
    fallback("vector", error, "lexical");
    return current;
  }
  current = { ...said, candidates: fuseLexVec(lex, vec).slice(0, limit), mode: "hybrid" };
  if (req.mode === "hybrid") return current;

  if (req.mode === "adaptive") {
    const { exact } = names;
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
      store.searchExpanded(asked, {
        limit,
        ...(req.intent ? { intent: req.intent } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
      }),
    );
    return {
      ...said,
      candidates: withLexicalEvidence(expanded, lex),
      mode: req.mode,
      reranked: true,
    };
  } catch (error) {
    fallback("expanded", error, "hybrid");
    return current;
  }
}
