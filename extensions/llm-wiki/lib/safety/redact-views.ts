/**
 * Other readings of a text for the detectors, so a secret is found however
 * it was spelt on its way in: typographic quotes read as ASCII quotes, and
 * JSON-escaped text (a log line with `\"` and `\n` on one line, JSON inside a
 * JSON string) read unescaped. Spans found in a view are mapped back onto
 * the text, so what is replaced is always the text's own characters.
 */
import type { SecretSpan } from "./redact-kinds.ts";
import { ESCAPE_SEQUENCE } from "./text.ts";

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
  // Every escape starts with a backslash, found at the speed of a memory scan.
  for (
    let level = 0;
    level < MAX_LEVELS && current.includes("\\") && HAS_ESCAPE.test(current);
    level++
  ) {
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
 * What a reader's terminal or a later neutralisation drops from a text:
 * escape sequences (`grep --color`, `bat`, `jq -C`), the same written out
 * (`\e[01;31m`, `\x1b[…`, `\033[…`, `^[[…`), C0 and C1 controls but tab and
 * line breaks, and characters that render as nothing (zero-width spaces and
 * joiners, soft hyphens, bidi and variation marks, tag characters).
 */
const DROPPED = new RegExp(
  [
    ESCAPE_SEQUENCE.source,
    String.raw`(?:\\(?:e|x1[bB]|0?33|u001[bB])|\^\[)\[[0-9;:?]*[ -/]*[@-~]`,
    String.raw`[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]`,
    String.raw`[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff]`,
    String.raw`[\u{e0000}-\u{e007f}]`,
  ].join("|"),
  "gu",
);

/** A character `DROPPED` could start at (ESC and CSI are controls; `\\` and `^` start the written-out forms). */
const MAYBE_DROPPED = new RegExp(
  [
    String.raw`[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff\u{e0000}-\u{e007f}]`,
    String.raw`\\(?:e|x1[bB]|0?33|u001[bB])\[`,
    String.raw`\^\[\[`,
  ].join("|"),
  "u",
);

/**
 * `text` as it reads once everything invisible is gone: a secret split by a
 * colour code (`\e[01;31m\e[KDB_PASSWORD\e[m\e[K=…`) or a zero-width space
 * inside its value is whole again here, and its span maps back over the
 * controls inside it. Undefined when `text` has nothing to drop.
 */
export function neutralView(text: string): TextView | undefined {
  // One character class first: most texts hold none of these, and pay one scan.
  if (!MAYBE_DROPPED.test(text)) return undefined;
  DROPPED.lastIndex = 0;
  if (!DROPPED.test(text)) return undefined;
  DROPPED.lastIndex = 0;
  let out = "";
  const at: number[] = [];
  let from = 0;
  for (const m of text.matchAll(DROPPED)) {
    for (let i = from; i < m.index; i++) {
      out += text[i];
      at.push(i);
    }
    from = m.index + m[0].length;
  }
  for (let i = from; i < text.length; i++) {
    out += text[i];
    at.push(i);
  }
  at.push(text.length);
  return {
    text: out,
    back: (span) => ({
      // A span that starts the view starts at the first character kept.
      start: at[span.start] ?? text.length,
      // And runs up to the next one kept: the controls inside and right after it go with it.
      end: at[span.end] ?? text.length,
      kind: span.kind,
    }),
  };
}

/** The escaped and literal readings of `text` (see below). */
function plainViews(text: string): TextView[] {
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

const IDENTITY = (text: string): TextView => ({ text, back: (span) => span });

/**
 * Every further reading of `text` the detectors scan besides the text itself:
 * each level of JSON escaping undone, the quoted literals of each (the
 * text's own included) on lines of their own, and each of these with what a
 * terminal would not show taken out (`neutralView`). Most texts have none.
 */
export function textViews(text: string): TextView[] {
  const views = plainViews(text);
  for (const base of [IDENTITY(text), ...views]) {
    const neutral = neutralView(base.text);
    if (neutral === undefined) continue;
    const view = through(base, neutral);
    views.push(view);
    for (const inner of plainViews(neutral.text)) views.push(through(view, inner));
  }
  return views;
}
