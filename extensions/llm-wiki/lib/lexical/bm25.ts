/**
 * BM25 over QMD's three FTS columns, computed here instead of by FTS5's
 * `bm25()`: FTS5 sets the IDF of any term found in more than half of the
 * rows to almost zero, so in a small vault the topic's own words weigh
 * nothing and incidental words decide. Here the IDF is Lucene's,
 * ln(1 + (N − n + 0.5)/(n + 0.5)), never zero or below; the rest is FTS5's
 * formula (weighted term frequency over the columns, one row length), with
 * QMD's column weights. Pure: callers hand in tokens and statistics.
 */

/**
 * Saturation and length normalisation, tuned on the even-numbered queries
 * of Cranfield and of LoCoMo's turns together with proximity and feedback
 * (docs/retrieval-benchmark.md, "Lexical ablation"): b 0.5 rather than 0.6,
 * so short pages of one topic (a conversation turn, a note) are penalised
 * less for length. k1 stays 1.2: at 1.6 a hit's confidence (its score over
 * the query's most, (k1 + 1) × ΣIDF) falls for the same evidence, and
 * recall's confidence floors, set at 1.2, dropped pages the answer needs.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.5;
/** QMD's weights in its column order: file path, title, body. */
export const FIELD_WEIGHTS = [1.5, 4, 1] as const;

/** How a phrase's occurrences become a score (see DEFAULT_BM25). */
export interface Bm25Params {
  /** Saturation: the weighted frequency at which a term gives half its most. */
  k1: number;
  /** Length normalisation per column (path, title, body); the body's for the whole row unless `perField`. */
  b: readonly [number, number, number];
  /** Weight of one occurrence per column (path, title, body). */
  weights: readonly [number, number, number];
  /** Extra weight of an occurrence in a heading line of the body, on top of its body count. */
  heading: number;
  /**
   * BM25F: each column normalised by its own average length before the
   * columns are summed, rather than FTS5's one row length for all of them.
   */
  perField: boolean;
}

/** The scoring recall uses (the benchmark's ablations vary it). */
export const DEFAULT_BM25: Readonly<Bm25Params> = Object.freeze({
  k1: BM25_K1,
  b: [BM25_B, BM25_B, BM25_B] as const,
  weights: FIELD_WEIGHTS,
  heading: 0,
  perField: false,
});

/**
 * Where each term of one column occurs. Packed in integer arrays: a page's
 * terms are kept between recalls (doc-token-cache.ts), and an array per
 * distinct term, or the column's terms as an array of strings, made every
 * page first seen hundreds of objects and pointers for the young-generation
 * collector to copy and scan while the cache kept them.
 */
export interface TermPositions {
  /** Terms in the column. */
  readonly length: number;
  /** Positions of `term`, ascending; undefined when the column lacks it. */
  get(term: string): Int32Array | undefined;
  /** Occurrences of `term` (0 when absent), without making an array. */
  count(term: string): number;
  /** Occurrences of `terms` one after another (a phrase), without making an array. */
  phrase(terms: readonly string[]): number;
  /** Calls `fn` with each term the column holds and its occurrences, in the order the page first holds them (over all its columns). */
  forEachCount(fn: (count: number, term: string) => void): void;
}

/** A document's index terms per column, with where each term occurs. */
export interface TokenizedDoc {
  /** Every column's terms together (FTS5's row length). */
  length: number;
  /** Where each term occurs, per column (path, title, body). */
  positions: readonly [TermPositions, TermPositions, TermPositions];
  /** Where each term of the body's heading lines occurs there. */
  headingPositions: TermPositions;
  /**
   * `positions[c].phrase(terms)` for the path, title and body at once,
   * written into `counts`, with one look-up of the phrase's first term for
   * the three (the columns share their term numbers): most phrases of a
   * query are on no given page, and a pool's pages are each asked for every
   * phrase.
   */
  countPhrase(terms: readonly string[], counts: [number, number, number]): void;
}

/** Corpus statistics BM25 needs. */
export interface CorpusStats {
  /** Rows in the index (N). */
  documents: number;
  /** Average terms per row, all columns together. */
  averageLength: number;
  /** Average terms per column (path, title, body), when the index says. */
  fieldAverages?: readonly [number, number, number];
}

/** One searched phrase: a single term, or an identifier's terms in order. */
export interface Bm25Phrase {
  /** Its terms (stemmed as the index stores them). */
  terms: readonly string[];
  /** Rows containing it (n). */
  df: number;
  /** Its share of passages in general text, when known: pads a small vault's IDF (see `idf`). */
  prior?: number;
}

/**
 * One column of a packed page. The page's terms are numbered once, in a
 * `Map` all its columns share, and every column's arrays live in one
 * `Int32Array` per page: from `starts`, T + 1 offsets (term t's positions
 * are `data[at + data[starts + t]]` up to the next offset); from `at`, the
 * positions grouped by term, ascending; from `sequence`, the column itself
 * as term numbers.
 */
class PackedPositions implements TermPositions {
  private readonly terms: Map<string, number>;
  private readonly data: Int32Array;
  private readonly starts: number;
  private readonly at: number;
  private readonly sequence: number;
  readonly length: number;

  constructor(
    terms: Map<string, number>,
    data: Int32Array,
    starts: number,
    at: number,
    sequence: number,
    length: number,
  ) {
    this.terms = terms;
    this.data = data;
    this.starts = starts;
    this.at = at;
    this.sequence = sequence;
    this.length = length;
  }

  private from(t: number): number {
    return this.data[this.starts + t] ?? 0;
  }

  private to(t: number): number {
    return this.data[this.starts + t + 1] ?? 0;
  }

  get(term: string): Int32Array | undefined {
    const t = this.terms.get(term);
    if (t === undefined) return undefined;
    const from = this.from(t);
    const to = this.to(t);
    return to > from ? this.data.subarray(this.at + from, this.at + to) : undefined;
  }

  count(term: string): number {
    const t = this.terms.get(term);
    return t === undefined ? 0 : this.to(t) - this.from(t);
  }

  phrase(terms: readonly string[]): number {
    const first = terms[0];
    if (first === undefined) return 0;
    const t = this.terms.get(first);
    if (t === undefined) return 0;
    return this.phraseFrom(t, terms);
  }

  /** `phrase(terms)` once its first term's number `t` is known. */
  phraseFrom(t: number, terms: readonly string[]): number {
    const from = this.from(t);
    const to = this.to(t);
    if (terms.length === 1 || to === from) return to - from;
    // Runs for every candidate page and phrase of a query: no arrays or closures made here.
    let n = 0;
    for (let k = from; k < to; k += 1) {
      const at = this.data[this.at + k] ?? 0;
      let whole = true;
      for (let i = 1; i < terms.length; i += 1) {
        const next = this.terms.get(terms[i] as string);
        if (next === undefined) return 0;
        if (at + i >= this.length || this.data[this.sequence + at + i] !== next) {
          whole = false;
          break;
        }
      }
      if (whole) n += 1;
    }
    return n;
  }

  forEachCount(fn: (count: number, term: string) => void): void {
    for (const [term, t] of this.terms) {
      const n = this.to(t) - this.from(t);
      if (n > 0) fn(n, term);
    }
  }
}

/** Indexes one document's columns for phrase counting. */
export function tokenizedDoc(
  path: string[],
  title: string[],
  body: string[],
  headings: string[] = [],
): TokenizedDoc {
  const columns = [path, title, body, headings] as const;
  const terms = new Map<string, number>();
  let tokens = 0;
  for (const column of columns) {
    tokens += column.length;
    for (const term of column) if (!terms.has(term)) terms.set(term, terms.size);
  }
  const size = terms.size + 1;
  const data = new Int32Array(columns.length * size + 2 * tokens);
  const views: TermPositions[] = [];
  let free = columns.length * size;
  for (const [c, column] of columns.entries()) {
    const starts = c * size;
    const sequence = free;
    const at = free + column.length;
    free = at + column.length;
    // Counts first (shifted by one), then their running sums: the offsets.
    for (let i = 0; i < column.length; i += 1) {
      const t = terms.get(column[i] as string) ?? 0;
      data[sequence + i] = t;
      data[starts + t + 1] = (data[starts + t + 1] ?? 0) + 1;
    }
    for (let t = 1; t < size; t += 1)
      data[starts + t] = (data[starts + t] ?? 0) + (data[starts + t - 1] ?? 0);
    // Filled in column order, so each term's positions come out ascending;
    // the offsets serve as cursors and are shifted back after.
    for (let i = 0; i < column.length; i += 1) {
      const t = data[sequence + i] ?? 0;
      const slot = data[starts + t] ?? 0;
      data[at + slot] = i;
      data[starts + t] = slot + 1;
    }
    for (let t = size - 1; t > 0; t -= 1) data[starts + t] = data[starts + t - 1] ?? 0;
    data[starts] = 0;
    views.push(new PackedPositions(terms, data, starts, at, sequence, column.length));
  }
  const [pathAt, titleAt, bodyAt, headingAt] = views as [
    PackedPositions,
    PackedPositions,
    PackedPositions,
    PackedPositions,
  ];
  return {
    length: path.length + title.length + body.length,
    positions: [pathAt, titleAt, bodyAt],
    headingPositions: headingAt,
    countPhrase(phrase, counts) {
      const first = phrase[0];
      const t = first === undefined ? undefined : terms.get(first);
      if (t === undefined) {
        counts[0] = 0;
        counts[1] = 0;
        counts[2] = 0;
        return;
      }
      counts[0] = pathAt.phraseFrom(t, phrase);
      counts[1] = titleAt.phraseFrom(t, phrase);
      counts[2] = bodyAt.phraseFrom(t, phrase);
    },
  };
}

/**
 * Below this many pages a vault cannot tell its topic's words from words
 * on every page: in a new vault of two notes about backups, "backup" is on
 * both and its IDF says "common", while the words a question adds and no
 * page holds weigh most. With a prior, the pages such a vault lacks are
 * taken to hold the phrase at its share in general text; from this size
 * on, the vault's own counts decide alone.
 */
export const MIN_IDF_PAGES = 12;

/**
 * Lucene's BM25 IDF: positive for any document frequency. With `prior` (the
 * phrase's share in general text), a vault under MIN_IDF_PAGES pages is
 * padded to that size by pages holding it at that share.
 */
export function idf(documents: number, df: number, prior?: number): number {
  const missing = prior === undefined ? 0 : MIN_IDF_PAGES - documents;
  const pages = missing > 0 ? MIN_IDF_PAGES : documents;
  const held = Math.min(Math.max(0, df), documents) + (missing > 0 ? missing * (prior ?? 0) : 0);
  const n = Math.min(held, pages);
  return Math.log(1 + (pages - n + 0.5) / (n + 0.5));
}

/**
 * BM25's saturated term frequency for a weighted frequency `f` in a row of
 * `length` terms: 0 for none, 1 for one body occurrence in a row of
 * average length, at most k1 + 1.
 */
export function saturated(
  f: number,
  length: number,
  stats: CorpusStats,
  params: Readonly<Bm25Params> = DEFAULT_BM25,
): number {
  if (f <= 0) return 0;
  const norm = stats.averageLength > 0 ? length / stats.averageLength : 1;
  const b = params.b[2];
  return (f * (params.k1 + 1)) / (f + params.k1 * (1 - b + b * norm));
}

/** BM25F's pseudo-frequency: each column's weighted count over its own normalised length. */
function fieldFrequency(
  counts: readonly [number, number, number],
  headingCount: number,
  doc: TokenizedDoc,
  stats: CorpusStats,
  params: Readonly<Bm25Params>,
): number {
  const averages = stats.fieldAverages;
  let f = 0;
  for (let c = 0; c < 3; c += 1) {
    const n = counts[c] ?? 0;
    if (n === 0) continue;
    const average = averages?.[c] ?? 0;
    const b = params.b[c] ?? 0;
    const norm = average > 0 ? (doc.positions[c]?.length ?? 0) / average : 1;
    const w = params.weights[c] ?? 0;
    f += (w * n) / (1 - b + b * norm);
  }
  if (headingCount > 0) {
    const average = averages?.[2] ?? 0;
    const b = params.b[2];
    const norm = average > 0 ? doc.positions[2].length / average : 1;
    f += (params.heading * headingCount) / (1 - b + b * norm);
  }
  return f;
}

/**
 * One phrase's score in one document, its occurrences per column written
 * into `counts`, with its IDF `w` given (computed once per query, not per
 * page), without making objects. A phrase the page lacks scores 0 at once.
 */
export function phraseScore(
  doc: TokenizedDoc,
  phrase: Bm25Phrase,
  w: number,
  stats: CorpusStats,
  params: Readonly<Bm25Params>,
  counts: [number, number, number],
): number {
  doc.countPhrase(phrase.terms, counts);
  const inHeadings = params.heading > 0 ? doc.headingPositions.phrase(phrase.terms) : 0;
  if (counts[0] === 0 && counts[1] === 0 && counts[2] === 0 && inHeadings === 0) return 0;
  if (params.perField && stats.fieldAverages) {
    const f = fieldFrequency(counts, inHeadings, doc, stats, params);
    return f > 0 ? (w * f * (params.k1 + 1)) / (f + params.k1) : 0;
  }
  const f =
    counts[0] * params.weights[0] +
    counts[1] * params.weights[1] +
    counts[2] * params.weights[2] +
    inHeadings * params.heading;
  return w * saturated(f, doc.length, stats, params);
}
