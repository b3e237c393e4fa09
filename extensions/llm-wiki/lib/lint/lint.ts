/**
 * `wiki_lint`: runs every check on each selected vault and, with `fix`,
 * creates the stubs for knowledge gaps first, so the findings describe the
 * vault as it is when the call returns.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { IndexStatus } from "../index/index-state.ts";
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

/** Every finding for one vault's registry and index, in a stable order. */
function collectFindings(
  handle: VaultHandle,
  vault: VaultPaths,
  registry: Registry,
  index: IndexStatus,
  now: Date,
): LintFinding[] {
  const findings = [
    ...indexFindings(index),
    ...malformedFindings(registry),
    ...secretFindings(vault, registry),
    ...linkFindings(registry),
    ...relationFindings(registry, decisionVaultOf(vault)),
    ...gapFindings(vault, knowledgeGaps(registry)),
    ...duplicateFindings(registry),
    ...contradictionFindings(vault, registry),
    ...staleFindings(registry.pages.values(), now),
    ...staleReferenceFindings(handle, vault, registry),
    ...orphanFindings(registry),
  ];
  // A stable sort: findings of one check and path keep the order they were found in.
  return findings.sort(compare);
}

function countOf(findings: LintFinding[]): LintCounts {
  const counts: LintCounts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

/** Lints one vault through its handle (registry refreshed, index status read from small files). */
function lintVault(handle: VaultHandle, input: LintInput = {}): LintVaultReport {
  const now = input.now ?? new Date();
  let registry = handle.refresh();
  let fixed: LintVaultReport["fixed"] = [];
  let skipped: LintVaultReport["skipped"] = [];
  if (input.fix) {
    ({ fixed, skipped } = createGapStubs(handle.paths, knowledgeGaps(registry), now));
    // Only the stubs are new: the rest of `wiki/` need not be walked again.
    const created = fixed.flatMap((fix) => (fix.path ? [fix.path] : []));
    if (created.length > 0) registry = handle.refresh(created);
  }
  const findings = collectFindings(
    handle,
    handle.paths,
    registry,
    handle.index.status(registry),
    now,
  );
  return {
    kind: handle.paths.kind,
    root: handle.paths.root,
    findings,
    fixed,
    skipped,
    counts: countOf(findings),
  };
}

/** Lints each vault; `ok` is false when any finding or diagnostic is an error. */
export function lintVaults(
  handles: VaultHandles,
  vaults: VaultPaths[],
  input: LintInput = {},
): LintResult {
  const reports = vaults.map((v) => lintVault(handles.get(v), input));
  const counts: LintCounts = { error: 0, warning: 0, info: 0 };
  for (const r of reports) {
    counts.error += r.counts.error;
    counts.warning += r.counts.warning;
    counts.info += r.counts.info;
  }
  return { ok: counts.error === 0, vaults: reports, counts, diagnostics: [] };
}

/** The answer when there is no vault to lint. */
export function lintWithoutVault(diagnostics: Diagnostic[]): LintResult {
  return { ok: false, vaults: [], counts: { error: 0, warning: 0, info: 0 }, diagnostics };
}
