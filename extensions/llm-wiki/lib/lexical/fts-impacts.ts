/**
 * FTS5's own BM25 candidate pool, computed from each phrase's contribution
 * rather than by ranking every row that holds any query term.
 *
 * FTS5's `bm25()` sums one term per phrase of the MATCH expression, in the
 * expression's order: `score += idf[i] * f·(k1+1)/(f + k1·(1−b+b·D/avgD))`,
 * and returns `-score`. Each phrase's term depends only on that phrase, the
 * row, and statistics of the whole index (row count, average length, the
 * phrase's row count), never on the other phrases. So `bm25()` of a
 * single-phrase query is exactly that phrase's term (negated), and adding
 * those doubles in the expression's order reproduces the OR query's
 * `bm25()` to the last bit (negation is exact, and IEEE addition of the
 * same operands in the same order gives the same double).
 *
 * A phrase's terms (its "impacts": row ids ascending, FTS5's double for
 * each) are read once per index version and kept within an entry budget,
 * least recently used first out. A recall then merges the lists of its
 * phrases in JavaScript (no SQL per row) and keeps the best rows in the
 * order of `ORDER BY bm25, rowid`. Pure: the caller hands in the loader.
 */

/** One phrase's rows and FTS5's BM25 for each (negative, as `bm25()` returns). */
export interface PhraseImpacts {
  /** Row ids, ascending. */
  ids: Int32Array;
  /** `bm25()` of the phrase alone on each row, in `ids` order. */
  scores: Float64Array;
}

/** A row of the pool and its `bm25()` under the whole OR expression. */
export interface PoolRow {
  id: number;
  bm25: number;
}

/**
 * The `take` best rows of the OR of `lists` (given in the MATCH
 * expression's phrase order) as FTS5 ranks them: `bm25()` ascending, ties
 * by row id ascending. Exactly FTS5's doubles: each row's score is its
 * phrases' scores added in phrase order.
 */
export function poolByImpact(lists: readonly PhraseImpacts[], take: number): PoolRow[] {
  if (take <= 0) return [];
  let rows = 0;
  let last = -1;
  for (const list of lists) {
    rows += list.ids.length;
    last = Math.max(last, list.ids[list.ids.length - 1] ?? -1);
  }
  // Row ids dense enough: add each list into an array indexed by row id,
  // phrase by phrase (the same additions in the same order); otherwise
  // merge the lists by row id.
  return last < 4 * rows + 1024 ? poolByArray(lists, take, last) : poolByMerge(lists, take);
}

/**
 * Keeps `score` at row `id` in `top` (the `take` best, bm25 ascending) when
 * it ranks there; rows come by ascending id, so a row tying the worst kept
 * one ranks after it (ties by row id) and is left out.
 */
function offer(top: PoolRow[], take: number, id: number, score: number): void {
  if (top.length === take && score >= (top[take - 1] as PoolRow).bm25) return;
  let lo = 0;
  let hi = top.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((top[mid] as PoolRow).bm25 <= score) lo = mid + 1;
    else hi = mid;
  }
  top.splice(lo, 0, { id, bm25: score });
  if (top.length > take) top.pop();
}

function poolByArray(lists: readonly PhraseImpacts[], take: number, last: number): PoolRow[] {
  // Every phrase's score is negative, so a row no phrase holds stays at 0.
  const sums = new Float64Array(last + 1);
  for (const { ids, scores } of lists)
    for (let i = 0; i < ids.length; i += 1)
      sums[ids[i] as number] = (sums[ids[i] as number] as number) + (scores[i] as number);
  const top: PoolRow[] = [];
  for (let id = 0; id <= last; id += 1) {
    const score = sums[id] as number;
    if (score < 0) offer(top, take, id, score);
  }
  return top;
}

function poolByMerge(lists: readonly PhraseImpacts[], take: number): PoolRow[] {
  const top: PoolRow[] = [];
  const heads = lists.map(() => 0);
  for (;;) {
    // The smallest row id not yet merged; lists are short in number (≤ a
    // query's phrases), so a linear look over their heads is cheapest.
    let id = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i += 1) {
      const list = lists[i] as PhraseImpacts;
      const at = heads[i] as number;
      if (at < list.ids.length) {
        const head = list.ids[at] as number;
        if (head < id) id = head;
      }
    }
    if (id === Number.POSITIVE_INFINITY) break;
    let score = 0;
    for (let i = 0; i < lists.length; i += 1) {
      const list = lists[i] as PhraseImpacts;
      const at = heads[i] as number;
      if (at < list.ids.length && list.ids[at] === id) {
        score += list.scores[at] as number;
        heads[i] = at + 1;
      }
    }
    offer(top, take, id, score);
  }
  return top;
}

/** A cache of phrases' impacts holding at most `budget` rows in all. */
export interface ImpactCache {
  /** Each phrase's impacts, read through `load` when not kept. */
  get(phrases: readonly string[]): PhraseImpacts[];
  /**
   * Whether reading `phrases`' impacts pays: each is kept, or was asked for
   * once before since the last `clear` (noted now). Reading a phrase costs
   * about 1.5× ranking it once, so a phrase met once (a one-off process) is
   * ranked by FTS5, and one met again is read and kept.
   */
  worth(phrases: readonly string[]): boolean;
  /** Forgets every phrase: the index changed. */
  clear(): void;
}

/**
 * Phrases' impacts kept until `clear`, the least recently used dropped
 * once the kept rows pass `budget` (a phrase larger than the budget alone
 * is read on every use and not kept).
 */
export function createImpactCache(
  load: (phrase: string) => PhraseImpacts,
  budget: number,
): ImpactCache {
  const kept = new Map<string, PhraseImpacts>();
  const asked = new Set<string>();
  let rows = 0;
  const keep = (phrase: string, impacts: PhraseImpacts) => {
    if (impacts.ids.length > budget) return;
    kept.set(phrase, impacts);
    rows += impacts.ids.length;
    for (const [old, oldImpacts] of kept) {
      if (rows <= budget) break;
      kept.delete(old);
      rows -= oldImpacts.ids.length;
    }
  };
  return {
    get(phrases) {
      return phrases.map((phrase) => {
        const known = kept.get(phrase);
        if (known) {
          // Map order is use order: move it to the back.
          kept.delete(phrase);
          kept.set(phrase, known);
          return known;
        }
        const loaded = load(phrase);
        keep(phrase, loaded);
        return loaded;
      });
    },
    worth(phrases) {
      let all = true;
      for (const phrase of phrases) {
        if (kept.has(phrase) || asked.has(phrase)) continue;
        all = false;
        // A long-lived server meets new words forever: the notes are capped as the rows are.
        if (asked.size >= budget / 64) asked.clear();
        asked.add(phrase);
      }
      return all;
    },
    clear() {
      kept.clear();
      asked.clear();
      rows = 0;
    },
  };
}
