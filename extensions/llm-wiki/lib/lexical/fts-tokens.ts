/**
 * Text as QMD's FTS5 index sees it (`tokenize='porter unicode61'`, CJK
 * spaced one character per token by QMD): lower-cased runs of letters and
 * digits, Latin diacritics folded, each run Porter-stemmed. Lets recall count
 * a query term in a candidate page, and weigh it against a background model,
 * with the index's own notion of a word; the `stemmer` package agrees with
 * SQLite's Porter stemmer on every word of the test vaults.
 */
import { stemmer } from "stemmer";

/** unicode61's token characters (categories L*, N*, Co), plus marks so a decomposed letter stays whole. */
const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_CHARS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const MARKS = /\p{M}+/gu;
const NOT_ASCII = /[^\p{ASCII}]/u;
/** SQLite's Porter tokenizer passes longer tokens through unstemmed. */
const PORTER_MAX = 64;

/** Stems seen recently: pages repeat their words, and stemming is most of tokenizing. */
const STEMS_KEPT = 50_000;
const stems = new Map<string, string>();

/** One raw token, folded and stemmed as FTS5 would index it. */
function stemToken(raw: string): string {
  const known = stems.get(raw);
  if (known !== undefined) return known;
  let token = raw.toLowerCase();
  if (NOT_ASCII.test(token)) token = token.normalize("NFD").replace(MARKS, "").normalize("NFC");
  const stem = token.length > PORTER_MAX ? token : stemmer(token);
  // A memo of a pure function: clearing it when full only costs speed.
  if (stems.size >= STEMS_KEPT) stems.clear();
  stems.set(raw, stem);
  return stem;
}

/** ASCII letters and digits: unicode61's token characters below U+0080. */
function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

/**
 * `ftsTokens` of an all-ASCII text, or undefined at its first other
 * character: on ASCII the token pattern is [A-Za-z0-9]+ and no run is CJK,
 * and scanning character codes makes no match objects (every candidate
 * page is tokenized when first seen).
 */
function asciiTokens(text: string): string[] | undefined {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return undefined;
    if (isAsciiWordChar(c)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(stemToken(text.slice(start, i)));
      start = -1;
    }
  }
  if (start >= 0) out.push(stemToken(text.slice(start)));
  return out;
}

/** The index terms of `text`, in order (CJK: one term per character). */
export function ftsTokens(text: string): string[] {
  const ascii = asciiTokens(text);
  if (ascii) return ascii;
  const out: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const run = match[0];
    if (!CJK.test(run)) {
      out.push(stemToken(run));
      continue;
    }
    // QMD spaces CJK characters apart before indexing; the rest of the run stays words.
    let last = 0;
    for (const ch of run.matchAll(CJK_CHARS)) {
      const before = run.slice(last, ch.index);
      if (before) out.push(stemToken(before));
      out.push(ch[0]);
      last = (ch.index ?? 0) + ch[0].length;
    }
    const rest = run.slice(last);
    if (rest) out.push(stemToken(rest));
  }
  return out;
}
