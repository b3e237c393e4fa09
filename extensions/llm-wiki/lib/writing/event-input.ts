/**
 * Stage validate of the event write path (vault/events.ts) for an agent's
 * own event (`logEvent`): the kind is lowercase snake_case and not one the
 * tools write themselves, so the log's record of what the tools did cannot
 * be forged; the detail is plain JSON of bounded depth and size. A refusal
 * throws `WikiError` naming what is wrong; nothing is written then.
 */
import { diagnostic, WikiError } from "../diagnostics.ts";

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
  "page_updated",
  "source_captured",
  "source_ingested",
  "observation_recorded",
  "retro_recorded",
  "conflict_resolved",
  "page_verified",
  "digest_generated",
]);

/** An event an agent may log: its kind, and its detail as a JSON object. */
export interface CheckedEvent {
  kind: string;
  detail: Record<string, unknown>;
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

/** Checks an agent's event; throws `WikiError` (`event_kind_*`, `event_detail_*`) when it is refused. */
export function validateEvent(input: { kind: unknown; detail?: unknown }): CheckedEvent {
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
  const detail: unknown = input.detail ?? {};
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
  return { kind, detail: detail as Record<string, unknown> };
}
