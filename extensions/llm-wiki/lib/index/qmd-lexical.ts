/**
 * Model-free lexical search over QMD's own `documents_fts`. FTS5's BM25
 * selects the candidates (an OR of the query's terms, a pool wider than
 * asked; computed exactly from each phrase's own bm25, lexical/fts-impacts.ts,
 * rather than by FTS5 ranking every row); each is then scored here with BM25 whose IDF never drops to
 * zero (see lexical/bm25.ts), on the candidate's own terms, with QMD's
 * column weights, then reordered by term proximity and, for a clear query,
 * pseudo-relevance feedback (lexical/scoring.ts). A hit's confidence is BM25
 * evidence: a score over the most the query can score (every term at BM25's
 * saturation, words on no page included), so it is absolute (comparable
 * across queries and vaults); the pool's confidences go to the list's places
 * best first, so they stay in the list's order. Excerpts are cut
 * from the page text of the hits kept. Statements are prepared once per store; frequencies,
 * statistics and tokenized candidates are cached until `invalidate`.
 *
 * Structural types only: qmd-store.ts hands in QMD's database connection.
 */
import { backgroundShare } from "../lexical/background.ts";
import { type Bm25Phrase, type CorpusStats, idf, phraseScore } from "../lexical/bm25.ts";
import { createDocTokenCache, type DocTokenCache } from "../lexical/doc-token-cache.ts";
import { createImpactCache, type PhraseImpacts, poolByImpact } from "../lexical/fts-impacts.ts";
import { statsFromAverages } from "../lexical/fts-stats.ts";
import { ftsTokens } from "../lexical/fts-tokens.ts";
import { type LexicalScoring, lexicalScoring, secondPass } from "../lexical/scoring.ts";
import { type SpellingRepair, spellingRepairs } from "../lexical/spelling.ts";
import { bodyExcerpt, wordFinder } from "./body-window.ts";
import { buildLexQuery, type LexQuery, type LexTerm, STOP_WORDS } from "./lex-query.ts";
import { DOCUMENT_TEXT_SQL } from "./qmd-documents.ts";
import { type Candidate, surfaces } from "./qmd-excerpts.ts";
import type { LexEvidenceFloor, TermMatch } from "./qmd-store-types.ts";

export type { TermMatch } from "./qmd-store-types.ts";

interface SqlReader {
  all<T>(...params: Array<string | number>): T[];
  get<T>(...params: Array<string | number>): T | undefined;
}

/** The part of a QMD database connection used here (better-sqlite3 shaped). */
export interface QmdSqlQueries {
  prepare(sql: string): SqlReader;
}

/** Query terms weighed for a hit's confidence; more are noise. */
const CONFIDENCE_TERMS = 32;
/** Terms one OR query may carry (see `selectTerms`). */
const MAX_QUERY_TERMS = 16;
/** Document-frequency probes stop counting here: any term this common is "common". */
const DF_PROBE_CAP = 64;
/**
 * Candidates FTS5 hands over for rescoring: the list asked for plus this
 * many. FTS5's order already has the best pages near the top (its IDF only
 * differs for terms on most pages); every extra candidate costs a tokenized
 * page on each recall.
 */
const POOL_SLACK = 10;
/**
 * Rows of phrase impacts (lexical/fts-impacts.ts) kept per store, 12 bytes
 * each: ~48 MB, about forty phrases each on most of 100k pages.
 */
const IMPACT_ROWS_KEPT = 4_000_000;
/** Feedback terms' document frequencies are counted up to here; a term this common is left out. */
const FEEDBACK_DF_CAP = 256;
/** A typo's spellings are counted up to here: a spelling this common wins outright. */
const SPELLING_DF_CAP = 64;
/** Feedback terms' counts kept at most; a long-lived server meets new words forever. */
const FEEDBACK_DF_KEPT = 50_000;
/** Stop words as index terms: never feedback terms. */
let stopStems: Set<string> | undefined;
const stopWordStems = (): Set<string> => {
  stopStems ??= new Set([...STOP_WORDS].flatMap((w) => ftsTokens(w)));
  return stopStems;
};

interface LexRow {
  id: number;
  collection: string;
  path: string;
  title: string;
  /** The page text's content hash: with path and title, what the FTS row holds. */
  hash: string;
}

/** A lexical candidate and its FTS row id (for excerpts cut later). */
export interface LexCandidate {
  candidate: Candidate;
  rowid: number;
}

interface ScoredTerm {
  term: LexTerm;
  stems: string[];
  phrases: Bm25Phrase[];
  /** Each phrase's IDF, in `phrases` order. */
  idfs: number[];
  /** The IDF of the term as written (its first phrase): its weight in the confidence. */
  weight: number;
  df: number;
}

/** How the FTS5 candidate pool is found; every way gives the same pool. */
export interface LexicalSearchOptions {
  /**
   * `exhaustive`: FTS5 ranks every row holding a query term (the reference
   * the others are checked against); `impacts`: the pool is merged from
   * phrase impacts; `adaptive` (default): impacts for phrases met before in
   * this process, FTS5's ranking for a phrase met the first time, so a
   * one-off CLI or hook process pays no more than FTS5 and a long-lived
   * host reads each common phrase once.
   */
  pool?: "adaptive" | "impacts" | "exhaustive";
}

/** Lexical search over one store's collections. */
export function createLexicalSearch(
  db: QmdSqlQueries,
  collections: readonly string[],
  scoring: Readonly<LexicalScoring> = lexicalScoring(),
  options: LexicalSearchOptions = {},
) {
  const collectionsJson = JSON.stringify(collections);
  // Candidates in FTS5's own order (QMD's column weights: filepath 1.5, title
  // 4, body 1), ties by row id; only ids, title and path cross into
  // JavaScript here. The reference for the pool merged from phrase impacts.
  const lexStmt = db.prepare(`
    WITH ranked AS (
      SELECT rowid AS id, bm25(documents_fts, 1.5, 4.0, 1.0) AS bm25
      FROM documents_fts WHERE documents_fts MATCH ?
      ORDER BY bm25, rowid LIMIT ?)
    SELECT ranked.id AS id, d.collection AS collection, d.path AS path, d.title AS title,
           d.hash AS hash
    FROM ranked JOIN documents d ON d.id = ranked.id
    WHERE d.active = 1 AND d.collection IN (SELECT value FROM json_each(?))
    ORDER BY ranked.bm25, d.collection, d.path
    LIMIT ?`);
  // The same rows for a pool found from phrase impacts: `[id, place]` pairs,
  // rows of equal bm25 sharing a place, so ties order as above.
  const poolRowsStmt = db.prepare(`
    SELECT d.id AS id, d.collection AS collection, d.path AS path, d.title AS title,
           d.hash AS hash
    FROM json_each(?) j JOIN documents d ON d.id = j.value ->> 0
    WHERE d.active = 1 AND d.collection IN (SELECT value FROM json_each(?))
    ORDER BY j.value ->> 1, d.collection, d.path
    LIMIT ?`);
  // One phrase's rows and FTS5's bm25 for it alone, ascending by row id.
  // JSON carries each double exactly (SQLite writes a REAL so it reads back
  // the same) in one value instead of a JavaScript object per row. bm25()
  // may not sit in an aggregate's arguments, and the LIMIT keeps SQLite from
  // flattening the subquery into one (it runs as a co-routine, unstored).
  const impactStmt = db.prepare(`
    SELECT json_group_array(id) AS ids, json_group_array(bm25) AS scores FROM (
      SELECT rowid AS id, bm25(documents_fts, 1.5, 4.0, 1.0) AS bm25
      FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rowid LIMIT -1)`);
  const textStmt = db.prepare(`
    SELECT rowid AS id, filepath AS path, title AS title, body AS body
    FROM documents_fts WHERE rowid IN (SELECT value FROM json_each(?))`);
  // An excerpt is a window of the page text around the first query word
  // found, cut in JavaScript (body-window.ts) from the text read here.
  const pageTextStmt = db.prepare(`
    SELECT d.id AS id, ${DOCUMENT_TEXT_SQL} AS doc
    FROM documents d JOIN content c ON c.hash = d.hash
    LEFT JOIN documents_fts f ON f.rowid = d.id
    WHERE d.id IN (SELECT value FROM json_each(?))`);
  // Document frequency per term, capped: one statement for all terms of a long query.
  const dfProbeStmt = db.prepare(`
    SELECT j.key AS term, (
      SELECT count(*) FROM (
        SELECT 1 FROM documents_fts WHERE documents_fts MATCH j.value LIMIT ${DF_PROBE_CAP})
    ) AS df
    FROM json_each(?) j`);
  // Pages holding each plain word, capped: for feedback's stems and a typo's
  // spellings, where only "none", "few" and "most" matter.
  const wordDfStatement = (cap: number) =>
    db.prepare(`
    SELECT j.value AS term, (
      SELECT count(*) FROM (
        SELECT 1 FROM documents_fts WHERE documents_fts MATCH '"' || j.value || '"' LIMIT ${cap})
    ) AS df
    FROM json_each(?) j`);
  const feedbackDfStmt = wordDfStatement(FEEDBACK_DF_CAP);
  const spellingDfStmt = wordDfStatement(SPELLING_DF_CAP);
  // Exact document frequencies of a query's phrases, all in one statement.
  const dfStmt = db.prepare(`
    SELECT j.value AS fts, (
      SELECT count(*) FROM documents_fts WHERE documents_fts MATCH j.value
    ) AS df
    FROM json_each(?) j`);
  // Changes when another connection commits to the index (this one's own
  // writes call `invalidate`): counts kept from before are then stale.
  const dataVersionStmt = db.prepare("PRAGMA data_version");
  const averagesStmt = db.prepare("SELECT block FROM documents_fts_data WHERE id = 1");
  const rowCountStmt = db.prepare("SELECT count(*) AS n FROM documents WHERE active = 1");

  const dfCache = new Map<string, number>();
  const feedbackDfCache = new Map<string, number>();
  const docs: DocTokenCache = createDocTokenCache();
  const impacts = createImpactCache((phrase): PhraseImpacts => {
    const row = impactStmt.get<{ ids: string; scores: string }>(phrase);
    return {
      ids: Int32Array.from(JSON.parse(row?.ids ?? "[]") as number[]),
      scores: Float64Array.from(JSON.parse(row?.scores ?? "[]") as number[]),
    };
  }, IMPACT_ROWS_KEPT);
  let stats: CorpusStats | undefined;
  let seenVersion: number | undefined;

  /** Forgets frequencies and statistics; kept page terms carry their own version. */
  const forgetCounts = () => {
    dfCache.clear();
    feedbackDfCache.clear();
    impacts.clear();
    stats = undefined;
  };

  /**
   * Drops the counts another process's write made stale: a word once on no
   * page is left out of the search (`searchedPhrases`), so a count of 0 kept
   * past a write that added the word would hide the page that holds it.
   */
  const freshen = () => {
    const version = dataVersionStmt.get<{ data_version: number }>()?.data_version;
    if (version !== seenVersion) {
      if (seenVersion !== undefined) forgetCounts();
      seenVersion = version;
    }
  };

  const corpus = (): CorpusStats => {
    if (stats) return stats;
    const block = averagesStmt.get<{ block: Uint8Array }>()?.block;
    stats = (block && statsFromAverages(block, 3)) || {
      // An averages record that does not read: rows counted, lengths left neutral.
      documents: rowCountStmt.get<{ n: number }>()?.n ?? 0,
      averageLength: 0,
    };
    return stats;
  };

  /**
   * Exact rows holding each FTS5 expression, the ones not yet known counted
   * in one statement; cached until the next index write.
   */
  const documentFrequencies = (expressions: readonly string[]): Map<string, number> => {
    const asked = [...new Set(expressions.filter((fts) => !dfCache.has(fts)))];
    if (asked.length > 0)
      for (const r of dfStmt.all<{ fts: string; df: number }>(JSON.stringify(asked)))
        dfCache.set(r.fts, r.df);
    return dfCache;
  };

  /**
   * Pages holding each stem, counted up to FEEDBACK_DF_CAP; stems FTS5 would
   * stem again are left out. Counts are kept until the next index write:
   * the best pages of related queries share their words.
   */
  const feedbackFrequencies = (stems: string[]): Map<string, number> => {
    const out = new Map<string, number>();
    const asked: string[] = [];
    for (const stem of stems) {
      const known = feedbackDfCache.get(stem);
      if (known !== undefined) out.set(stem, known);
      else if (/^[\p{L}\p{N}]+$/u.test(stem) && ftsTokens(stem)[0] === stem) asked.push(stem);
    }
    if (asked.length === 0) return out;
    if (feedbackDfCache.size >= FEEDBACK_DF_KEPT) feedbackDfCache.clear();
    for (const r of feedbackDfStmt.all<{ term: string; df: number }>(JSON.stringify(asked))) {
      feedbackDfCache.set(r.term, r.df);
      out.set(r.term, r.df);
    }
    return out;
  };

  /** The query's terms as BM25 phrases with their frequencies. */
  const scoredTerms = (terms: readonly LexTerm[]): ScoredTerm[] => {
    const weighed = terms.slice(0, CONFIDENCE_TERMS);
    const known = documentFrequencies(weighed.flatMap((term) => term.fts));
    return weighed.map((term) => {
      const phrases = term.fts
        .map((fts) => ({
          terms: ftsTokens(fts.slice(1, -1).replace(/""/g, '"')),
          df: known.get(fts) ?? 0,
        }))
        .map((phrase) => ({ ...phrase, prior: backgroundShare(phrase.terms) }));
      const main = phrases[0];
      const documents = corpus().documents;
      const searched = phrases.filter((p) => p.terms.length > 0);
      return {
        term,
        stems: main?.terms.slice() ?? [],
        phrases: searched,
        idfs: searched.map((p) => idf(documents, p.df, p.prior)),
        weight: idf(documents, main?.df ?? 0, main?.prior),
        df: main?.df ?? 0,
      };
    });
  };

  /**
   * Excerpts by document id, for the given query words: cut from the page
   * texts the token cache keeps, the others read in one statement.
   */
  const excerpts = (terms: LexTerm[], ids: number[]): Map<number, string> => {
    const out = new Map<number, string>();
    if (ids.length === 0 || terms.length === 0) return out;
    const words = wordFinder(surfaces(terms));
    const cut = (id: number, doc: string | null) => {
      const excerpt = doc ? bodyExcerpt(doc, words) : undefined;
      if (excerpt) out.set(id, excerpt);
    };
    const unread: number[] = [];
    for (const id of ids) {
      const kept = docs.pageText(id);
      if (kept === undefined) unread.push(id);
      else cut(id, kept);
    }
    if (unread.length > 0)
      for (const row of pageTextStmt.all<{ id: number; doc: string | null }>(
        JSON.stringify(unread),
      ))
        cut(row.id, row.doc);
    return out;
  };

  /**
   * A long query (a pasted prompt) searches with its MAX_QUERY_TERMS rarest
   * terms: OR-BM25 cost is driven by common terms' long posting lists, while
   * BM25 gives those terms little weight. Terms absent from the index are
   * left out; ties keep query order.
   */
  const selectTerms = (built: LexQuery): LexTerm[] => {
    if (built.terms.length <= MAX_QUERY_TERMS) return built.terms;
    const probes = JSON.stringify(built.terms.map((term) => term.fts.join(" OR ")));
    const df = new Map(
      dfProbeStmt.all<{ term: number; df: number }>(probes).map((r) => [r.term, r.df]),
    );
    return built.terms
      .map((term, order) => ({ term, order, df: df.get(order) ?? 0 }))
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df || a.order - b.order)
      .slice(0, MAX_QUERY_TERMS)
      .sort((a, b) => a.order - b.order)
      .map((t) => t.term);
  };

  /**
   * The query's FTS5 expressions the index holds: one counted on no page
   * adds nothing to any row's BM25 (FTS5 sums over phrases), yet FTS5 looks
   * each up, and a question's joined words (`heattransfer`) are mostly on no
   * page. Expressions not counted yet stay. Empty when none is left.
   */
  const searchedPhrases = (searched: readonly LexTerm[]): string[] => {
    const kept = new Set<string>();
    for (const term of searched)
      for (const fts of term.fts) if (dfCache.get(fts) !== 0) kept.add(fts);
    return [...kept];
  };

  /**
   * FTS5's candidates for the OR of `phrases`, at most `pool`: its best
   * `pool + 20` rows by bm25 (ties by row id), those of active pages in
   * these collections, by bm25, collection and path.
   */
  const candidateRows = (phrases: readonly string[], pool: number): LexRow[] => {
    try {
      const way = options.pool ?? "adaptive";
      if (way === "exhaustive" || (way === "adaptive" && !impacts.worth(phrases)))
        return lexStmt.all<LexRow>(phrases.join(" OR "), pool + 20, collectionsJson, pool);
      const best = poolByImpact(impacts.get(phrases), pool + 20);
      const places: Array<[number, number]> = [];
      let place = 0;
      best.forEach((row, i) => {
        if (i > 0 && row.bm25 !== best[i - 1]?.bm25) place += 1;
        places.push([row.id, place]);
      });
      return poolRowsStmt.all<LexRow>(JSON.stringify(places), collectionsJson, pool);
    } catch (error) {
      // Every term is quoted, so this should be unreachable; a user string must never throw.
      if (/fts5/i.test(String(error))) return [];
      throw error;
    }
  };

  /**
   * Whether no page can reach `floor`: the most evidence each term can give
   * (a page holding it at full presence), summed over every term a page's
   * matches can come from, is under it.
   */
  const beneathFloor = (terms: readonly ScoredTerm[], floor: LexEvidenceFloor): boolean => {
    const documents = corpus().documents;
    let most = 0;
    for (const t of terms) {
      most += floor.bound({
        term: t.term.text,
        stems: t.stems,
        df: t.df,
        documents,
        idf: t.weight,
        counts: [0, 0, 1],
        score: t.weight,
      });
    }
    return most < floor.min;
  };

  /**
   * The query with its likely typos repaired against the index's words
   * (lexical/spelling.ts), parsed again; the parse as typed when none is.
   */
  const repairSpelling = (
    query: string,
    typed: LexQuery,
    options: { joinWords: boolean; relatedWords: boolean },
  ): { parsed: LexQuery; repairs: SpellingRepair[] } => {
    const asTyped = { parsed: typed, repairs: [] };
    const plain = typed.terms.filter((t) => /^[a-z]+$/.test(t.text)).slice(0, CONFIDENCE_TERMS);
    if (plain.length === 0) return asTyped;
    // The word as typed, not the term's first phrase: "set up" searches the
    // phrase, and "set" alone is no typo however few pages hold the phrase.
    const asWord = (t: LexTerm) => `"${t.text}"`;
    const known = documentFrequencies(plain.map(asWord));
    const repairs = spellingRepairs(
      plain.map((t) => ({ word: t.text, pages: known.get(asWord(t)) ?? 0 })),
      (spellings) =>
        new Map(
          spellingDfStmt
            .all<{ term: string; df: number }>(JSON.stringify(spellings))
            .map((r) => [r.term, r.df]),
        ),
    );
    if (repairs.length === 0) return asTyped;
    let repaired = query;
    for (const { from, to } of repairs)
      repaired = repaired.replace(
        new RegExp(`(?<![\\p{L}\\p{N}])${from}(?![\\p{L}\\p{N}])`, "giu"),
        to,
      );
    const parsed = buildLexQuery(repaired, options);
    return parsed ? { parsed, repairs } : asTyped;
  };

  /**
   * Lexical candidates scored by BM25, best first, with confidence and
   * per-term matches. With `evidence`, a query none of whose pages could
   * pass that gate searches nothing (`evidence.onSkip` is told).
   */
  const lexCandidates = (
    query: string,
    limit: number,
    withExcerpts: boolean,
    evidence?: LexEvidenceFloor,
    relatedWords = true,
  ): { terms: LexTerm[]; list: LexCandidate[]; respelled: SpellingRepair[] } => {
    const options = { joinWords: scoring.joinWords, relatedWords };
    const typed = buildLexQuery(query, options);
    if (!typed || limit === 0) return { terms: [], list: [], respelled: [] };
    freshen();
    const { parsed, repairs: respelled } = repairSpelling(query, typed, options);
    const searched = selectTerms(parsed);
    if (searched.length === 0) return { terms: [], list: [], respelled };
    // Every term of the query weighs in the confidence, including those too rare to search for.
    const terms = scoredTerms(parsed.terms);
    if (evidence && beneathFloor(terms, evidence)) {
      evidence.onSkip();
      return { terms: searched, list: [], respelled };
    }
    const phrases = searchedPhrases(searched);
    const rows = phrases.length > 0 ? candidateRows(phrases, limit + POOL_SLACK) : [];
    if (rows.length === 0) return { terms: searched, list: [], respelled };
    const stats = corpus();
    // The most this query can score on any page: every term at BM25's saturation.
    const ceiling = (scoring.bm25.k1 + 1) * terms.reduce((sum, t) => sum + t.weight, 0);
    const texts = docs.get(
      rows.map((row) => ({
        id: row.id,
        version: `${row.hash}\u0000${row.title}\u0000${row.collection}/${row.path}`,
      })),
      (ids) =>
        textStmt.all<{ id: number; path: string; title: string; body: string }>(
          JSON.stringify(ids),
        ),
    );
    // Every page of the pool times every phrase of the query: counts go
    // through one scratch array, and a term's object is made only for a
    // term the page holds.
    const phraseCounts: [number, number, number] = [0, 0, 0];
    const scored = rows.map((row) => {
      const doc = texts.get(row.id);
      let score = 0;
      const matches: TermMatch[] = [];
      for (const t of terms) {
        if (!doc) break;
        let termScore = 0;
        let written = 0;
        let inPath = 0;
        let inTitle = 0;
        let inBody = 0;
        for (let i = 0; i < t.phrases.length; i += 1) {
          const phrase = t.phrases[i];
          if (!phrase) continue;
          termScore += phraseScore(doc, phrase, t.idfs[i] ?? 0, stats, scoring.bm25, phraseCounts);
          if (i === 0) {
            written = termScore;
            inPath = phraseCounts[0];
            inTitle = phraseCounts[1];
            inBody = phraseCounts[2];
          }
        }
        if (termScore <= 0) continue;
        score += termScore;
        matches.push({
          term: t.term.text,
          stems: t.stems,
          df: t.df,
          documents: stats.documents,
          idf: Math.round(t.weight * 1e4) / 1e4,
          counts: [inPath, inTitle, inBody],
          score: Math.round(termScore * 1e4) / 1e4,
          ...(written < termScore ? { asWritten: Math.round(written * 1e4) / 1e4 } : {}),
        });
      }
      return { row, score, bm25: score, matches, doc };
    });
    const rescored = secondPass(
      scored,
      terms,
      ceiling,
      stats,
      scoring,
      stopWordStems(),
      feedbackFrequencies,
      FEEDBACK_DF_CAP,
    );
    scored.forEach((s, i) => {
      s.score = rescored[i] ?? s.score;
    });
    scored.sort(
      (a, b) =>
        b.score - a.score ||
        (a.row.collection < b.row.collection ? -1 : a.row.collection > b.row.collection ? 1 : 0) ||
        (a.row.path < b.row.path ? -1 : a.row.path > b.row.path ? 1 : 0),
    );
    const top = scored.filter((s) => s.score > 0).slice(0, limit);
    // Confidence is BM25's evidence alone: the pool's BM25 confidences, best
    // first, go to the list's places in order. Proximity and feedback reorder
    // the list but never add a page above a confidence floor BM25 left out.
    const confidences = scored
      .filter((s) => s.score > 0)
      .map((s) => (ceiling > 0 ? Math.min(1, s.bm25 / ceiling) : 0))
      .sort((a, b) => b - a);
    const chunks = withExcerpts
      ? excerpts(
          searched,
          top.map((s) => s.row.id),
        )
      : new Map<number, string>();
    const list = top.map(({ row, score, matches }, place) => {
      const bestChunk = chunks.get(row.id);
      return {
        candidate: {
          key: `${row.collection}/${row.path}`,
          collection: row.collection,
          path: row.path,
          title: row.title,
          rawScore: score,
          confidence: confidences[place] ?? 0,
          matches,
          ...(bestChunk ? { bestChunk } : {}),
        },
        rowid: row.id,
      };
    });
    return { terms: searched, list, respelled };
  };

  return {
    /**
     * Candidates in score order (at most `limit`), each with its confidence
     * and how each query term matched it, and the query's searched terms.
     */
    candidates: lexCandidates,
    excerpts,
    /** Forgets cached frequencies, statistics and page terms: the index changed. */
    invalidate(): void {
      forgetCounts();
      docs.clear();
    },
  };
}
