/**
 * `logEvent`: an agent's own line in the append-only log `meta/events.jsonl`
 * (`{"ts", "kind", "detail"}`), e.g. a query asked or a decision taken. The
 * line is appended, never rewriting the file. The event is checked by
 * event-input.ts (kinds the tools write themselves are refused), then
 * appended down the log's write path (vault/events.ts); the detail is
 * nested under `detail` so it can never replace `ts` or `kind`.
 */
import { relative } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import { appendEventsTo } from "../vault/events.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactionsField } from "../vault/redaction.ts";
import { validateEvent } from "./event-input.ts";

/** The checks of an agent's event, and their limits (kept importable from here). */
export {
  EVENT_KIND_PATTERN,
  MAX_DETAIL_BYTES,
  MAX_KIND_CHARS,
} from "./event-input.ts";

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
  /** Vault-relative path of the log file appended to: `meta/events.jsonl`, or in git this clone's `meta/events/<clone>-<commit>.jsonl`. */
  path?: string;
  /** Secrets redacted from the detail before it was logged, by kind; absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

/** Validates and appends the event. Throws `WikiError` when it is refused (nothing written). */
export function logEvent(
  vault: VaultPaths,
  input: LogEventInput,
  now: Date = new Date(),
): LogEventResult {
  const { kind, detail } = validateEvent(input);
  // The log redacts what it is given and counts it in the line (see events.ts).
  const { redactions: redacted, file } = appendEventsTo(vault, [{ kind, detail }], now);
  return {
    ...redactionsField(redacted),
    ok: true,
    kind,
    ts: now.toISOString(),
    path: relative(vault.dir, file ?? vault.events)
      .split("\\")
      .join("/"),
    diagnostics: [],
  };
}
