/**
 * Stage record: the `source_captured` event in the vault's log (events.ts),
 * naming the packet and its page. The packet is stored by then, so a log
 * that cannot take the event is a warning, not a failure.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { RedactionCounts } from "../safety/redact.ts";
import { recordEvents } from "../vault/events.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { StoredPacket } from "./capture-types.ts";
import type { SourcePageResult } from "./source-page.ts";

/** Logs the capture; the diagnostics of the log write. */
export function recordCapture(
  vault: VaultPaths,
  stored: StoredPacket,
  page: SourcePageResult,
  redactions: RedactionCounts,
  now: Date,
): Diagnostic[] {
  const { slot, manifest } = stored;
  return recordEvents(
    vault,
    [
      {
        kind: "source_captured",
        id: slot.id,
        source_kind: manifest.kind,
        origin: manifest.origin,
        packet: slot.rel,
        ...(page.id ? { page: page.id } : {}),
        // By kind, never the values; the log redacts the line once more.
        redactions,
      },
    ],
    now,
  ).diagnostics;
}
