/**
 * A vault's own evaluation set (`llm-wiki bench vault`): every recall
 * correction page is a case. Its query is the correction's text — the only
 * words kept; the question that was corrected was never stored — and it
 * passes when explicit recall finds the correction page in the top 5 and
 * the corrected page below it, or not at all: asked in the correction's own
 * words, recall that puts the corrected page first again has regressed.
 */

import type { Diagnostic } from "../diagnostics.ts";
import { type CorrectionPage, readCorrections } from "../feedback/correction.ts";
import type { RecallResult } from "../recall-operation.ts";
import { EXPLICIT_MAX_RESULTS, QUERY_MAX_CHARS } from "../retrieval-policy.ts";
import type { RetrievalMode } from "../settings.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** A case passes when the correction page ranks at most this. */
export const VAULT_BENCH_TOP = 5;

export interface VaultBenchCase {
  /** The correction page's id. */
  correction: string;
  /** The page it corrects. */
  correctedPage: string;
  /** 1-based rank of the correction page in the recall, null when absent. */
  correctionRank: number | null;
  /** 1-based rank of the corrected page, null when absent. */
  correctedRank: number | null;
  pass: boolean;
  /** Why a case failed: the correction is not in the top, or the corrected page outranks it. */
  failure?: "correction_not_in_top" | "corrected_outranks_correction";
  modeUsed: string;
}

export interface VaultBenchReport {
  ok: boolean;
  vault: { kind: VaultPaths["kind"]; root: string };
  top: number;
  cases: VaultBenchCase[];
  summary: { cases: number; pass: number };
  durationMs: number;
  diagnostics: Diagnostic[];
}

/** What the bench needs of the service: one recall at a time. */
export type BenchRecall = (input: {
  query: string;
  policy: "explicit";
  maxResults: number;
  mode?: RetrievalMode;
}) => Promise<RecallResult>;

/** 1-based rank of a page among the recall's distinct pages (as a session ranks what it was shown). */
function rankOf(result: RecallResult, kind: VaultPaths["kind"], id: string): number | null {
  const seen = new Set<string>();
  for (const item of result.results) {
    const key = `${item.vault}:${item.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (item.vault === kind && item.id === id) return seen.size;
  }
  return null;
}

/**
 * The correction's words as a query: recall refuses a query over its limit
 * (a correction may hold twice as much), so a long one keeps its beginning,
 * cut at a space.
 */
export function caseQuery(correction: string): string {
  const text = correction.normalize("NFKC").replace(/\s+/g, " ").trim();
  if (text.length <= QUERY_MAX_CHARS) return text;
  const cut = text.slice(0, QUERY_MAX_CHARS);
  const space = cut.lastIndexOf(" ");
  return space > QUERY_MAX_CHARS / 2 ? cut.slice(0, space) : cut;
}

async function runCase(
  vault: VaultPaths,
  page: CorrectionPage,
  recall: BenchRecall,
  mode: RetrievalMode | undefined,
): Promise<{ case: VaultBenchCase; diagnostics: Diagnostic[] }> {
  const result = await recall({
    query: caseQuery(page.correction),
    policy: "explicit",
    // As deep as explicit recall goes, so the corrected page's rank is seen below the top 5.
    maxResults: EXPLICIT_MAX_RESULTS,
    ...(mode ? { mode } : {}),
  });
  const correctionRank = rankOf(result, vault.kind, page.id);
  const correctedRank = rankOf(result, vault.kind, page.correctedPage);
  const failure =
    correctionRank === null || correctionRank > VAULT_BENCH_TOP
      ? "correction_not_in_top"
      : correctedRank !== null && correctedRank < correctionRank
        ? "corrected_outranks_correction"
        : undefined;
  return {
    case: {
      correction: page.id,
      correctedPage: page.correctedPage,
      correctionRank,
      correctedRank,
      pass: failure === undefined,
      ...(failure ? { failure } : {}),
      modeUsed: result.modeUsed,
    },
    diagnostics: result.ok ? [] : result.diagnostics.filter((d) => d.severity === "error"),
  };
}

/** Runs every correction of `vault` as a case; `ok` is false only when a recall failed. */
export async function runVaultBench(
  vault: VaultPaths,
  recall: BenchRecall,
  mode?: RetrievalMode,
): Promise<VaultBenchReport> {
  const started = performance.now();
  const cases: VaultBenchCase[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const page of readCorrections(vault)) {
    // An empty correction has no words to ask with (a page edited by hand).
    if (page.correction.trim() === "") continue;
    const run = await runCase(vault, page, recall, mode);
    cases.push(run.case);
    diagnostics.push(...run.diagnostics);
  }
  return {
    ok: !diagnostics.some((d) => d.severity === "error"),
    vault: { kind: vault.kind, root: vault.root },
    top: VAULT_BENCH_TOP,
    cases,
    summary: { cases: cases.length, pass: cases.filter((c) => c.pass).length },
    durationMs: Math.round(performance.now() - started),
    diagnostics,
  };
}
