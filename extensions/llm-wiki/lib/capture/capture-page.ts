/**
 * Stage page: the skeleton source page of a stored packet (source-page.ts).
 * The packet is the record; a page that cannot be made is reported as a
 * warning, never a failed capture.
 */
import { diagnostic, errorMessage } from "../diagnostics.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { StoredPacket } from "./capture-types.ts";
import { createSourcePage, type SourcePageResult } from "./source-page.ts";

/** Creates the packet's page from its (redacted) Markdown; never throws. */
export function pageForPacket(
  vault: VaultPaths,
  stored: StoredPacket,
  markdown: string,
  now: Date,
): SourcePageResult {
  try {
    return createSourcePage(vault, stored.manifest, markdown, now);
  } catch (error) {
    return {
      diagnostics: [
        diagnostic(
          "capture_page_failed",
          "warning",
          `captured ${stored.slot.id}, but its source page could not be created: ${errorMessage(error)}`,
          { path: stored.slot.rel },
        ),
      ],
    };
  }
}
