/**
 * When a page's code moved on (pure, given what git said and the work
 * tree). A path the page names makes it stale when, after the page's
 * anchor (the later of `verified` and `updated`, else `created`; a date
 * without a time counts to the end of that day, since a note written the
 * day of a change usually describes it):
 *
 * - it was deleted (by a commit, or in the work tree — then "now"), or
 * - a file changed substantially: the lines added plus removed by the
 *   commits after the anchor reach a quarter of the file's current lines,
 *   and at least 3 (a binary file: any change).
 *
 * Why a share and not "any commit": in an active repository most files are
 * touched every week (a renamed import, a typo); flagging each would bury
 * the few notes whose description no longer matches, and a warning people
 * learn to ignore protects nothing. A quarter of a file rewritten is where a
 * description of what the file does starts being wrong more often than not.
 * A folder is stale only when deleted. A path git never saw (a typo, another
 * repository's file) is not the repository's code and is ignored.
 */
import type { CommitRef, PathTouch } from "./git-history.ts";
import type { StaleSymbol } from "./stale-symbols.ts";

/** Share of a file's lines that must change after the anchor. */
export const SUBSTANTIAL_SHARE = 0.25;
/** Fewest changed lines that count, whatever the file's size. */
export const SUBSTANTIAL_MIN_LINES = 3;

/** Why a page is stale by a path it names. */
export interface StalePath {
  path: string;
  kind: "deleted" | "changed";
  /** The commit that deleted it, or the last that changed it; absent for a deletion not committed yet. */
  commit?: CommitRef;
  /** Changed lines after the anchor and the file's lines now (kind "changed"). */
  churn?: number;
  lines?: number;
  /** Commits that touched it after the anchor. */
  commits?: number;
}

/** Why a page is stale by code: a path, or a symbol (stale-symbols.ts). */
export type StaleRef = StalePath | StaleSymbol;

/** What a finding points at: the path, or the symbol. */
export function staleTarget(ref: StaleRef): string {
  return ref.kind === "symbol" ? ref.symbol : ref.path;
}

/** What the work tree says about a path. */
export interface WorkTreeEntry {
  exists: boolean;
  directory: boolean;
  /** Lines of a text file; undefined for a binary or unreadable one. */
  lines?: number;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** The instant a page date stands for, in ms: a bare date counts to the end of its day (UTC). */
export function anchorMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  const ms = Date.parse(DATE_ONLY.test(t) ? `${t}T00:00:00Z` : t);
  if (Number.isNaN(ms)) return undefined;
  return DATE_ONLY.test(t) ? ms + DAY_MS - 1 : ms;
}

/** The page's anchor: the later of `verified` and `updated`, else `created`. */
export function pageAnchor(dates: {
  verified?: string;
  updated?: string;
  created?: string;
}): number | undefined {
  const verified = anchorMs(dates.verified);
  const updated = anchorMs(dates.updated) ?? anchorMs(dates.created);
  if (verified === undefined) return updated;
  return updated === undefined ? verified : Math.max(verified, updated);
}

/** Whether a path's changes after the anchor are substantial (see the module comment). */
export function isSubstantial(churn: number, lines: number | undefined): boolean {
  if (churn < 0 || lines === undefined) return churn !== 0;
  return churn >= Math.max(SUBSTANTIAL_MIN_LINES, SUBSTANTIAL_SHARE * lines);
}

/** The first reason one path makes a page stale, or undefined. */
export function staleRef(
  path: string,
  touches: readonly PathTouch[],
  tree: WorkTreeEntry,
  anchor: number | undefined,
  now: number,
): StalePath | undefined {
  // Never committed: not this repository's code as far as anything can tell.
  if (touches.length === 0) return undefined;
  const after = (t: PathTouch) => anchor === undefined || t.time * 1000 > anchor;
  if (!tree.exists) {
    const last = touches[0];
    if (last?.removed) return after(last) ? { path, kind: "deleted", commit: last } : undefined;
    // Deleted in the work tree and not committed yet: it happened before now.
    return anchor === undefined || now > anchor ? { path, kind: "deleted" } : undefined;
  }
  if (tree.directory || anchor === undefined) return undefined;
  const later = touches.filter(after);
  if (later.length === 0) return undefined;
  let churn = 0;
  for (const t of later) churn = t.churn < 0 || churn < 0 ? -1 : churn + t.churn;
  if (!isSubstantial(churn, tree.lines) && !later.some((t) => t.removed)) return undefined;
  const out: StalePath = { path, kind: "changed", churn, commits: later.length };
  if (later[0]) out.commit = later[0];
  if (tree.lines !== undefined) out.lines = tree.lines;
  return out;
}

/** `2026-03-02` from a commit time in seconds. */
export function commitDay(time: number): string {
  return new Date(time * 1000).toISOString().slice(0, 10);
}

/** One line a reader sees: which path or symbol, what happened, which commit. */
export function describeStaleRef(ref: StaleRef): string {
  if (ref.kind === "symbol") {
    const seen = `${ref.lastSeen.sha.slice(0, 7)} (${commitDay(ref.lastSeen.time)})`;
    return `symbol \`${ref.symbol}\` no longer found (last seen at the page's date, in ${seen})`;
  }
  const commit = ref.commit
    ? ` in ${ref.commit.sha.slice(0, 7)} "${ref.commit.subject.slice(0, 80)}" (${commitDay(ref.commit.time)})`
    : "";
  if (ref.kind === "deleted") {
    return ref.commit
      ? `\`${ref.path}\` was deleted${commit}`
      : `\`${ref.path}\` was deleted in the work tree (not committed)`;
  }
  const size =
    ref.churn !== undefined && ref.churn >= 0
      ? `${ref.churn} lines changed${ref.lines !== undefined ? ` of ${ref.lines}` : ""}`
      : "a binary file changed";
  const count = ref.commits !== undefined ? ` over ${ref.commits} commit(s)` : "";
  return `\`${ref.path}\` changed since the page's date (${size}${count}), last${commit}`;
}
