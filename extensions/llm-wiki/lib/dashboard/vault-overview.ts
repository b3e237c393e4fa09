/**
 * The vault at a glance, for `status`, `/wiki-dashboard` and the digest:
 * freshness (as recall labels pages), the last week's activity, the ingest
 * queue, orphans (as lint finds them) and embedding coverage. Computed from
 * the registry, the index status and the event log; reads no page file.
 */
import { pageFreshness } from "../assembly/bundles.ts";
import type { IndexStatus } from "../index/index-state.ts";
import { orphanFindings } from "../lint/page-checks.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import { periodActivity } from "./period-activity.ts";

/** The activity window of status and the dashboard. */
export const OVERVIEW_ACTIVITY_DAYS = 7;
/** Most page ids listed for the queue and the orphans (the counts are whole). */
export const OVERVIEW_LIST_MAX = 5;
const DAY_MS = 86_400_000;

export interface VaultOverview {
  /**
   * Pages by freshness: superseded → historical, past `stale_after` (or, when
   * asked, stale by code) → stale, else current.
   */
  freshness: { current: number; stale: number; historical: number };
  /** What the event log and the pages' `updated` dates say happened in the last `days` days. */
  activity: {
    days: number;
    since: string;
    events: number;
    pagesCreated: number;
    pagesUpdated: number;
    sourcesCaptured: number;
    sourcesIngested: number;
  };
  /** Captured sources not yet ingested (source pages at status `skeleton`), oldest ids first. */
  queue: { pending: number; oldest: string[] };
  /** Canonical pages no other page links to (lint's `page_orphan`). */
  orphans: { count: number; pages: string[] };
  /** Index documents that have vectors, of all documents. */
  embeddings: { documents: number; embedded: number; model?: string };
}

/** The overview of one vault at `now`. */
export function vaultOverview(
  paths: VaultPaths,
  registry: Registry,
  index: IndexStatus,
  now: Date,
  /** Pages stale by code (code-stale.ts), when the caller looked. */
  codeStale?: ReadonlySet<string>,
): VaultOverview {
  const view = { kind: paths.kind, pages: registry.pages, relations: registry.relations };
  const freshness = { current: 0, stale: 0, historical: 0 };
  const skeletons: string[] = [];
  for (const page of registry.pages.values()) {
    const label = pageFreshness(view, page.id, now);
    freshness[label === "current" && codeStale?.has(page.id) ? "stale" : label] += 1;
    if (page.type === "source" && page.status === "skeleton") skeletons.push(page.id);
  }
  // Oldest capture first: source ids and page slugs both start with the capture date.
  const byCapture = (id: string) => registry.pages.get(id)?.created ?? id;
  skeletons.sort((a, b) =>
    byCapture(a) < byCapture(b) ? -1 : byCapture(a) > byCapture(b) ? 1 : 0,
  );
  const orphanPaths = new Set(orphanFindings(registry).map((f) => f.path));
  const orphans = [...registry.pages.values()]
    .filter((p) => orphanPaths.has(p.path))
    .map((p) => p.id);
  const since = new Date(now.getTime() - OVERVIEW_ACTIVITY_DAYS * DAY_MS);
  const activity = periodActivity(paths, registry, since, now);
  const embeddings: VaultOverview["embeddings"] = {
    documents: index.documents,
    embedded: index.vectors.present ? Math.max(0, index.documents - index.needsEmbedding) : 0,
  };
  if (index.vectors.model !== undefined) embeddings.model = index.vectors.model;
  return {
    freshness,
    activity: {
      days: OVERVIEW_ACTIVITY_DAYS,
      since: activity.since,
      events: activity.events,
      pagesCreated: activity.pagesCreated.length,
      pagesUpdated: activity.pagesUpdated.length,
      sourcesCaptured: activity.sourcesCaptured.length,
      sourcesIngested: activity.sourcesIngested.length,
    },
    queue: { pending: skeletons.length, oldest: skeletons.slice(0, OVERVIEW_LIST_MAX) },
    orphans: { count: orphans.length, pages: orphans.slice(0, OVERVIEW_LIST_MAX) },
    embeddings,
  };
}
