/**
 * The overview (vault-overview.ts) as labelled lines, shared by `status`
 * (every host) and `/wiki-dashboard`, so both say the same. Page ids are
 * shown neutralised: they come from file names in the vault.
 */
import { neutraliseLine } from "../safety/text.ts";
import type { VaultOverview } from "./vault-overview.ts";

const ids = (list: readonly string[], total: number): string =>
  list.length === 0
    ? ""
    : ` (${list.map(neutraliseLine).join(", ")}${total > list.length ? `, … ${total - list.length} more` : ""})`;

/** One line per part of the overview, each starting with an 8-column label. */
export function overviewLines(o: VaultOverview): string[] {
  const a = o.activity;
  const e = o.embeddings;
  const coverage =
    e.documents === 0
      ? "no documents indexed"
      : `${e.embedded}/${e.documents} documents embedded (${Math.floor((e.embedded / e.documents) * 100)}%)${e.model ? `, ${neutraliseLine(e.model)}` : ""}`;
  return [
    `fresh   ${o.freshness.current} current, ${o.freshness.stale} stale, ${o.freshness.historical} historical`,
    `${`${a.days} days`.padEnd(8)}${a.pagesCreated} page(s) created, ${a.pagesUpdated} updated; ${a.sourcesCaptured} source(s) captured, ${a.sourcesIngested} ingested; ${a.events} event(s)`,
    `queue   ${o.queue.pending} source(s) to ingest${ids(o.queue.oldest, o.queue.pending)}`,
    `orphans ${o.orphans.count} page(s) nothing links to${ids(o.orphans.pages, o.orphans.count)}`,
    `embed   ${coverage}`,
  ];
}
