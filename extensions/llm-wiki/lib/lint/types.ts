/**
 * The shapes `wiki_lint` returns. A finding is a structured diagnostic (code,
 * severity, message, path, repair) plus the check that raised it and the
 * pages and link targets it is about, so every host renders the same answer.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { VaultKind } from "../vault/paths.ts";

/** The group of checks a finding comes from; findings are ordered by this list. */
export const LINT_CHECKS = [
  "index",
  "merge",
  "malformed",
  "secret",
  "link",
  "relation",
  "gap",
  "duplicate",
  "contradiction",
  "stale",
  "orphan",
] as const;

export type LintCheck = (typeof LINT_CHECKS)[number];

/** One problem lint found. `path` is vault-relative (`wiki/concepts/rag.md`). */
export interface LintFinding extends Diagnostic {
  check: LintCheck;
  /** A link target as written in the page (missing, ambiguous, gap). */
  target?: string;
  /** Page ids an ambiguous link could mean. */
  candidates?: string[];
  /** The other pages involved, as vault-relative paths (linkers of a gap, duplicates, the contradicted page). */
  pages?: string[];
  /** 1-based line in the file at `path`, where the problem is on one line. */
  line?: number;
}

/** A knowledge-gap stub `--fix` created, or could not create. */
export interface LintFix {
  code: "gap_stub_created" | "gap_stub_skipped";
  /** The missing target as first written. */
  target: string;
  /** Id and path of the stub (created, or where it would have gone). */
  id?: string;
  path?: string;
  /** Vault-relative paths of the pages that link to the target. */
  linkedFrom: string[];
  /** Why a stub was not created. */
  reason?: string;
}

export interface LintCounts {
  error: number;
  warning: number;
  info: number;
}

/** Lint of one vault. */
export interface LintVaultReport {
  kind: VaultKind;
  root: string;
  findings: LintFinding[];
  /** Stubs `--fix` created (empty without `--fix`). */
  fixed: LintFix[];
  /** Gaps `--fix` left alone, with the reason. */
  skipped: LintFix[];
  counts: LintCounts;
}

/** Lint of the selected vaults; `ok` is false when any error-severity finding exists. */
export interface LintResult {
  ok: boolean;
  vaults: LintVaultReport[];
  counts: LintCounts;
  /** Problems of the operation itself (no vault), not of the pages. */
  diagnostics: Diagnostic[];
}
