/**
 * `logEvent`: an agent's own line in the append-only log `meta/events.jsonl`
 * (`{"ts", "kind", "detail"}`), e.g. a query asked or a decision taken. The
 * line is appended, never rewriting the file. Kinds the tools write
 * themselves are refused, so the log's record of what the tools did cannot
 * be forged; the detail is nested under `detail` so it can never replace
 * `ts` or `kind`.
 */
import { relative } from "node:path";
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { appendEvent } from "../vault/events.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactionsField } from "../vault/redaction.ts";

/** Lowercase snake_case, starting with a letter. */
export const EVENT_KIND_PATTERN = "^[a-z][a-z0-9]*(_[a-z0-9]+)*$";
export const MAX_KIND_CHARS = 64;
/**
 * Largest serialised detail. A log line is a record, not a document, and a
 * short line is appended in one `write`, so concurrent appends stay whole.
 */
export const MAX_DETAIL_BYTES = 4_096;
const MAX_DEPTH = 8;

/** Kinds written by the tools themselves; an agent may not log them. */
const RESERVED_EVENT_KINDS: ReadonlySet<string> = new Set([
  "vault_initialized",
  "page_created",
  "source_captured",
  "source_ingested",
  "observation_recorded",
  "retro_recorded",
  "conflict_resolved",
  "page_verified",
  "digest_generated",
]);

export interface LogEventInput {
  kind: string;
  /** A JSON object; default `{}`. */
  detail?: Record<string, unknown>;
}

export interface LogEventResult {
  ok: boolean;
  kind?: string;
  /** ISO timestamp written with the event. */
  ts?: string;
  /** Vault-relative path of the log, `meta/events.jsonl`. */
  path?: string;
  /** Secrets redacted from the detail before it was logged, by kind; absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

function reject(code: string, message: string): never {
  throw new WikiError(diagnostic(code, "error", message));
}

/** Why `value` is not plain JSON (finite numbers, no cycles, not too deep), or undefined. */
function jsonProblem(
  value: unknown,
  at: string,
  depth: number,
  seen: Set<object>,
): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number")
    return Number.isFinite(value) ? undefined : `${at} is not a finite number`;
  if (typeof value !== "object") return `${at} is a ${typeof value}, not JSON`;
  if (depth > MAX_DEPTH) return `${at} is nested deeper than ${MAX_DEPTH} levels`;
  if (seen.has(value)) return `${at} refers to itself`;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return `${at} is not a plain object`;
  }
  seen.add(value);
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value);
  for (const [key, child] of entries) {
    const problem = jsonProblem(child, `${at}/${key}`, depth + 1, seen);
    if (problem) return problem;
  }
  seen.delete(value);
  return undefined;
}

/** Validates and appends the event. Throws `WikiError` when it is refused (nothing written). */
export function logEvent(
  vault: VaultPaths,
  input: LogEventInput,
  now: Date = new Date(),
): LogEventResult {
  const kind = typeof input.kind === "string" ? input.kind.trim() : "";
  if (kind.length > MAX_KIND_CHARS || !new RegExp(EVENT_KIND_PATTERN).test(kind)) {
    reject(
      "event_kind_invalid",
      `event kind "${kind}" must be lowercase snake_case (a-z, 0-9, _), at most ${MAX_KIND_CHARS} characters, e.g. "query_answered"`,
    );
  }
  if (RESERVED_EVENT_KINDS.has(kind)) {
    reject(
      "event_kind_reserved",
      `event kind "${kind}" is written by the wiki tools themselves; choose another kind`,
    );
  }
  const detail = input.detail ?? {};
  if (typeof detail !== "object" || detail === null || Array.isArray(detail)) {
    reject("event_detail_invalid", "detail must be a JSON object");
  }
  const problem = jsonProblem(detail, "detail", 0, new Set());
  if (problem) reject("event_detail_invalid", problem);
  const bytes = Buffer.byteLength(JSON.stringify(detail));
  if (bytes > MAX_DETAIL_BYTES) {
    reject(
      "event_detail_too_large",
      `detail is ${bytes} bytes as JSON; the limit is ${MAX_DETAIL_BYTES} (log a reference, keep the text in a page)`,
    );
  }
  // The log redacts what it is given and counts it in the line (see events.ts).
  const redacted = appendEvent(vault, { kind, detail }, now);
  return {
    ...redactionsField(redacted),
    ok: true,
    kind,
    ts: now.toISOString(),
    path: relative(vault.dir, vault.events).split("\\").join("/"),
    diagnostics: [],
  };
}
