/**
 * `wiki_lint`: runs every check on each selected vault and, with `fix`,
 * creates the stubs for knowledge gaps first, so the findings describe the
 * vault as it is when the call returns.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { IndexStatus } from "../index/index-state.ts";
import { isCancelled, runSliced, runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { decisionVaultOf } from "../vault/config.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import type { VaultHandle, VaultHandles } from "../vault-handles.ts";
import { contradictionFindings } from "./contradictions.ts";
import { createGapStubs } from "./fix.ts";
import { gapFindings, knowledgeGaps, linkFindings } from "./link-checks.ts";
import { duplicateFindings, malformedFindings, orphanFindings } from "./page-checks.ts";
import { relationFindings } from "./relation-checks.ts";
import { secretFindings } from "./secret-check.ts";
import { sourceFindings } from "./source-checks.ts";
import { staleFindings } from "./stale.ts";
import { staleReferenceFindings } from "./stale-reference.ts";
import {
  LINT_CHECKS,
  type LintCounts,
  type LintFinding,
  type LintResult,
  type LintVaultReport,
} from "./types.ts";

export interface LintInput {
  /** Create stub pages for knowledge gaps (never overwrites or deletes). */
  fix?: boolean;
  /** The moment staleness is judged at; default: now. */
  now?: Date;
}

/** Index state as findings: anything but `ready` comes with its repair command. */
function indexFindings(index: IndexStatus): LintFinding[] {
  if (index.state === "ready") return [];
  const own = index.diagnostics.map((d): LintFinding => ({ ...d, check: "index" }));
  if (own.length > 0) return own;
  return [
    {
      check: "index",
      code: `index_${index.state}`,
      severity: index.state === "error" ? "error" : "warning",
      message: `the search index is ${index.state}`,
      repair: index.repair ?? "llm-wiki reindex",
    },
  ];
}

const checkRank = new Map<string, number>(LINT_CHECKS.map((c, i) => [c, i]));

function compare(a: LintFinding, b: LintFinding): number {
  const rank = (checkRank.get(a.check) ?? 0) - (checkRank.get(b.check) ?? 0);
  if (rank !== 0) return rank;
  const key = (f: LintFinding) =>
    `${f.path ?? ""}\0${String(f.line ?? 0).padStart(8, "0")}\0${f.target ?? ""}`;
  const ka = key(a);
  const kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A check whose work is small, or sliced work that yields between pages. */
type Check = () => LintFinding[] | Sliced<LintFinding[]>;

/**
 * Every finding for one vault's registry and index, in a stable order. Each
 * check's findings are appended in the order the checks are listed; a turn
 * of the loop may come between two checks and inside the ones that read
 * every page, when `clock` says the slice is over.
 */
function* collectFindings(
  handle: VaultHandle,
  vault: VaultPaths,
  registry: Registry,
  index: IndexStatus,
  now: Date,
  clock: SliceClock,
): Sliced<LintFinding[]> {
  const checks: Check[] = [
    () => indexFindings(index),
    () => malformedFindings(registry),
    () => secretFindings(vault, registry, clock),
    () => linkFindings(registry, vault),
    () => sourceFindings(registry, vault),
    () => relationFindings(registry, decisionVaultOf(vault)),
    () => gapFindings(vault, knowledgeGaps(registry, vault)),
    () => duplicateFindings(registry),
    () => contradictionFindings(vault, registry, clock),
    () => staleFindings(registry.pages.values(), now),
    () => staleReferenceFindings(handle, vault, registry),
    () => orphanFindings(registry),
  ];
  const findings: LintFinding[] = [];
  for (const check of checks) {
    const found = check();
    for (const finding of Array.isArray(found) ? found : yield* found) findings.push(finding);
    if (clock.due()) yield;
  }
  // A stable sort: findings of one check and path keep the order they were found in.
  return findings.sort(compare);
}

function countOf(findings: LintFinding[]): LintCounts {
  const counts: LintCounts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

/** Lints one vault through its handle (registry refreshed, index status read from small files). */
function* lintVault(
  handle: VaultHandle,
  input: LintInput,
  clock: SliceClock,
): Sliced<LintVaultReport> {
  const now = input.now ?? new Date();
  let registry = handle.refresh();
  let fixed: LintVaultReport["fixed"] = [];
  let skipped: LintVaultReport["skipped"] = [];
  if (input.fix) {
    ({ fixed, skipped } = createGapStubs(handle.paths, knowledgeGaps(registry, handle.paths), now));
    // Only the stubs are new: the rest of `wiki/` need not be walked again.
    const created = fixed.flatMap((fix) => (fix.path ? [fix.path] : []));
    if (created.length > 0) registry = handle.refresh(created);
  }
  if (clock.due()) yield;
  const index = handle.index.status(registry);
  const findings = yield* collectFindings(handle, handle.paths, registry, index, now, clock);
  return {
    kind: handle.paths.kind,
    root: handle.paths.root,
    findings,
    fixed,
    skipped,
    counts: countOf(findings),
  };
}

/**
 * The reports of `vaults` added up, as sliced work for a caller that runs
 * lint inside its own (rebuild-meta); `ok` is false when any finding is an error.
 */
export function* lintWork(
  handles: VaultHandles,
  vaults: VaultPaths[],
  input: LintInput,
  clock: SliceClock,
): Sliced<LintResult> {
  const reports: LintVaultReport[] = [];
  for (const v of vaults) reports.push(yield* lintVault(handles.get(v), input, clock));
  const counts: LintCounts = { error: 0, warning: 0, info: 0 };
  for (const r of reports) {
    counts.error += r.counts.error;
    counts.warning += r.counts.warning;
    counts.info += r.counts.info;
  }
  return { ok: counts.error === 0, vaults: reports, counts, diagnostics: [] };
}

/**
 * Lints each vault in one go, holding the event loop throughout: for a
 * process that serves nothing else meanwhile (bootstrap's views of a new,
 * empty vault; a CLI run). `ok` is false when any finding is an error.
 */
export function lintVaults(
  handles: VaultHandles,
  vaults: VaultPaths[],
  input: LintInput = {},
): LintResult {
  return runWhole((clock) => lintWork(handles, vaults, input, clock));
}

/**
 * Lints each vault in slices, handing the event loop back between them (see
 * sliced-work.ts), with the same findings in the same order as `lintVaults`.
 * When `signal` aborts, it stops at the next slice and the answer is an
 * `operation_cancelled` diagnostic with no report (stubs `fix` already
 * created stay: each is a whole page).
 */
export async function lintVaultsSliced(
  handles: VaultHandles,
  vaults: VaultPaths[],
  input: LintInput & { signal?: AbortSignal } = {},
): Promise<LintResult> {
  const { signal, ...rest } = input;
  try {
    return await runSliced((clock) => lintWork(handles, vaults, rest, clock), "lint", signal);
  } catch (error) {
    if (isCancelled(error)) return lintWithoutVault([error.diagnostic]);
    throw error;
  }
}

/** The answer when there is no vault to lint. */
export function lintWithoutVault(diagnostics: Diagnostic[]): LintResult {
  return { ok: false, vaults: [], counts: { error: 0, warning: 0, info: 0 }, diagnostics };
}
