/**
 * Candidate pages' index terms, kept between recalls: automatic recall runs
 * every turn, and the pages a vault's questions reach recur, so a page is
 * tokenized once while its text is unchanged. Bounded (least recently used
 * goes first) and checked against the page's current text on every use, so
 * a row id reused by another page after an index write never gives stale
 * terms.
 */
import { type TokenizedDoc, tokenizedDoc } from "./bm25.ts";
import { ftsTokens } from "./fts-tokens.ts";

const HEADING = /^ {0,3}#{1,6}[ \t]+(.+)$/gm;

/** The text of a Markdown body's ATX heading lines, one per line. */
export function headingLines(body: string): string {
  let out = "";
  for (const match of body.matchAll(HEADING)) out += `${match[1]}\n`;
  return out;
}

/** Pages kept; a few hundred covers a session's recalls at a few MB. */
const MAX_DOCS = 256;

interface Row {
  id: number;
  path: string;
  title: string;
  body: string;
}

interface Entry {
  path: string;
  title: string;
  body: string;
  doc: TokenizedDoc;
}

export interface DocTokenCache {
  /** Terms of rows `ids`, reading their text with `read`; rows not found are absent. */
  get(ids: readonly number[], read: (ids: number[]) => Row[]): Map<number, TokenizedDoc>;
  clear(): void;
}

export function createDocTokenCache(max = MAX_DOCS): DocTokenCache {
  const entries = new Map<number, Entry>();
  return {
    get(ids, read) {
      const out = new Map<number, TokenizedDoc>();
      if (ids.length === 0) return out;
      for (const row of read([...ids])) {
        const kept = entries.get(row.id);
        let entry: Entry;
        if (kept && kept.body === row.body && kept.title === row.title && kept.path === row.path) {
          entry = kept;
          entries.delete(row.id);
        } else {
          entry = {
            path: row.path,
            title: row.title,
            body: row.body,
            doc: tokenizedDoc(
              ftsTokens(row.path),
              ftsTokens(row.title),
              ftsTokens(row.body),
              ftsTokens(headingLines(row.body)),
            ),
          };
        }
        entries.set(row.id, entry);
        out.set(row.id, entry.doc);
      }
      while (entries.size > max) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
      return out;
    },
    clear() {
      entries.clear();
    },
  };
}
