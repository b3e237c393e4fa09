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
 * Where each term of one column occurs. Packed in two integer arrays: a
 * page's terms are kept between recalls (doc-token-cache.ts), and an array
 * per distinct term made every page first seen hundreds of small objects
 * for the young-generation collector to copy while the cache kept them.
 */
export interface TermPositions {
  /** Positions of `term`, ascending; undefined when the column lacks it. */
  get(term: string): Int32Array | undefined;
  /** Occurrences of `term` (0 when absent), without making an array. */
  count(term: string): number;
  /** Calls `fn` with each term and its occurrences, in order of first occurrence. */
  forEachCount(fn: (count: number, term: string) => void): void;
}

/** A document's index terms per column, with where each term occurs. */
export interface TokenizedDoc {
  /** Terms per column (path, title, body). */
  fields: readonly [readonly string[], readonly string[], readonly string[]];
  /** Every column's terms together (FTS5's row length). */
  length: number;
  /** Positions of each term per column. */
  positions: readonly [TermPositions, TermPositions, TermPositions];
  /** Terms of the body's heading lines, in order, and their positions there. */
  headings: readonly string[];
  headingPositions: TermPositions;
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

/** Positions grouped by term: group g's positions are `at[starts[g]]` to `at[starts[g + 1] - 1]`. */
class PackedPositions implements TermPositions {
  private readonly groups: Map<string, number>;
  private readonly starts: Int32Array;
  private readonly at: Int32Array;

  constructor(groups: Map<string, number>, starts: Int32Array, at: Int32Array) {
    this.groups = groups;
    this.starts = starts;
    this.at = at;
  }

  get(term: string): Int32Array | undefined {
    const g = this.groups.get(term);
    return g === undefined ? undefined : this.at.subarray(this.starts[g], this.starts[g + 1]);
  }

  count(term: string): number {
    const g = this.groups.get(term);
    return g === undefined ? 0 : (this.starts[g + 1] ?? 0) - (this.starts[g] ?? 0);
  }

  forEachCount(fn: (count: number, term: string) => void): void {
    for (const [term, g] of this.groups)
      fn((this.starts[g + 1] ?? 0) - (this.starts[g] ?? 0), term);
  }
}

function positionsOf(terms: readonly string[]): TermPositions {
  const groups = new Map<string, number>();
  const groupOf = new Int32Array(terms.length);
  const counts: number[] = [];
  for (let i = 0; i < terms.length; i += 1) {
    const term = terms[i] as string;
    let g = groups.get(term);
    if (g === undefined) {
      g = counts.length;
      groups.set(term, g);
      counts.push(0);
    }
    counts[g] = (counts[g] ?? 0) + 1;
    groupOf[i] = g;
  }
  const starts = new Int32Array(counts.length + 1);
  for (let g = 0; g < counts.length; g += 1) starts[g + 1] = (starts[g] ?? 0) + (counts[g] ?? 0);
  // Filled in token order, so each term's positions come out ascending.
  const next = starts.slice(0, counts.length);
  const at = new Int32Array(terms.length);
  for (let i = 0; i < terms.length; i += 1) {
    const g = groupOf[i] ?? 0;
    at[next[g] ?? 0] = i;
    next[g] = (next[g] ?? 0) + 1;
  }
  return new PackedPositions(groups, starts, at);
}

/** Indexes one document's columns for phrase counting. */
export function tokenizedDoc(
  path: string[],
  title: string[],
  body: string[],
  headings: string[] = [],
): TokenizedDoc {
  return {
    fields: [path, title, body],
    length: path.length + title.length + body.length,
    positions: [positionsOf(path), positionsOf(title), positionsOf(body)],
    headings,
    headingPositions: positionsOf(headings),
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

/** How often `terms` occur in order in one column. */
function occurrences(
  terms: readonly string[],
  column: readonly string[],
  positions: TermPositions,
): number {
  const first = terms[0];
  if (first === undefined) return 0;
  if (terms.length === 1) return positions.count(first);
  const starts = positions.get(first);
  if (!starts) return 0;
  // Runs for every candidate page and phrase of a query: no arrays or closures made here.
  let n = 0;
  for (const at of starts) {
    let whole = true;
    for (let i = 1; i < terms.length; i += 1) {
      if (column[at + i] !== terms[i]) {
        whole = false;
        break;
      }
    }
    if (whole) n += 1;
  }
  return n;
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
    const norm = average > 0 ? (doc.fields[c]?.length ?? 0) / average : 1;
    const w = params.weights[c] ?? 0;
    f += (w * n) / (1 - b + b * norm);
  }
  if (headingCount > 0) {
    const average = averages?.[2] ?? 0;
    const b = params.b[2];
    const norm = average > 0 ? doc.fields[2].length / average : 1;
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
  counts[0] = occurrences(phrase.terms, doc.fields[0], doc.positions[0]);
  counts[1] = occurrences(phrase.terms, doc.fields[1], doc.positions[1]);
  counts[2] = occurrences(phrase.terms, doc.fields[2], doc.positions[2]);
  const inHeadings =
    params.heading > 0 ? occurrences(phrase.terms, doc.headings, doc.headingPositions) : 0;
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
