/**
 * Model-free lexical search over QMD's own `documents_fts`: an OR of the
 * query's terms ranked by BM25 with QMD's column weights, the best hit's
 * IDF-weighted coverage of the query, and excerpts cut inside SQLite so no
 * page body crosses into JavaScript. Statements are prepared once per store;
 * document frequencies are cached until `invalidate` (after any index write).
 *
 * Structural types only: qmd-store.ts hands in QMD's database connection.
 */
import { buildLexQuery, type LexQuery, type LexTerm } from "./lex-query.ts";
import {
  type Candidate,
  surfaces,
  tidyWindow,
  WINDOW_BEFORE,
  WINDOW_CHARS,
} from "./qmd-excerpts.ts";

interface SqlReader {
  all<T>(...params: Array<string | number>): T[];
  get<T>(...params: Array<string | number>): T | undefined;
}

/** The part of a QMD database connection used here (better-sqlite3 shaped). */
export interface QmdSqlQueries {
  prepare(sql: string): SqlReader;
}

/** Query terms weighed for a hit's coverage (see `coverage` below); more are noise. */
const COVERAGE_TERMS = 32;
/** Terms one OR query may carry (see `selectTerms`). */
const MAX_QUERY_TERMS = 16;
/** Document-frequency probes stop counting here: any term this common is "common". */
const DF_PROBE_CAP = 64;

interface LexRow {
  id: number;
  bm25: number;
  collection: string;
  path: string;
  title: string;
}

/** A lexical candidate and its FTS row id (for excerpts cut later). */
export interface LexCandidate {
  candidate: Candidate;
  rowid: number;
}

/** Lexical search over one store's collections. */
export function createLexicalSearch(db: QmdSqlQueries, collections: readonly string[]) {
  const collectionsJson = JSON.stringify(collections);
  // Ids, scores, title and path only: QMD's own statement returns every body.
  // Weights follow QMD's column order (filepath 1.5, title 4, body 1). FTS5
  // ranks first and only its best rows are joined; the slack lets ties at the
  // cut (identical pages) and rows of dropped collections sort out by path.
  const lexStmt = db.prepare(`
    WITH ranked AS (
      SELECT rowid AS id, bm25(documents_fts, 1.5, 4.0, 1.0) AS bm25
      FROM documents_fts WHERE documents_fts MATCH ?
      ORDER BY bm25 LIMIT ?)
    SELECT ranked.id AS id, ranked.bm25 AS bm25,
           d.collection AS collection, d.path AS path, d.title AS title
    FROM ranked JOIN documents d ON d.id = ranked.id
    WHERE d.active = 1 AND d.collection IN (SELECT value FROM json_each(?))
    ORDER BY ranked.bm25, d.collection, d.path
    LIMIT ?`);
  // An excerpt is a window of the page body around the first query word found,
  // cut inside SQLite for all hits in one statement: no body crosses into JavaScript.
  const windowStmt = db.prepare(`
    WITH page AS MATERIALIZED (
      SELECT d.id AS id, c.doc AS doc, lower(c.doc) AS low
      FROM documents d JOIN content c ON c.hash = d.hash
      WHERE d.id IN (SELECT value FROM json_each(?))),
    hit AS (
      SELECT page.id AS id, coalesce(min(nullif(instr(page.low, j.value), 0)), 1) AS at
      FROM page, json_each(?) j GROUP BY page.id)
    SELECT page.id AS id, substr(page.doc, max(1, hit.at - ${WINDOW_BEFORE}), ${WINDOW_CHARS}) AS text,
           max(1, hit.at - ${WINDOW_BEFORE}) AS start, length(page.doc) AS length
    FROM page JOIN hit ON hit.id = page.id`);
  // Document frequency per term, capped: one statement for all terms of a long query.
  const dfStmt = db.prepare(`
    SELECT j.key AS term, (
      SELECT count(*) FROM (
        SELECT 1 FROM documents_fts WHERE documents_fts MATCH j.value LIMIT ${DF_PROBE_CAP})
    ) AS df
    FROM json_each(?) j`);
  const dfOneStmt = db.prepare(
    "SELECT count(*) AS df FROM (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT ?)",
  );
  const totalStmt = db.prepare("SELECT count(*) AS n FROM documents WHERE active = 1");
  const termStmt = db.prepare(
    "SELECT 1 AS hit FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?",
  );

  /** Document frequency of a term, counted up to `cap`; cached until the next `update`. */
  const dfCache = new Map<string, number>();
  let totalDocs: number | undefined;
  const documentCount = (): number => {
    totalDocs ??= totalStmt.get<{ n: number }>()?.n ?? 0;
    return totalDocs;
  };
  const documentFrequency = (match: string, cap: number): number => {
    const cached = dfCache.get(match);
    if (cached !== undefined) return cached;
    const df = dfOneStmt.get<{ df: number }>(match, cap)?.df ?? 0;
    dfCache.set(match, df);
    return df;
  };

  /**
   * How much of the query the best hit covers: the IDF-weighted share of the
   * query's terms it contains (BM25's idf). A term absent from the vault
   * weighs most, so "tell me a joke" against notes that only share "tell"
   * covers little, while a question whose rare words are all on the page
   * covers nearly everything. Frequencies above a tenth of the vault are
   * capped: such terms weigh little either way, and counting them is slow.
   */
  const coverage = (terms: LexTerm[], rowid: number): number => {
    const n = documentCount();
    if (n === 0 || terms.length === 0) return 0;
    const cap = Math.max(64, Math.ceil(n / 10));
    let all = 0;
    let matched = 0;
    for (const term of terms.slice(0, COVERAGE_TERMS)) {
      const match = term.fts.join(" OR ");
      const df = documentFrequency(match, cap);
      const weight = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      all += weight;
      if (df > 0 && termStmt.get(match, rowid)) matched += weight;
    }
    return all === 0 ? 0 : matched / all;
  };

  /** Excerpts by document id, for the given query words. */
  const excerpts = (terms: LexTerm[], ids: number[]): Map<number, string> => {
    const out = new Map<number, string>();
    if (ids.length === 0 || terms.length === 0) return out;
    const rows = windowStmt.all<{ id: number; text: string | null; start: number; length: number }>(
      JSON.stringify(ids),
      JSON.stringify(surfaces(terms)),
    );
    for (const row of rows) {
      if (!row.text) continue;
      const cutEnd = row.start - 1 + row.text.length < row.length;
      out.set(row.id, tidyWindow(row.text, row.start > 1, cutEnd));
    }
    return out;
  };

  /**
   * A long query (a pasted prompt) keeps its MAX_QUERY_TERMS rarest terms:
   * OR-BM25 cost is driven by common terms' long posting lists (at 10k pages,
   * the 16 rarest of ~100 terms ran ~7× faster than the 32 rarest), while
   * BM25 gives those terms little weight. Terms absent from the index go
   * first; ties keep query order.
   */
  const selectTerms = (built: LexQuery): LexQuery => {
    if (built.terms.length <= MAX_QUERY_TERMS) return built;
    const probes = JSON.stringify(built.terms.map((term) => term.fts.join(" OR ")));
    const df = new Map(dfStmt.all<{ term: number; df: number }>(probes).map((r) => [r.term, r.df]));
    const rarest = built.terms
      .map((term, order) => ({ term, order, df: df.get(order) ?? 0 }))
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df || a.order - b.order)
      .slice(0, MAX_QUERY_TERMS)
      .sort((a, b) => a.order - b.order)
      .map((t) => t.term);
    return { terms: rarest, match: [...new Set(rarest.flatMap((t) => t.fts))].join(" OR ") };
  };

  /** Lexical candidates in BM25 order, plus the scale factor from the best hit's coverage. */
  const lexical = (
    query: string,
    limit: number,
  ): { built?: LexQuery; rows: LexRow[]; strength: number } => {
    const parsed = buildLexQuery(query);
    if (!parsed || limit === 0) return { rows: [], strength: 0 };
    try {
      const built = selectTerms(parsed);
      if (built.terms.length === 0) return { rows: [], strength: 0 };
      const rows = lexStmt.all<LexRow>(built.match, limit * 2 + 20, collectionsJson, limit);
      const top = rows[0];
      // Coverage weighs every term of the query, including those too rare to search for.
      return { built, rows, strength: top ? coverage(parsed.terms, top.id) : 0 };
    } catch (error) {
      // Every term is quoted, so this should be unreachable; a user string must never throw.
      if (/fts5/i.test(String(error))) return { rows: [], strength: 0 };
      throw error;
    }
  };

  /** Lexical candidates; confidence is the list score (see `QmdStore.searchLex`). */
  const lexCandidates = (query: string, limit: number, withExcerpts: boolean) => {
    const { built, rows, strength } = lexical(query, limit);
    const terms = built?.terms ?? [];
    const chunks = withExcerpts
      ? excerpts(
          terms,
          rows.map((row) => row.id),
        )
      : new Map<number, string>();
    const max = Math.max(0, ...rows.map((row) => -row.bm25));
    const list = rows.map((row) => {
      const confidence = max > 0 ? (-row.bm25 / max) * strength : strength;
      const bestChunk = chunks.get(row.id);
      return {
        candidate: {
          key: `${row.collection}/${row.path}`,
          collection: row.collection,
          path: row.path,
          title: row.title,
          rawScore: -row.bm25,
          confidence,
          ...(bestChunk ? { bestChunk } : {}),
        },
        rowid: row.id,
      };
    });
    return { terms, list, strength };
  };

  return {
    /**
     * Candidates in BM25 order (at most `limit`), each with its confidence
     * (list score times coverage), and the query's terms.
     */
    candidates: lexCandidates,
    excerpts,
    /** Forgets cached frequencies and counts: the index changed. */
    invalidate(): void {
      dfCache.clear();
      totalDocs = undefined;
    },
  };
}
