/**
 * Checks on what an agent hands the writing operations. A bad input is a
 * `WikiError` carrying an `invalid_input` diagnostic that names the field,
 * so every host reports it the same way and nothing is written.
 */
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { checkSingleLine, codeOf } from "../safety/text.ts";

/** Longest title accepted; a title is a name, not a paragraph. */
export const MAX_TITLE_CHARS = 300;
/** Longest body text of one observation or retro section; far below the 1 MiB page limit. */
export const MAX_TEXT_CHARS = 50_000;
/** Most tags or sources one record may carry, and the longest of each. */
export const MAX_LIST_ITEMS = 50;
export const MAX_ITEM_CHARS = 300;

/** Throws the `invalid_input` diagnostic for `field`. */
export function invalid(field: string, message: string): never {
  throw new WikiError(diagnostic("invalid_input", "error", `${field}: ${message}`));
}

/**
 * A one-line title (or description, alias, tag: every single-line field of
 * a page): trimmed, then refused when it holds a line break, tab, other
 * control character, bidi control or stray tag character, or shows nothing
 * (see `checkSingleLine`); NFKC, inner whitespace collapsed, non-empty, at
 * most `MAX_TITLE_CHARS`.
 */
export function cleanTitle(value: unknown, field = "title"): string {
  if (typeof value !== "string") invalid(field, "must be a string");
  const trimmed = value.trim();
  if (trimmed === "") invalid(field, "must not be empty");
  checkSingleLine(trimmed, field);
  const title = trimmed.normalize("NFKC").replace(/\s+/g, " ").trim();
  if (title === "") invalid(field, "must not be empty");
  if (title.length > MAX_TITLE_CHARS)
    invalid(field, `is longer than ${MAX_TITLE_CHARS} characters`);
  return title;
}

/**
 * Characters body text may not hold: C0 controls but tab, line feed and
 * carriage return; DEL; C1 controls; and the bidi embeddings, overrides and
 * isolates that make text read in another order than it is stored ("Trojan
 * Source"). Marks (LRM, RLM, ALM) stay: right-to-left prose needs them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const BODY_UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/u;

/**
 * Refuses body text (a page's Markdown, captured text) holding a character
 * of `BODY_UNSAFE`: an `invalid_input` diagnostic names the field, the line
 * and the U+ code, and nothing is written. A NUL makes the stored file
 * binary to every reader; an escape sequence would act on the terminal of
 * whoever prints it later.
 */
export function checkBodyText(text: string, field: string): void {
  const found = BODY_UNSAFE.exec(text);
  if (found === null) return;
  const char = found[0];
  const line = text.slice(0, found.index).split("\n").length;
  const cp = char.codePointAt(0) ?? 0;
  const kind = cp >= 0x202a ? "a bidirectional control" : "a control character";
  invalid(field, `contains ${kind} (${codeOf(char)}) on line ${line}; nothing was stored`);
}

/** Body text: trimmed at its ends only (inner Markdown kept as given), within `MAX_TEXT_CHARS`. */
export function cleanText(value: unknown, field: string, required: boolean): string {
  if (value === undefined && !required) return "";
  if (typeof value !== "string") invalid(field, "must be a string");
  const text = value.replace(/\r\n?/g, "\n").trim();
  if (required && text === "") invalid(field, "must not be empty");
  if (text.length > MAX_TEXT_CHARS) invalid(field, `is longer than ${MAX_TEXT_CHARS} characters`);
  return text;
}

/**
 * A list of short one-line strings, trimmed, inner whitespace (line breaks
 * too) folded to one space, empties and repeats dropped. Any other control,
 * a bidi control, a stray tag character or an item that shows nothing is
 * refused, naming the item (`tags/2`).
 */
export function cleanList(value: unknown, field: string, maxChars = MAX_ITEM_CHARS): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) invalid(field, "must be a list of strings");
  if (value.length > MAX_LIST_ITEMS) invalid(field, `has more than ${MAX_LIST_ITEMS} items`);
  const out: string[] = [];
  value.forEach((item: unknown, i) => {
    if (typeof item !== "string") invalid(`${field}/${i}`, "must be a string");
    checkSingleLine(item.trim(), `${field}/${i}`, { collapsesWhitespace: true });
    const text = item.replace(/\s+/g, " ").trim();
    if (text.length > maxChars) invalid(`${field}/${i}`, `is longer than ${maxChars} characters`);
    if (text !== "" && !out.includes(text)) out.push(text);
  });
  return out;
}

/** The diagnostic of a failed write: a refusal's own, or `write_failed` for a file-system error. */
export function failureDiagnostic(error: unknown): Diagnostic {
  if (error instanceof WikiError) return error.diagnostic;
  return diagnostic("write_failed", "error", errorMessage(error));
}
