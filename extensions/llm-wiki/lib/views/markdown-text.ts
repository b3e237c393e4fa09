/**
 * Text from pages and events placed into a generated Markdown view. Every
 * value is hostile: a title may carry escape sequences, `</wiki-recall>`,
 * a link to `javascript:` or a heading of its own. Here it becomes one line
 * of inert text: neutralised (safety/text.ts), Markdown and HTML syntax
 * escaped, machine-local paths hidden, secrets redacted by the writer.
 */
import { neutraliseLine } from "../safety/text.ts";
import { PAGE_FOLDERS } from "../vault/paths.ts";

/** Shown instead of an absolute file path of the machine that logged an event. */
export const LOCAL_PATH = "<local path>";

/**
 * ASCII punctuation with an inline meaning in CommonMark/GFM (emphasis,
 * code, links, images, tables, strikethrough); backslash-escaping each is
 * always valid Markdown and renders as the character itself. Line-start
 * syntax (`#`, `-`, `1.`) needs nothing: a view never starts a line with
 * page text.
 */
const MARKDOWN_PUNCTUATION = /[\\`*_[\]()!|~]/g;

/**
 * One line of inert Markdown text: controls and line breaks neutralised,
 * `&`, `<` and `>` as entities (so no tag, `</wiki-recall>` included,
 * survives in the bytes), other Markdown punctuation backslash-escaped.
 */
export function inlineText(text: string): string {
  return neutraliseLine(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`);
}

/** A vault-relative path as a link destination: each segment percent-encoded, `/` kept. */
export function linkPath(path: string): string {
  return path
    .split("/")
    .map((segment) => (segment === ".." || segment === "." ? segment : encodeURIComponent(segment)))
    .join("/");
}

const PAGE_ROOTS = new Set<string>([...PAGE_FOLDERS, "wiki", "raw", "meta"]);

/**
 * An absolute path of some machine: POSIX with two or more segments (not a
 * bundle-root link such as `/concepts/rag.md`), `~/…`, a Windows drive or
 * UNC path, or a `file:` URL.
 */
const ABSOLUTE_PATH =
  /(?:file:\/\/[^\s"'<>)]*|~\/[^\s"'<>)]*|\b[A-Za-z]:[\\/][^\s"'<>)]*|\\\\[^\s"'<>)\\]+\\[^\s"'<>)]*|(?<![\w.~/-])\/[^\s/"'<>)]+(?:\/[^\s"'<>)]*)+)/g;

/** `text` with every machine-local absolute path replaced by `LOCAL_PATH`. */
export function scrubLocalPaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, (match) => {
    if (match.startsWith("/")) {
      const first = match.slice(1).split("/")[0] ?? "";
      if (PAGE_ROOTS.has(first)) return match;
    }
    return LOCAL_PATH;
  });
}

/** Characters of a JSON string written as `\uXXXX`: Markdown/HTML syntax and invisible controls. */
const JSON_STRING_RISKY =
  /[<>&*_[\]`|~#!()]|[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\u{e0000}-\u{e007f}]/gu;

const MAX_JSON_DEPTH = 16;

/**
 * An underscore between two letters or digits can neither open nor close
 * emphasis (CommonMark's flanking rules), so `source_id` stays as written.
 */
function inertUnderscore(json: string, at: number): boolean {
  return /[\p{L}\p{N}]/u.test(json.charAt(at - 1)) && /[\p{L}\p{N}]/u.test(json.charAt(at + 1));
}

function jsonString(text: string): string {
  const json = JSON.stringify(scrubLocalPaths(text));
  return json.replace(JSON_STRING_RISKY, (char, at: number) =>
    char === "_" && inertUnderscore(json, at)
      ? char
      : [...char]
          .flatMap((c) => (c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)]))
          .map((u) => `\\u${u.toString(16).padStart(4, "0")}`)
          .join(""),
  );
}

/**
 * `value` as JSON with object keys sorted (recursively, code-point order),
 * arrays in order, no whitespace; inside strings machine-local paths are
 * hidden and every character that means something to Markdown or HTML (or
 * is an invisible control) is a `\uXXXX` escape: the same JSON value, inert
 * on a Markdown line.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (typeof value === "string") return jsonString(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean" || value === null) return String(value);
  // A hand-edited log may nest without end; a view stops well before the stack does.
  if (depth >= MAX_JSON_DEPTH) return jsonString("…");
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort(compareCodePoints);
    return `{${keys.map((key) => `${jsonString(key)}:${canonicalJson(record[key], depth + 1)}`).join(",")}}`;
  }
  return "null";
}

/** Unicode code-point order, the same whatever the process's locale. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
