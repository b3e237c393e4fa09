/**
 * Structured diagnostics: every user-facing failure is one of these, never a
 * stack trace. `repair` is the exact command that fixes it, where one exists.
 */
export type DiagnosticSeverity = "error" | "warning" | "info";

export interface Diagnostic {
  code: string;
  severity: DiagnosticSeverity;
  message: string;
  /** Vault-relative path (or absolute, outside a vault) the diagnostic is about. */
  path?: string;
  repair?: string;
}

/** Builds a diagnostic; `extra` carries the optional path and repair command. */
export function diagnostic(
  code: string,
  severity: DiagnosticSeverity,
  message: string,
  extra: { path?: string; repair?: string } = {},
): Diagnostic {
  return { code, severity, message, ...extra };
}

/** An error that carries a diagnostic, for failures that must abort an operation. */
export class WikiError extends Error {
  readonly diagnostic: Diagnostic;
  constructor(diag: Diagnostic) {
    super(diag.message);
    this.name = "WikiError";
    this.diagnostic = diag;
  }
}

/** Short message of any thrown value, for diagnostics (never a stack). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
