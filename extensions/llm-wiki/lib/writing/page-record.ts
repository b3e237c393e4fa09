/**
 * Stage record of the page write path: the events of a page just created,
 * appended to `meta/events.jsonl` in one write. The contract: `page_created`
 * first (`id`, `type`, and `redactions` when secrets were taken out), then
 * the writer's own events (`observation_recorded`, …) with the same `id`
 * and `redactions` offered to them. Once the page is on disk it is the
 * record: a log that cannot take the events is an `event_not_recorded`
 * warning on a created page (see `recordEvents`), never a failure a retry
 * would answer with `page_exists`.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { recordEvents, type WikiEvent } from "../vault/events.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactionsField } from "../vault/redaction.ts";
import type { PageDraft } from "./page-draft.ts";

/** A page just created, as its events name it. */
export interface CreatedPage {
  id: string;
  /** The `type` of its front matter, as written. */
  type: unknown;
  /** Every secret taken out of the page, by kind. */
  counts: RedactionCounts;
}

/** What was logged: the page's `redactions` (absent when none), and a warning when nothing was. */
export interface RecordedPage {
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

/** The events logged for `page`, in order (see the contract above). */
export function pageEvents(page: CreatedPage, events: PageDraft["events"]): WikiEvent[] {
  const redacted = redactionsField(page.counts);
  return [
    { kind: "page_created", id: page.id, type: page.type, ...redacted },
    ...(events?.({ id: page.id, ...redacted }) ?? []),
  ];
}

/** Appends the events of `page`; never throws for the log (see `recordEvents`). */
export function recordPage(
  vault: VaultPaths,
  page: CreatedPage,
  events: PageDraft["events"],
  now: Date,
): RecordedPage {
  const logged = recordEvents(vault, pageEvents(page, events), now);
  return { ...redactionsField(page.counts), diagnostics: logged.diagnostics };
}
