/**
 * A capture's answer to its host: the packet, the page and every stage's
 * diagnostics with a note of the secrets redacted (by kind, never the
 * values); or, for a failure, its one diagnostic and nothing else.
 */
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { countTotal, type RedactionCounts } from "../safety/redact.ts";
import type { CapturedPacket } from "./capture-dedupe.ts";
import type { CapturedDocument, CaptureSourceResult, StoredPacket } from "./capture-types.ts";
import type { SourceManifest } from "./packet.ts";
import type { SourcePageResult } from "./source-page.ts";

/** What a successful capture did, from its stages' outputs. */
export interface CaptureOutcome {
  document: CapturedDocument;
  stored: StoredPacket;
  page: SourcePageResult;
  /** The diagnostics of the event log write. */
  logged: Diagnostic[];
  redactions: RedactionCounts;
}

/** The result of a capture that stored its packet. */
export function captureReport(outcome: CaptureOutcome): CaptureSourceResult {
  const { document, stored, page, logged, redactions } = outcome;
  const diagnostics = [...(document.extraction.diagnostics ?? []), ...page.diagnostics, ...logged];
  if (countTotal(redactions) > 0) {
    diagnostics.push(
      diagnostic(
        "capture_redacted",
        "info",
        `${countTotal(redactions)} secret(s) redacted before writing: ${Object.entries(redactions)
          .map(([kind, n]) => `${kind} ${n}`)
          .join(", ")}`,
        { path: stored.slot.rel },
      ),
    );
  }
  return {
    ok: true,
    id: stored.slot.id,
    packet: stored.slot.rel,
    ...(page.id ? { page: page.id } : {}),
    manifest: stored.manifest,
    redactions,
    diagnostics,
  };
}

/**
 * The result of a capture whose source was already captured: the existing
 * packet's id, `deduplicated`, and a note; nothing was written.
 */
export function duplicateReport(
  existing: CapturedPacket,
  redactions: RedactionCounts,
): CaptureSourceResult {
  const { manifest } = existing;
  // An older packet's manifest may lack fields this result promises: given only when whole.
  const whole = typeof manifest.packet_version === "string" && manifest.hashes !== undefined;
  return {
    ok: true,
    id: existing.id,
    packet: existing.rel,
    ...(existing.page !== undefined ? { page: existing.page } : {}),
    ...(whole ? { manifest: manifest as SourceManifest } : {}),
    deduplicated: true,
    // What this capture took out before comparing: the same counts a first capture reports.
    redactions,
    diagnostics: [
      diagnostic(
        "capture_duplicate",
        "info",
        `the same content was already captured as ${existing.id}; nothing written`,
        { path: existing.rel },
      ),
    ],
  };
}

/** The result of a capture that failed: a refusal's own diagnostic, anything else as `capture_failed`. */
export function captureFailure(error: unknown): CaptureSourceResult {
  if (error instanceof WikiError) {
    return { ok: false, redactions: {}, diagnostics: [error.diagnostic] };
  }
  return {
    ok: false,
    redactions: {},
    diagnostics: [diagnostic("capture_failed", "error", `capture failed: ${errorMessage(error)}`)],
  };
}
