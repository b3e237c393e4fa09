/**
 * Turning any user string into a safe FTS5 OR query over QMD's FTS table:
 * tokens, stop words, identifiers, CJK phrases. Pure: no QMD, no I/O.
 */

import { relatedWords } from "../lexical/related-words.ts";
import { camelHumps, joinedRuns } from "./code-tokens.ts";

/** A small English stop-word list: function words that only add noise to an OR query. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before " +
    "being below between both but by can could did do does doing down during each few for " +
    "from further had has have having he her here hers herself him himself his how i if in " +
    "into is it its itself just me more most my myself no nor not of off on once only or " +
    "other our ours ourselves out over own same she should so some such than that the their " +
    "theirs them themselves then there these they this those through to too under until up " +
    "very was we were what when where which while who whom why will with would you your " +
    "yours yourself yourselves " +
    // Negated auxiliaries are function words too: a page that says "can't" is no closer
    // to "why can't firmware go to every charger" than one that does not.
    "can't cannot don't doesn't didn't won't isn't aren't wasn't weren't shouldn't " +
    "wouldn't couldn't haven't hasn't hadn't"
  ).split(" "),
);

/** CJK function characters; a bigram made only of these carries no meaning. */
const CJK_STOP_CHARS = new Set([
  ..."的了是吗呢吧啊么什在和与及或也都就而这那个我你他她它们怎样如何为の은는이가을를에はがをにでともへやか",
]);
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
/** Words, with identifiers (`snake_case`, `v1.0.21`, `foo-bar`, `a/b`) kept whole. */
const TOKEN = /[\p{L}\p{N}\p{M}]+(?:[._'\-/:]+[\p{L}\p{N}\p{M}]+)*/gu;
const CONNECTORS = /[._'\-/:]+/;
/** Sanity bound while parsing; the store keeps at most MAX_QUERY_TERMS of these. */
const MAX_TERMS = 256;

/** One meaningful piece of a query and the FTS5 expressions that find it. */
export interface LexTerm {
  text: string;
  /** Quoted FTS5 strings, ORed: a phrase for identifiers and CJK, plus word parts. */
  fts: string[];
}

/** A query ready for `documents_fts MATCH`. */
export interface LexQuery {
  terms: LexTerm[];
  /** Every term's expressions joined with OR. */
  match: string;
}

/**
 * Turns any user string into an FTS5 OR query, or null when nothing
 * searchable remains. NFKC + lower case; stop words dropped; each term quoted
 * (FTS5 applies its own tokenizer inside quotes, so `snake_case`, `v1.0.21`
 * and `foo-bar` become adjacency phrases, and nothing in a user string can be
 * read as FTS5 syntax); identifiers also contribute their word parts; a CJK
 * run becomes overlapping two-character phrases (`召回` → "召 回") because
 * QMD indexes CJK one character per token. No prefix matching: porter
 * stemming already joins inflections, and on the retrieval fixture
 * (test/fixtures/retrieval) prefixes lowered nDCG@10 from 0.759 to 0.752
 * (word parts of identifiers raised it from 0.756; QMD's AND query: 0.110).
 */
export function buildLexQuery(
  query: string,
  options: { joinWords?: boolean; relatedWords?: boolean } = {},
): LexQuery | null {
  const normal = query.normalize("NFKC");
  const humps = camelHumps(normal);
  const text = normal.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
  // Plain words in order (null where something else stands), for joined runs.
  const words: Array<string | null> = [];
  const terms = new Map<string, LexTerm>();
  const add = (key: string, fts: string[]) => {
    if (fts.length > 0 && !terms.has(key) && terms.size < MAX_TERMS)
      terms.set(key, { text: key, fts });
  };
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0].replace(/'s$/, "");
    if (!CJK.test(token)) {
      words.push(CONNECTORS.test(token) ? null : token);
      addWord(token, add, humps);
      continue;
    }
    words.push(null);
    let last = 0;
    for (const run of token.matchAll(CJK_RUNS)) {
      const before = token.slice(last, run.index);
      for (const word of before.match(TOKEN) ?? []) addWord(word, add);
      addCjkRun(run[0], add);
      last = (run.index ?? 0) + run[0].length;
    }
    for (const word of token.slice(last).match(TOKEN) ?? []) addWord(word, add);
  }
  // "adr 9", "rfc-4": a label and its number name one record, whichever way
  // its number is padded ("ADR-009"). Only the other paddings are searched:
  // the number as typed alone matches noise, and "still 10 minutes" is no name.
  // Alternatives of the label's own term, so a query's weight and confidence
  // do not change when no page writes the number so.
  words.forEach((word, at) => {
    const label = at > 0 ? words[at - 1] : null;
    if (word === null || label == null || !/^\d{1,3}$/.test(word)) return;
    const term = terms.get(label);
    if (!term || !/^\p{L}{2,}$/u.test(label)) return;
    for (const phrase of numbered(label, word).map(quote))
      if (!term.fts.includes(phrase)) term.fts.push(phrase);
  });
  for (const term of terms.values()) {
    const m = /^(\p{L}{2,})[-_](\d{1,3})$/u.exec(term.text);
    if (!m?.[1] || !m[2]) continue;
    for (const phrase of numbered(m[1], m[2]).map(quote))
      if (!term.fts.includes(phrase)) term.fts.push(phrase);
  }
  // A run of words written together, as the index holds a camelCase name, is
  // one more way to find each of the run's words (a page naming it holds them
  // all); an alternative of their terms, so a query's weight and confidence
  // do not change when no page holds the joined word.
  const runs = options.joinWords === false ? [] : joinedRuns(words, (w) => STOP_WORDS.has(w));
  for (const run of runs) {
    const fts = quote(run.joined);
    for (const at of run.words) {
      const verb = words[at] ?? "";
      const term = terms.get(verb);
      if (!term) continue;
      // A phrasal verb means its phrase, not its verb alone: "set up a new
      // clinic" is no question about Postgres's SET.
      if (run.particle !== undefined && term.fts[0] === quote(verb))
        term.fts[0] = quote(`${verb} ${run.particle}`);
      if (!term.fts.includes(fts)) term.fts.push(fts);
    }
  }
  // Words the team also uses for it ("outage" for "incident"): alternatives
  // of the same term, as above; one no page holds is dropped before the search.
  if (options.relatedWords !== false)
    for (const term of terms.values())
      for (const word of relatedWords(term.text)) {
        const fts = quote(word);
        if (!terms.has(word) && !term.fts.includes(fts)) term.fts.push(fts);
      }
  if (terms.size === 0) return null;
  const all = new Set([...terms.values()].flatMap((t) => t.fts));
  return { terms: [...terms.values()], match: [...all].join(" OR ") };
}

/** A label's number as pages may write it otherwise: unpadded, or padded to two and three digits. */
function numbered(label: string, number: string): string[] {
  const n = number.replace(/^0+(?=\d)/, "");
  return [...new Set([n, n.padStart(2, "0"), n.padStart(3, "0")])]
    .filter((d) => d !== number)
    .map((d) => `${label} ${d}`);
}

function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

function addWord(
  token: string,
  add: (key: string, fts: string[]) => void,
  humps: ReadonlyMap<string, string[]> = new Map(),
): void {
  // "2+2", "step 3": lone small numbers match noise on almost every page.
  if (/^\d{1,2}$/.test(token) || STOP_WORDS.has(token)) return;
  if (!CONNECTORS.test(token)) {
    const parts = humps.get(token);
    // A camelCase name: itself first (how the index holds it), then its humps as words.
    if (parts) add(token, [quote(token), ...wordParts(parts).map(quote)]);
    else if (!STOP_WORDS.has(token)) add(token, [quote(token)]);
    return;
  }
  const parts = token
    .split(CONNECTORS)
    .filter(Boolean)
    .flatMap((p) => [p, ...(humps.get(p) ?? [])]);
  if (parts.every((p) => STOP_WORDS.has(p))) return;
  // A hyphenated English compound ("two-dimensional", "offline-first") is its
  // words: as one term with a phrase it counted up to three times in BM25
  // (Cranfield nDCG@10 0.360 → 0.368 as words). Identifiers keep their phrase.
  if (/^[\p{L}]+(?:-[\p{L}]+)+$/u.test(token)) {
    for (const part of parts) if (!STOP_WORDS.has(part)) add(part, [quote(part)]);
    return;
  }
  // Parts widen recall (`wiki_reindex` also finds "reindex the wiki"); the
  // phrase ranks the exact identifier first. Numeric parts alone match noise.
  add(token, [quote(token), ...wordParts(parts).map(quote)]);
}

/** An identifier's parts worth searching alone: no stop words, lone letters or numbers. */
function wordParts(parts: readonly string[]): string[] {
  return [...new Set(parts.filter((p) => p.length > 1 && !/\d/.test(p) && !STOP_WORDS.has(p)))];
}

function addCjkRun(run: string, add: (key: string, fts: string[]) => void): void {
  const chars = [...run];
  if (chars.length === 1) {
    if (!CJK_STOP_CHARS.has(run)) add(run, [quote(run)]);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) {
    const a = chars[i] ?? "";
    const b = chars[i + 1] ?? "";
    if (CJK_STOP_CHARS.has(a) && CJK_STOP_CHARS.has(b)) continue;
    add(a + b, [quote(`${a} ${b}`)]);
  }
}
