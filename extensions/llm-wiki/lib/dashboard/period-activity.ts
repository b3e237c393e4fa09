/**
 * What happened in a vault between two moments, from the append-only event
 * log (`meta/events.jsonl`) and the pages' own `updated` dates: pages
 * created or updated, sources captured or ingested. Status counts it for the
 * last week; the digest lists it for its period. Read only: nothing is
 * written, and a line the log cannot parse is skipped (event-log.ts).
 */
import { readTimedEvents } from "../temporal/event-log.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";

/** Event kinds that record a page the tools wrote (a source page is counted as a capture instead). */
const PAGE_CREATED_KINDS: ReadonlySet<string> = new Set([
  "page_created",
  "observation_recorded",
  "retro_recorded",
  "conflict_resolved",
  // As @zosmaai/pi-llm-wiki logs them (its page in `path` or `slug`, see event-log.ts).
  "ensure_page",
  "observe",
  "retro",
]);
/** Capture and ingest kinds, ours and @zosmaai/pi-llm-wiki's (`capture`, `ingest` with `source_id`). */
const CAPTURED_KINDS: ReadonlySet<string> = new Set(["source_captured", "capture"]);
const INGESTED_KINDS: ReadonlySet<string> = new Set(["source_ingested", "ingest"]);

/** A page named by the period's activity; `title` from the registry when the page still exists. */
export interface ActivityPage {
  id: string;
  title?: string;
  /** Who created it, as its event recorded (the teammate, the agent). */
  by?: string;
  agent?: string;
}

/** A captured or ingested source: its packet id (`SRC-…`) and page, when known. */
export interface ActivitySource {
  id?: string;
  page?: string;
  title?: string;
}

export interface PeriodActivity {
  /** ISO timestamps bounding the period: events after `since`, up to `until`. */
  since: string;
  until: string;
  /** Events logged in the period, of any kind. */
  events: number;
  pagesCreated: ActivityPage[];
  /** Pages whose `updated` date falls in the period or that were verified in it, not created in it. */
  pagesUpdated: ActivityPage[];
  sourcesCaptured: ActivitySource[];
  sourcesIngested: ActivitySource[];
}

/** The UTC day (`YYYY-MM-DD`) of a date string, undefined unless it starts with one. */
function dayOf(text: string | undefined): string | undefined {
  const m = text === undefined ? null : /^(\d{4}-\d{2}-\d{2})/.exec(text.trim());
  return m?.[1];
}

/** The activity of `paths` in (`since`, `until`], in log order within each list. */
export function periodActivity(
  paths: VaultPaths,
  registry: Registry,
  since: Date,
  until: Date,
): PeriodActivity {
  const from = since.getTime();
  const to = until.getTime();
  const titled = (id: string): ActivityPage => {
    const title = registry.pages.get(id)?.title;
    return title === undefined ? { id } : { id, title };
  };
  const created = new Map<string, ActivityPage>();
  const verified = new Set<string>();
  const captured: ActivitySource[] = [];
  const ingested: ActivitySource[] = [];
  let events = 0;
  for (const e of readTimedEvents(paths)) {
    const t = Date.parse(e.ts);
    if (!(t > from && t <= to)) continue;
    events += 1;
    if (PAGE_CREATED_KINDS.has(e.kind) && e.page !== undefined && !created.has(e.page)) {
      const page = titled(e.page);
      if (e.by !== undefined) page.by = e.by;
      if (e.agent !== undefined) page.agent = e.agent;
      created.set(e.page, page);
    } else if (e.kind === "page_verified" && e.page !== undefined) {
      verified.add(e.page);
    } else if (CAPTURED_KINDS.has(e.kind) || INGESTED_KINDS.has(e.kind)) {
      const source: ActivitySource = {};
      if (e.id !== undefined) source.id = e.id;
      if (e.page !== undefined) {
        source.page = e.page;
        const title = registry.pages.get(e.page)?.title;
        if (title !== undefined) source.title = title;
      }
      (CAPTURED_KINDS.has(e.kind) ? captured : ingested).push(source);
    }
  }
  // A capture's skeleton page is logged as created (and dated) too: it is listed once, as the capture.
  const capturedPages = new Set(captured.flatMap((c) => (c.page === undefined ? [] : [c.page])));
  for (const id of capturedPages) created.delete(id);
  // Edits by hand or by an agent's write tool log nothing: the page's own
  // `updated` date is the record of them (a bare day counts for the whole day).
  const firstDay = dayOf(since.toISOString()) ?? "";
  const lastDay = dayOf(until.toISOString()) ?? "";
  const updated = new Map<string, ActivityPage>();
  for (const page of registry.pages.values()) {
    const day = dayOf(page.updated);
    if (day === undefined || day < firstDay || day > lastDay) continue;
    if (created.has(page.id) || capturedPages.has(page.id)) continue;
    updated.set(page.id, titled(page.id));
  }
  for (const id of verified) {
    if (!created.has(id) && !capturedPages.has(id)) updated.set(id, titled(id));
  }
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    events,
    pagesCreated: [...created.values()],
    pagesUpdated: [...updated.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    sourcesCaptured: captured,
    sourcesIngested: ingested,
  };
}
