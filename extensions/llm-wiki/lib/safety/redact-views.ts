/**
 * Other readings of a text for the detectors, so a secret is found however
 * it was spelt on its way in: typographic quotes read as ASCII quotes, and
 * JSON-escaped text (a log line with `\"` and `\n` on one line, JSON inside a
 * JSON string) read unescaped. Spans found in a view are mapped back onto
 * the text, so what is replaced is always the text's own characters.
 */
import type { SecretSpan } from "./redact-kinds.ts";

/** Typographic quotes and the ASCII quote each stands for (one UTF-16 unit each). */
const CURLY = /[\u2018\u2019\u201a\u201b\u2032\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g;
const SINGLE = new Set(["\u2018", "\u2019", "\u201a", "\u201b", "\u2032"]);

/**
 * `text` with typographic quotes made ASCII, same length. A PDF set in a
 * standard font turns `'` into `’` (Helvetica's quoteright), a word processor
 * makes `"…"` into `“…”`: the assignment rules know a quoted value only by
 * its ASCII quotes, and without them they cut the value at its first
 * bracket and miss a secret such as `SECRET_KEY = ’…(…’`.
 */
export function plainQuotes(text: string): string {
  if (!CURLY.test(text)) return text;
  CURLY.lastIndex = 0;
  return text.replace(CURLY, (q) => (SINGLE.has(q) ? "'" : '"'));
}

/** A reading of a text and the way back from its offsets to the text's. */
export interface TextView {
  text: string;
  /** A span of the view as a span of the original text. */
  back: (span: SecretSpan) => SecretSpan;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "'": "'",
  "\\": "\\",
  "/": "/",
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
};

/** Whether `text` holds an escape worth a second reading: `\"`, `\n`, `\t`, `\r` or `\uXXXX`. */
const HAS_ESCAPE = /\\(?:["nrt]|u[0-9a-fA-F]{4})/;

/**
 * `text` with one level of JSON string escapes undone; `at[i]` is where the
 * view's character `i` starts in `text` (`at[view.length] === text.length`).
 */
function unescapeOnce(text: string): { text: string; at: number[] } {
  let out = "";
  const at: number[] = [];
  for (let i = 0; i < text.length; ) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length) {
      const next = text[i + 1] as string;
      const simple = SIMPLE_ESCAPES[next];
      if (simple !== undefined) {
        out += simple;
        at.push(i);
        i += 2;
        continue;
      }
      const hex = next === "u" ? text.slice(i + 2, i + 6) : "";
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        out += String.fromCharCode(Number.parseInt(hex, 16));
        at.push(i);
        i += 6;
        continue;
      }
    }
    out += c;
    at.push(i);
    i += 1;
  }
  at.push(text.length);
  return { text: out, at };
}

/** Most escape levels read: a config dump in a log line, wrapped in a JSON string, is three. */
const MAX_LEVELS = 3;

/**
 * The unescaped readings of `text`, one per level of escaping it shows (none
 * for text without escapes, which is most text: no extra scan).
 */
function unescapedViews(text: string): TextView[] {
  const views: TextView[] = [];
  let current = text;
  let toText: number[] | undefined;
  for (let level = 0; level < MAX_LEVELS && HAS_ESCAPE.test(current); level++) {
    const once = unescapeOnce(current);
    const outer = toText;
    const at = outer === undefined ? once.at : once.at.map((i) => outer[i] ?? text.length);
    views.push({
      text: once.text,
      back: (span) => ({
        start: at[span.start] ?? text.length,
        end: at[span.end] ?? text.length,
        kind: span.kind,
      }),
    });
    current = once.text;
    toText = at;
  }
  return views;
}

/** A double-quoted string literal on one line (JSON's, a log's `msg="…"`). */
const LITERAL = /"((?:[^"\\\n]|\\.){8,4096})"/g;

/**
 * The string literals of `text` that hold an assignment or a colon-separated
 * line (`"msg":"smtp_password=…"`, `"host:5432:db:user:pw"`), each unescaped
 * on a line of its own: a line-shaped rule (a letters-only password at the
 * end of its line, a `.pgpass` line) then sees the value as the line it was
 * before it was quoted. Undefined when `text` has no such literal.
 */
function literalsView(text: string): TextView | undefined {
  if (!text.includes('"')) return undefined;
  let out = "";
  const at: number[] = [];
  for (const m of text.matchAll(LITERAL)) {
    const inner = m[1] ?? "";
    if (!/[=:]/.test(inner)) continue;
    const once = unescapeOnce(inner);
    const base = m.index + 1;
    for (let i = 0; i < once.text.length; i++) {
      out += once.text[i];
      at.push(base + (once.at[i] ?? 0));
    }
    // The line break between literals stands at the closing quote.
    out += "\n";
    at.push(base + inner.length);
  }
  if (out === "") return undefined;
  at.push(text.length);
  return {
    text: out,
    back: (span) => ({
      start: at[span.start] ?? text.length,
      end: at[span.end] ?? text.length,
      kind: span.kind,
    }),
  };
}

/** `view` read through `outer`: offsets of `view` go back through both maps. */
function through(outer: TextView, view: TextView): TextView {
  return { text: view.text, back: (span) => outer.back(view.back(span)) };
}

/**
 * Every further reading of `text` the detectors scan besides the text itself:
 * each level of JSON escaping undone, and the quoted literals of each (the
 * text's own included) on lines of their own. Most texts have none.
 */
export function textViews(text: string): TextView[] {
  const views: TextView[] = [];
  const escaped = unescapedViews(text);
  const literals = literalsView(text);
  if (literals !== undefined) views.push(literals);
  for (const view of escaped) {
    views.push(view);
    const inner = literalsView(view.text);
    if (inner !== undefined) views.push(through(view, inner));
  }
  return views;
}
