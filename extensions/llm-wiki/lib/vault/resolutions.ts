/**
 * Which user resolutions are in force. Resolution pages are immutable: a
 * changed choice is a new page that `replaces` the active one, so the
 * active resolution of a pair is the one no other resolution of the same
 * pair replaces. Pure: reads the registry's page metadata, writes nothing.
 */
import type { PageMeta } from "./page.ts";
import type { Resolution } from "./relations.ts";

/** The key of an unordered pair of page ids. */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/** A resolution with the id of the page that records it. */
export interface RecordedResolution {
  page: string;
  resolution: Resolution;
}

/**
 * The active resolution of each unordered pair. Among a pair's resolutions,
 * those replaced by another of the pair are out; of the rest (normally one;
 * more only when two were written without `replaces`) the latest decision
 * wins, then the greatest page id, so the answer never depends on page order.
 */
export function activeResolutions(
  pages: Iterable<Pick<PageMeta, "id" | "resolution">>,
): Map<string, RecordedResolution> {
  const byPair = new Map<string, RecordedResolution[]>();
  for (const page of pages) {
    const r = page.resolution;
    if (!r || r.selected === r.other) continue;
    const key = pairKey(r.selected, r.other);
    const list = byPair.get(key);
    const entry = { page: page.id, resolution: r };
    if (list) list.push(entry);
    else byPair.set(key, [entry]);
  }
  const active = new Map<string, RecordedResolution>();
  for (const [key, list] of byPair) {
    const replaced = new Set(list.map((e) => e.resolution.replaces).filter(Boolean));
    const standing = list.filter((e) => !replaced.has(e.resolution.id));
    // A cycle of replacements leaves none standing: fall back to every record.
    const pool = standing.length > 0 ? standing : list;
    pool.sort(
      (x, y) =>
        (y.resolution.decidedAt > x.resolution.decidedAt ? 1 : 0) -
          (y.resolution.decidedAt < x.resolution.decidedAt ? 1 : 0) || (y.page > x.page ? 1 : -1),
    );
    active.set(key, pool[0] as RecordedResolution);
  }
  return active;
}
