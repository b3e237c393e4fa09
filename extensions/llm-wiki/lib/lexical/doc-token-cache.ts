/**
 * Candidate pages' index terms, kept between recalls: automatic recall runs
 * every turn, and the pages a vault's questions reach recur, so a page is
 * tokenized once while its text is unchanged. Each row comes with a
 * version (its content hash, title and path: what its FTS row is made of),
 * so a kept page costs no text read at all, and a row id reused by another
 * page, or a page changed by another process's index write, never gives
 * stale terms. Bounded by pages and by terms kept (least recently used
 * goes first). A page's text is kept with its terms, so the excerpts of an
 * answer read nothing more.
 */
import { type TokenizedDoc, tokenizedDoc } from "./bm25.ts";
import { ftsTokens } from "./fts-tokens.ts";

const HEADING = /^ {0,3}#{1,6}[ \t]+(.+)$/gm;

/** The text of a Markdown body's ATX heading lines, one per line. */
export function headingLines(body: string): string {
  let out = "";
  if (!body.includes("#")) return out;
  for (const match of body.matchAll(HEADING)) out += `${match[1]}\n`;
  return out;
}

/**
 * Pages and terms kept: a whole collection of a few thousand short pages
 * (Cranfield's 1,400 abstracts are 0.3M terms), or the pages a session's
 * recalls reach in a large vault, at some tens of MB.
 */
const MAX_DOCS = 4_096;
const MAX_TERMS = 1_000_000;

interface Row {
  id: number;
  path: string;
  title: string;
  body: string;
}

/** A candidate row and the version of its text (any string that changes whenever the text does). */
export interface VersionedRow {
  id: number;
  version: string;
}

interface Entry {
  version: string;
  doc: TokenizedDoc;
  /** The body as read, when it is the page text itself (see `pageText`). */
  text: string | undefined;
}

/**
 * QMD's FTS row holds the page text as its body, except that CJK characters
 * are spaced apart (its `normalizeCjkForFTS`): a body with none is the page
 * text character for character.
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export interface DocTokenCache {
  /**
   * Terms of `rows`, reading the text of those not kept (or kept at another
   * version) with `read`; rows `read` does not return are absent.
   */
  get(rows: readonly VersionedRow[], read: (ids: number[]) => Row[]): Map<number, TokenizedDoc>;
  /**
   * The page text of a kept row (the text excerpts are cut from), when its
   * FTS body is that text; undefined otherwise, and the caller reads it.
   */
  pageText(id: number): string | undefined;
  clear(): void;
  /** Pages kept now. */
  readonly size: number;
}

export function createDocTokenCache(max = MAX_DOCS, maxTerms = MAX_TERMS): DocTokenCache {
  const entries = new Map<number, Entry>();
  let terms = 0;
  const drop = (id: number) => {
    const entry = entries.get(id);
    if (!entry) return;
    terms -= entry.doc.length;
    entries.delete(id);
  };
  return {
    get(rows, read) {
      const out = new Map<number, TokenizedDoc>();
      if (rows.length === 0) return out;
      const missing = new Map<number, string>();
      for (const { id, version } of rows) {
        const kept = entries.get(id);
        if (kept && kept.version === version) {
          // Most recently used last.
          entries.delete(id);
          entries.set(id, kept);
          out.set(id, kept.doc);
        } else missing.set(id, version);
      }
      if (missing.size > 0) {
        for (const row of read([...missing.keys()])) {
          const version = missing.get(row.id);
          if (version === undefined) continue;
          drop(row.id);
          const doc = tokenizedDoc(
            ftsTokens(row.path),
            ftsTokens(row.title),
            ftsTokens(row.body),
            ftsTokens(headingLines(row.body)),
          );
          entries.set(row.id, { version, doc, text: CJK.test(row.body) ? undefined : row.body });
          terms += doc.length;
          out.set(row.id, doc);
        }
      }
      while (entries.size > max || (terms > maxTerms && entries.size > 1)) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        drop(oldest);
      }
      return out;
    },
    pageText(id) {
      return entries.get(id)?.text;
    },
    clear() {
      entries.clear();
      terms = 0;
    },
    get size() {
      return entries.size;
    },
  };
}
