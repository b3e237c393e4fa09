/**
 * The symbol half of the per-commit code state (code-state.ts owns the
 * file): which search terms HEAD's tree has, asked with one `git grep` per
 * batch of terms not yet asked at this HEAD; the commits from HEAD (one
 * `git log`, only once some page names a symbol HEAD lacks); and which
 * terms the commit at each such page's date had — commits never change, so
 * those answers survive HEAD moving, and after the first time a moved HEAD
 * costs one `git grep` for the terms of pages not seen yet.
 */

import { termPresence } from "./git-grep.ts";
import { commitTimeline } from "./git-history.ts";
import type { GitRunner } from "./git-run.ts";
import {
  commitAt,
  type StaleSymbol,
  symbolChecked,
  symbolPresent,
  symbolTerms,
} from "./stale-symbols.ts";

/** Commits whose greps are kept: older answers are asked again if needed. */
const MAX_COMMITS_KEPT = 200;

/** The cached part: `head*` fields are for the cache's HEAD, `at` for any commit. */
export interface SymbolCache {
  /** Term → found at HEAD. */
  headTerms: Record<string, boolean>;
  /** Commits from HEAD, newest first, when some page needed them. */
  timeline?: { commits: Array<[string, number]>; complete: boolean };
  /** Commit sha → term → found in that commit's tree. */
  at: Record<string, Record<string, boolean>>;
}

/** A page's symbols and the instant its description holds for. */
export interface SymbolPage {
  symbols: readonly string[];
  anchor: number | undefined;
}

/** What to run git with. */
export interface SymbolContext {
  run: GitRunner;
  root: string;
  head: string;
  /** The vault's folder relative to the repository root, when inside it. */
  excluded?: string;
}

/** The symbol part of a cache, for a HEAD it has never seen. */
export function emptySymbolCache(at: SymbolCache["at"] = {}): SymbolCache {
  return { headTerms: {}, at };
}

/** Adds `found` to `into`; whether anything was new. */
function merge(into: Record<string, boolean>, found: Map<string, boolean> | undefined): boolean {
  if (!found || found.size === 0) return false;
  // Defined, not assigned: a term `__proto__` must become a key, not a prototype.
  for (const [t, v] of found)
    Object.defineProperty(into, t, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return true;
}

/**
 * The symbols of each of `pages` that are gone since the page's date, by
 * page id, sorted; updates `cache` (and says whether it changed). A git
 * failure leaves the symbols it concerns unjudged: nothing is stale for it.
 */
export function staleSymbols(
  cache: SymbolCache,
  ctx: SymbolContext,
  pages: ReadonlyMap<string, SymbolPage>,
): { stale: Map<string, StaleSymbol[]>; dirty: boolean } {
  let dirty = false;
  const stale = new Map<string, StaleSymbol[]>();
  const unasked = new Set<string>();
  for (const p of pages.values())
    for (const s of p.symbols)
      for (const t of symbolTerms(s)) if (!Object.hasOwn(cache.headTerms, t)) unasked.add(t);
  if (unasked.size > 0)
    dirty =
      merge(
        cache.headTerms,
        termPresence(ctx.run, ctx.root, ctx.head, [...unasked], ctx.excluded),
      ) || dirty;

  // The symbols HEAD lacks, by the commit at their page's date.
  const gone = new Map<string, Array<{ symbol: string; at: { sha: string; time: number } }>>();
  const askAt = new Map<string, Set<string>>();
  for (const [id, p] of pages) {
    if (p.anchor === undefined) continue;
    const missing = p.symbols.filter(
      (s) => symbolChecked(cache.headTerms, s) && !symbolPresent(cache.headTerms, s),
    );
    if (missing.length === 0) continue;
    if (!cache.timeline) {
      const timeline = commitTimeline(ctx.run, ctx.root, ctx.head);
      if (!timeline) break;
      cache.timeline = timeline;
      dirty = true;
    }
    const at = commitAt(cache.timeline.commits, p.anchor, cache.timeline.complete);
    // No commit before the page, or the page is newer than HEAD: nothing has gone since.
    if (!at || at.sha === ctx.head) continue;
    gone.set(
      id,
      missing.map((symbol) => ({ symbol, at })),
    );
    const known = cache.at[at.sha] ?? {};
    for (const s of missing)
      for (const t of symbolTerms(s)) {
        if (Object.hasOwn(known, t)) continue;
        let set = askAt.get(at.sha);
        if (!set) {
          set = new Set();
          askAt.set(at.sha, set);
        }
        set.add(t);
      }
  }
  for (const [sha, terms] of askAt) {
    const found = termPresence(ctx.run, ctx.root, sha, [...terms], ctx.excluded);
    if (!found) continue;
    // Re-inserted last: the oldest-asked commit is the first dropped.
    const entry = { ...(cache.at[sha] ?? {}) };
    delete cache.at[sha];
    merge(entry, found);
    cache.at[sha] = entry;
    dirty = true;
  }
  const shas = Object.keys(cache.at);
  for (const sha of shas.slice(0, Math.max(0, shas.length - MAX_COMMITS_KEPT)))
    delete cache.at[sha];

  for (const [id, list] of gone) {
    const out: StaleSymbol[] = [];
    for (const { symbol, at } of list) {
      const then = cache.at[at.sha];
      if (then && symbolPresent(then, symbol))
        out.push({ kind: "symbol", symbol, lastSeen: { sha: at.sha, time: at.time } });
    }
    if (out.length > 0)
      stale.set(
        id,
        out.sort((a, b) => (a.symbol < b.symbol ? -1 : 1)),
      );
  }
  return { stale, dirty };
}
