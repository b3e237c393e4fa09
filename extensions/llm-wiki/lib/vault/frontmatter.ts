/**
 * Front matter that is read, never run. gray-matter chooses its parser from
 * the text after the opening fence (`---js`, `---coffee`, …) and its
 * built-in JavaScript engine evaluates that text: a page committed to a
 * repository by anyone would run code whenever the vault is read. Every
 * front-matter parse in the project goes through `readFrontmatter`, which
 * admits only YAML (gray-matter's safe loader) and JSON (`JSON.parse`) and
 * refuses any other language before gray-matter sees the text. YAML is
 * also bounded (frontmatter-bounds.ts): nested aliases that would expand
 * to millions of nodes in every reader are refused, not parsed into a bomb.
 */
import matter from "gray-matter";
import { checkExpansion, checkYamlText } from "./frontmatter-bounds.ts";

export { FrontmatterTooComplexError } from "./frontmatter-bounds.ts";

/** Fence languages that may be parsed; the empty name is YAML, as in gray-matter. */
const ALLOWED_LANGUAGES: ReadonlySet<string> = new Set(["", "yaml", "yml", "json"]);

function refuse(language: string): never {
  throw new FrontmatterLanguageError(language);
}

type YamlParse = (text: string) => object;

/** gray-matter's own YAML engine (js-yaml's safe loader), which its types do not expose. */
const defaultYaml: YamlParse = (() => {
  const engines = (matter as unknown as { engines?: { yaml?: { parse?: unknown } } }).engines;
  const parse = engines?.yaml?.parse;
  if (typeof parse !== "function") throw new Error("gray-matter has no YAML engine");
  return parse as YamlParse;
})();

/** The YAML engine with its bounds: the text checked before parsing, the data before any reader. */
function boundedYaml(text: string): object {
  checkYamlText(text);
  const data = defaultYaml(text);
  checkExpansion(data, text.length);
  return data;
}

/** JSON has no aliases, but may nest as deep as YAML may not: the same bound for every reader. */
function boundedJson(text: string): object {
  const data = JSON.parse(text) as object;
  checkExpansion(data, text.length);
  return data;
}

/**
 * Engines handed to gray-matter. Its defaults are merged under these, so the
 * evaluating ones are replaced by refusals as a second line of defence
 * should the fence check below ever miss a spelling.
 */
const SAFE_ENGINES = {
  // `yml` and `yaml` in any case reach this one too (gray-matter's aliases).
  yaml: { parse: boundedYaml },
  javascript: { parse: () => refuse("javascript") },
  js: { parse: () => refuse("js") },
  coffee: { parse: () => refuse("coffee") },
  coffeescript: { parse: () => refuse("coffeescript") },
  cson: { parse: () => refuse("cson") },
  // JSON.parse may return a non-object; callers check for a mapping.
  json: { parse: boundedJson },
};

/** A page's front matter names a language that is never parsed. */
export class FrontmatterLanguageError extends Error {
  readonly language: string;
  constructor(language: string) {
    super(`front matter language "${language}" is refused: only YAML and JSON are read`);
    this.name = "FrontmatterLanguageError";
    this.language = language;
  }
}

/**
 * The language named after an opening `---` fence ("" for none), or
 * undefined when `text` does not open with a front-matter fence. Mirrors
 * gray-matter's rule: `---` at the very start, not followed by another `-`.
 */
export function fenceLanguage(text: string): string | undefined {
  if (!text.startsWith("---") || text.charAt(3) === "-") return undefined;
  const end = text.search(/\r?\n/);
  return (end === -1 ? text.slice(3) : text.slice(3, end)).trim();
}

/** Parsed front matter: the data (unvalidated) and the body after the block. */
export interface Frontmatter {
  data: unknown;
  content: string;
}

/**
 * Splits `text` into front matter and body. Throws
 * `FrontmatterLanguageError` for a fence naming any language but YAML or
 * JSON, `FrontmatterTooComplexError` for YAML over its bounds, and the
 * parser's own error for invalid YAML or JSON.
 */
export function readFrontmatter(text: string): Frontmatter {
  const language = fenceLanguage(text);
  if (language !== undefined && !ALLOWED_LANGUAGES.has(language.toLowerCase())) {
    refuse(language);
  }
  // An options object also turns off gray-matter's content cache, which
  // would hand back a stale parse for identical text.
  const parsed = matter(text, { excerpt: false, engines: SAFE_ENGINES });
  return { data: parsed.data as unknown, content: parsed.content };
}

/**
 * A page's text: `data` as a YAML front-matter block, then `body`. A body
 * that itself starts with `---` stays body text (it is never parsed here).
 */
export function writeFrontmatter(body: string, data: Record<string, unknown>): string {
  // A file object, not a string: given a string, gray-matter would parse a
  // body that starts with `---` as front matter (and throw on a bad one).
  return matter.stringify({ content: body }, data);
}
