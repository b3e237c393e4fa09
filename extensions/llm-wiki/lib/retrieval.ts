/**
 * The one retrieval service behind every recall (Pi tool, automatic hook,
 * MCP, CLI): mode selection, fallback chains, per-list scores, the bounded
 * final multiplier, floors and reciprocal-rank fusion across vaults, with
 * structured diagnostics and a trace of what ran and how long it took.
 * A failed or slow step falls toward a cheaper mode or no recall, never
 * toward unrelated memory; an empty result is a valid answer.
 */
import { type Diagnostic, diagnostic, errorMessage } from "./diagnostics.ts";
import type { SpellingRepair } from "./lexical/spelling.ts";
import { isConversationTurn } from "./retrieval/conversation-turn.ts";
import { readQuestion } from "./retrieval/question-intent.ts";
import type {
  RetrievalHit,
  RetrievalOutcome,
  RetrievalPart,
  RetrievalPartName,
  RetrievalRequest,
  RetrievalVault,
  TraceStep,
  VaultMode,
  VaultRun,
} from "./retrieval/retrieval-types.ts";
import { distinctRepairs, runVault, type StepDeadlines } from "./retrieval/run-vault.ts";
import { type QuestionReading, scoreVault, WEAK_CANDIDATES } from "./retrieval/score-vault.ts";
import { BUDGET_DIAGNOSTIC, BudgetExceeded } from "./retrieval/turn-budget.ts";
import { fuseByRank, normalizeQuery } from "./retrieval-policy.ts";
import type { RetrievalMode } from "./settings.ts";

export type {
  Candidate,
  RecallWhy,
  RetrievalCapabilities,
  RetrievalHit,
  RetrievalOutcome,
  RetrievalPart,
  RetrievalPartName,
  RetrievalRequest,
  RetrievalStore,
  RetrievalVault,
  TraceStep,
  VaultMode,
  VaultRun,
} from "./retrieval/retrieval-types.ts";

/**
 * How long the lexical step (opening the store included) may take before it
 * is taken for hung: far past any turn budget, since without it there is no
 * answer at all, yet short of a hook's own timeout.
 */
export const LEXICAL_CEILING_MS = 8_000;

const MODE_RANK: Record<RetrievalMode, number> = { lexical: 0, hybrid: 1, adaptive: 2, quality: 3 };

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

/** Part times, each summed over the vaults, in the order first met. */
function partClock() {
  const sums = new Map<RetrievalPartName, number>();
  return {
    add(stage: RetrievalPartName, since: number): number {
      const now = performance.now();
      sums.set(stage, (sums.get(stage) ?? 0) + (now - since));
      return now;
    },
    parts(): RetrievalPart[] {
      return [...sums].map(([stage, ms]) => ({ stage, ms: Math.round(ms * 100) / 100 }));
    },
  };
}

/** Runs one recall over `vaults` (project first) under `req.policy`. */
export async function retrieve(
  vaults: readonly RetrievalVault[],
  req: RetrievalRequest,
): Promise<RetrievalOutcome> {
  const started = performance.now();
  const trace: TraceStep[] = [];
  const diagnostics: Diagnostic[] = [];
  const clock = partClock();
  const vaultModes: VaultMode[] = [];
  const respelled: SpellingRepair[] = [];
  const done = (
    query: string,
    hits: RetrievalHit[],
    modeUsed: RetrievalOutcome["modeUsed"],
  ): RetrievalOutcome => ({
    query,
    requestedMode: req.mode,
    modeUsed,
    vaultModes,
    respelled: distinctRepairs(respelled),
    hits,
    // Capability diagnostics are met once per vault: say each once.
    diagnostics: distinct(diagnostics),
    trace,
    durationMs: Math.round(performance.now() - started),
    parts: clock.parts(),
  });
  const normalized = normalizeQuery(req.query);
  if (!normalized.ok) {
    diagnostics.push(normalized.diagnostic);
    return done(req.query, [], "none");
  }
  const query = normalized.query;
  // Unasked, a turn of conversation ("go ahead", "ship it") names nothing to recall.
  if (req.policy.minEvidence !== undefined && isConversationTurn(query)) {
    trace.push({
      step: "skip",
      ms: 0,
      note: "a turn of conversation, nothing to recall",
      conversation: true,
    });
    return done(query, [], "none");
  }
  // Time words out (the caller's choice); a query that was only time words searches as asked.
  const search = req.searchQuery === undefined ? undefined : normalizeQuery(req.searchQuery);
  const asked = search?.ok ? search.query : query;
  // Words of intent ("why did we choose", "who owns") ask for a kind of page, not for those words.
  const reading: QuestionReading = readQuestion(asked, query);
  const searchReq: RetrievalRequest = {
    ...req,
    searchQuery: reading.subject,
    ...(reading.subject !== asked ? { askedQuery: asked } : {}),
    ...(reading.intent ? { asks: reading.intent } : {}),
  };
  const budget = req.budgetMs ?? Number.POSITIVE_INFINITY;
  const deadlines: StepDeadlines = {
    models: started + budget,
    lexical: started + Math.max(budget, LEXICAL_CEILING_MS),
  };
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
    let since = performance.now();
    try {
      const store = await vault.store();
      since = clock.add("store", since);
      if (!store) {
        trace.push({ step: "skip", vault: vault.kind, ms: 0, note: "no store" });
        continue;
      }
      const raised = diagnostics.length;
      run = await runVault(vault, store, searchReq, query, deadlines, trace, diagnostics);
      since = clock.add("search", since);
      // What this vault's search raised is why it answered below the asked mode.
      const reasons = diagnostics.slice(raised);
      vaultModes.push({
        vault: vault.kind,
        mode: run.mode,
        ...(reasons.length ? { reasons } : {}),
      });
    } catch (error) {
      clock.add("search", since);
      // Even lexical failed (store cannot open, or the budget ran out before it answered).
      if (error instanceof BudgetExceeded) {
        // Never an empty answer that reads as "no memory": say which step the time cut.
        diagnostics.push(
          diagnostic(
            BUDGET_DIAGNOSTIC,
            "warning",
            `${vault.kind} vault: the ${error.step ?? "search"} step ran past its time limit (turn budget ${budget} ms, lexical ceiling ${LEXICAL_CEILING_MS} ms); this vault was not searched, so no memory from it is not evidence of none`,
          ),
        );
      } else if (req.policy.name === "explicit") {
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
    respelled.push(...(run.respelled ?? []));
    lists.push(
      scoreVault(vault, run, query, req.policy, req.explain === true, req.window, reading),
    );
    clock.add("score", since);
  }

  const fusing = performance.now();
  // A vault's weak candidates answer only when no vault has a page above the floor.
  const strong = lists.filter((list) => list.some((h) => !h.weak));
  const fused = fuseByRank(strong.length > 0 ? strong : lists, (h) => `${h.vault}:${h.id}`).slice(
    0,
    strong.length > 0 ? req.policy.maxResults : Math.min(req.policy.maxResults, WEAK_CANDIDATES),
  );
  clock.add("fuse", fusing);
  return done(query, fused, modeUsed);
}
