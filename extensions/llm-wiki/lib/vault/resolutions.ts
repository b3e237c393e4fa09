/**
 * Which user resolutions are in force. Resolution pages are immutable: a
 * changed choice is a new page that `replaces` the active one, so the
 * active resolution of a pair is the one no other resolution of the same
 * pair replaces. Pure: reads the registry's page metadata, writes nothing.
 *
 * A resolution counts only while its record still matches the id it was
 * recorded under: the id (and the page's file name) is a hash of the
 * decision, so a page whose pair, relation, scope or replaced resolution
 * was edited afterwards, or was written by hand with a made-up id, or was
 * copied into another vault, decides nothing. Lint reports each one
 * (`resolution_id_mismatch`). The hash has no secret: it keeps a record
 * honest about its own content, it does not prove who wrote it. Recall
 * names the page and date behind every resolution for that reason.
 */
import { createHash } from "node:crypto";
import type { PageMeta } from "./page.ts";
import { normaliseScope, type Resolution, type ResolutionRelation } from "./relations.ts";

/** Folder and file-name prefix of resolution pages. */
export const RESOLUTION_FOLDER = "analyses";
export const RESOLUTION_PREFIX = "conflict-resolution-";
/** Hex digits of the decision's hash kept in the id. */
const ID_HEX = 16;

/** The key of an unordered pair of page ids. */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/** What identifies a decision: its hash's inputs. */
export interface DecisionKey {
  /** `<kind>:<vault_id>` of the vault (the id from its config; empty when it has none). */
  vault: string;
  selected: string;
  other: string;
  relation: ResolutionRelation;
  scope?: string;
  replaces?: string;
}

/** The `vault` part of a decision's key: `<kind>:<vault_id>`. */
export function decisionVault(kind: string, vaultId: string | undefined): string {
  return `${kind}:${vaultId ?? ""}`;
}

/** The resolution id of a decision: `conflict-resolution-<16 hex of its sha256>`. */
export function resolutionId(key: DecisionKey): string {
  const canonical = JSON.stringify([
    key.vault,
    key.selected,
    key.other,
    key.relation,
    key.scope === undefined ? null : normaliseScope(key.scope),
    key.replaces ?? null,
  ]);
  const hex = createHash("sha256").update(canonical).digest("hex").slice(0, ID_HEX);
  return `${RESOLUTION_PREFIX}${hex}`;
}

/**
 * Why the resolution recorded on page `page` of vault `vault` (a
 * `decisionVault`) is not honoured, or undefined when it is: its id must be
 * the hash of its own decision in this vault, and the page must stand where
 * the writer puts that id.
 */
export function resolutionMismatch(page: string, r: Resolution, vault: string): string | undefined {
  const expected = resolutionId({
    vault,
    selected: r.selected,
    other: r.other,
    relation: r.relation,
    ...(r.scope !== undefined ? { scope: r.scope } : {}),
    ...(r.replaces !== undefined ? { replaces: r.replaces } : {}),
  });
  if (r.id !== expected) {
    return `its id ${r.id} is not the hash of the decision it records in this vault (${expected}): edited after it was recorded, written by hand, or copied from another vault`;
  }
  if (page !== `${RESOLUTION_FOLDER}/${r.id}`) {
    return `it records ${r.id} but stands at ${page}, not ${RESOLUTION_FOLDER}/${r.id}`;
  }
  return undefined;
}

/** A resolution with the id of the page that records it. */
export interface RecordedResolution {
  page: string;
  resolution: Resolution;
}

/**
 * The active resolution of each unordered pair among the honoured records
 * of vault `vault` (see `resolutionMismatch`). Among a pair's resolutions,
 * those replaced by another of the pair are out; of the rest (normally one;
 * more only when two were written without `replaces`) the latest decision
 * wins, then the greatest page id, so the answer never depends on page order.
 */
export function activeResolutions(
  pages: Iterable<Pick<PageMeta, "id" | "resolution">>,
  vault: string,
): Map<string, RecordedResolution> {
  const byPair = new Map<string, RecordedResolution[]>();
  for (const page of pages) {
    const r = page.resolution;
    if (!r || r.selected === r.other) continue;
    if (resolutionMismatch(page.id, r, vault) !== undefined) continue;
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
