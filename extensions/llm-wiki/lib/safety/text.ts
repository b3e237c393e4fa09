/**
 * Text that reaches a reader (a person's terminal, a model's context). Three
 * rules, one per moment:
 *
 * - write time (`checkSingleLine`): a title, description, alias or tag is one
 *   line of visible text; control characters, line breaks, bidirectional
 *   controls, stray Unicode tag characters and invisible-only text are
 *   refused with an `invalid_input` diagnostic naming the field and the
 *   character (U+ code);
 * - read time (`neutraliseLine`): the same fields of a page written by hand
 *   are shown harmlessly: escape sequences dropped, controls shown as U+FFFD,
 *   line breaks as spaces, bidi controls removed, and the recall block's
 *   fence tag made inert in any spelling (`neutraliseFenceTag`), so no list
 *   a host prints can open or close a `<wiki-recall>` block;
 * - print time (`terminalSafe`, `jsonTerminalSafe`): nothing a host prints
 *   carries a control sequence (CSI, OSC incl. hyperlinks and clipboard
 *   writes, DCS, lone ESC, C1, BEL, backspace, CR); `\n` and `\t` stay.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for.
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";

/**
 * A complete escape sequence, 7-bit (ESC …) or 8-bit (C1 introducer): CSI
 * (colours, cursor moves), OSC to BEL or ST (titles, OSC 8 links, OSC 52
 * clipboard), DCS/SOS/PM/APC to ST, and the short ESC forms (ESC c, ESC 7,
 * ESC ( B). Unterminated strings are left for the per-character rule, which
 * makes their introducer visible and the rest plain text.
 */
export const ESCAPE_SEQUENCE = new RegExp(
  [
    "(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]",
    "(?:\\x1b\\]|\\x9d)[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)",
    "(?:\\x1b[PX^_]|[\\x90\\x98\\x9e\\x9f])[^\\x1b\\x9c]*(?:\\x1b\\\\|\\x9c)",
    "\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]",
  ].join("|"),
  "g",
);

/** C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
/** Characters that end a line somewhere: LF, CR, VT, FF, NEL, LS, PS. */
const LINE_BREAK = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/gu;
/** Bidirectional controls: embeddings, overrides, isolates, marks. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** A well-formed emoji tag sequence (subdivision flags): the one legitimate use of tag characters. */
const TAG_SEQUENCE = /\u{1f3f4}[\u{e0020}-\u{e007e}]+\u{e007f}/gu;
/** Unicode tag characters (invisible ASCII look-alikes, a known way to smuggle hidden text). */
const TAG_CHAR = /[\u{e0000}-\u{e007f}]/u;
/** Characters that render as nothing (or as blank) in most fonts, besides ordinary whitespace. */
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each mark is matched alone on purpose.
  /[\s\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

const NAMES: Record<number, string> = {
  0: "NUL",
  7: "BEL",
  8: "backspace",
  9: "TAB",
  10: "line feed",
  11: "vertical tab",
  12: "form feed",
  13: "carriage return",
  27: "ESC",
  127: "DEL",
  133: "next line",
  155: "CSI",
  8232: "line separator",
  8233: "paragraph separator",
};

/** `U+001B` style code of `char`'s first code point. */
export function codeOf(char: string): string {
  const cp = char.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What is wrong with one character of a single-line field, or undefined when it may stay. */
function unsafeKind(char: string): string | undefined {
  const cp = char.codePointAt(0) ?? 0;
  if (cp === 0x85 || cp === 0x2028 || cp === 0x2029 || cp === 0x0a || cp === 0x0d)
    return "line break";
  if (CONTROL.test(char)) return "control character";
  if (BIDI.test(char)) return "bidirectional control";
  if (TAG_CHAR.test(char)) return "invisible tag character";
  return undefined;
}

/** True when `text` has no character a reader would see (only whitespace and invisible marks). */
export function isInvisibleOnly(text: string): boolean {
  return text.replace(TAG_SEQUENCE, "x").replace(INVISIBLE, "").replace(BIDI, "") === "";
}

/** How strict `checkSingleLine` is. */
export interface SingleLineOptions {
  /**
   * The caller folds ASCII whitespace (tab, line feed, CR, VT, FF) into
   * single spaces itself, so those may stay (list items such as a retro's
   * lessons, which agents wrap); every other control is still refused.
   */
  collapsesWhitespace?: boolean;
}

/** The first character of `text` a single-line field may not hold, with what it is. */
export function findUnsafeChar(
  text: string,
  options: SingleLineOptions = {},
): { char: string; kind: string } | undefined {
  // Emoji flags are the one place tag characters belong.
  const scan = text.replace(TAG_SEQUENCE, "🏴");
  for (const char of scan) {
    if (options.collapsesWhitespace && /[\t\n\v\f\r]/.test(char)) continue;
    const kind = unsafeKind(char);
    if (kind !== undefined) return { char, kind };
  }
  return undefined;
}

/**
 * Refuses `value` as the single-line field `field` (title, description, an
 * alias or tag): throws a `WikiError` with an `invalid_input` diagnostic
 * naming the field, what was found and its U+ code. Empty text is the
 * caller's to judge; text that is all invisible is refused here.
 */
export function checkSingleLine(
  value: string,
  field: string,
  options: SingleLineOptions = {},
): void {
  const bad = findUnsafeChar(value, options);
  if (bad) {
    const name = NAMES[bad.char.codePointAt(0) ?? -1];
    throw new WikiError(
      diagnostic(
        "invalid_input",
        "error",
        `${field}: contains ${/^[aeiou]/.test(bad.kind) ? "an" : "a"} ${bad.kind} (${codeOf(bad.char)}${name ? ` ${name}` : ""}); it must be one line of visible text`,
      ),
    );
  }
  if (value !== "" && isInvisibleOnly(value)) {
    const first = [...value].find((c) => !/\s/u.test(c)) ?? value;
    throw new WikiError(
      diagnostic(
        "invalid_input",
        "error",
        `${field}: has no visible character (only whitespace and invisible marks such as ${codeOf(first)})`,
      ),
    );
  }
}

/** A flag's tag sequence (kept whole) or a stray tag character. */
const FLAG_OR_TAG = /(\u{1f3f4}[\u{e0020}-\u{e007e}]+\u{e007f})|[\u{e0000}-\u{e007f}]/gu;

function withoutStrayTags(text: string): string {
  return text.replace(FLAG_OR_TAG, (m, flag?: string) => (flag === undefined ? "" : m));
}

/**
 * Anything that could read as the recall block's fence tag, in any
 * spelling: `<`, a full-width or small `<`, or an entity (`&lt;`, `&#60;`,
 * `&#x3c;`), then spaces or invisible marks, an optional `/` (or `&#47;`,
 * `&sol;`, a full-width `／`), and the name in any case, in ASCII or
 * full-width letters, with any separator (`wiki recall`, `WIKI_RECALL`,
 * `ｗｉｋｉ－ｒｅｃａｌｌ`).
 */
const FENCE_TAG =
  /(?:<|\uff1c|\ufe64|&lt;?|&#0*60;?|&#x0*3c;?)[\s\u200b-\u200d\u2060\ufeff]*(\/|\uff0f|&#0*47;?|&#x0*2f;?|&sol;?)?[\s\u200b-\u200d\u2060\ufeff]*([w\uff57][i\uff49][k\uff4b][i\uff49][\s_\-\u2010-\u2015.\uff0d\uff3f\u200b-\u200d\u2060\ufeff]*[r\uff52][e\uff45][c\uff43][a\uff41][l\uff4c][l\uff4c])/giu;

/**
 * Keeps text from closing or faking the recall block's fence
 * (`<wiki-recall>`, see recall.ts): every spelling of the tag reads
 * `&lt;/wiki-recall` (or `&lt;wiki-recall`), the name as written. Applying
 * it twice changes nothing more, so layers may each apply it.
 */
export function neutraliseFenceTag(text: string): string {
  return text.replace(
    FENCE_TAG,
    (_m, slash: string | undefined, name: string) =>
      `&lt;${slash ? "/" : ""}${name.replace(/[\u200b-\u200d\u2060\ufeff]/gu, "")}`,
  );
}

/**
 * A title, description or alias from an existing page, safe to show on one
 * line: escape sequences dropped, line breaks and tabs as one space, other
 * controls as U+FFFD, bidi controls and stray tag characters removed,
 * whitespace collapsed, the recall fence tag made inert. Text that shows
 * nothing becomes U+FFFD. Every list a host prints shows page fields
 * through this one function.
 */
export function neutraliseLine(text: string): string {
  const line = withoutStrayTags(
    text
      .replace(ESCAPE_SEQUENCE, "")
      .replace(LINE_BREAK, " ")
      .replace(/\t/g, " ")
      .replace(/[\u0000-\u001f\u007f-\u009f]/gu, "\uFFFD")
      .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, ""),
  )
    .replace(/\s+/gu, " ")
    .trim();
  if (text !== "" && isInvisibleOnly(line)) return "\uFFFD";
  // After line breaks became spaces: a tag split over lines is one tag here.
  return neutraliseFenceTag(line);
}

function visibleEscape(char: string): string {
  const cp = char.codePointAt(0) ?? 0;
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\u{${cp.toString(16)}}`;
}

/**
 * Text a host prints (terminal, TUI, an MCP client's log): complete escape
 * sequences removed; CR LF as LF; every other control character (C0 but
 * `\n` and `\t`, DEL, C1), bidi control, line/paragraph separator and stray
 * tag character shown as a visible escape (`\x1b`, `\u202e`), so what a page
 * tried to do to the terminal is seen, not done.
 */
export function terminalSafe(text: string): string {
  return withVisibleTags(
    text
      .replace(ESCAPE_SEQUENCE, "")
      .replace(/\r\n/g, "\n")
      .replace(
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu,
        visibleEscape,
      ),
  );
}

function withVisibleTags(text: string): string {
  return text.replace(FLAG_OR_TAG, (m, flag?: string) =>
    flag === undefined ? visibleEscape(m) : m,
  );
}

/**
 * JSON text for a terminal: `JSON.stringify` escapes C0 controls but keeps
 * DEL, C1, bidi controls, line separators and tag characters raw. They are
 * written as `\uXXXX` here; the document parses to the same value.
 */
export function jsonTerminalSafe(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\u{e0000}-\u{e007f}]/gu,
    (char) =>
      [...char]
        .flatMap((c) => (c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)]))
        .map((u) => `\\u${u.toString(16).padStart(4, "0")}`)
        .join(""),
  );
}

/** Frontmatter fields a reader sees as one line: title and description, each alias and tag. */
const LINE_FIELDS = ["title", "description"] as const;
const LIST_FIELDS = ["aliases", "tags"] as const;

/**
 * Refuses page frontmatter whose title, description, aliases or tags break
 * the single-line rule (`checkSingleLine`), whether given as fields or
 * pasted as frontmatter in the content. Values of other types are left to
 * the page's own checks.
 */
export function checkPageLines(data: Readonly<Record<string, unknown>>): void {
  for (const field of LINE_FIELDS) {
    const value = data[field];
    if (typeof value === "string") checkSingleLine(value.trim(), field);
  }
  for (const field of LIST_FIELDS) {
    const value = data[field];
    const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
    items.forEach((item: unknown, i) => {
      if (typeof item === "string") checkSingleLine(item.trim(), `${field}/${i}`);
    });
  }
}

/** The `invalid_input` diagnostic `checkSingleLine` would throw for `value`, or undefined (also for no value). */
export function singleLineProblem(
  value: string | undefined,
  field: string,
): Diagnostic | undefined {
  if (value === undefined) return undefined;
  try {
    checkSingleLine(value.trim(), field);
    return undefined;
  } catch (error) {
    if (error instanceof WikiError) return error.diagnostic;
    throw error;
  }
}

/**
 * Multi-line page text (an excerpt, an inlined body) for a model or a
 * reader: escape sequences dropped, CR LF and lone CR as LF, other controls
 * but tab as U+FFFD, bidi controls and stray tag characters removed. Lines
 * and indentation are kept.
 */
export function neutraliseText(text: string): string {
  return withoutStrayTags(
    text
      .replace(ESCAPE_SEQUENCE, "")
      .replace(/\r\n?|[\u000b\u000c\u0085\u2028\u2029]/gu, "\n")
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/gu, "\uFFFD")
      .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, ""),
  );
}
