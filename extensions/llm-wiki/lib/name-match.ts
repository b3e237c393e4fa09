/**
 * Matching a query against page names (id, title, aliases) without the index:
 * an exact match (the query is a page's name) and a contained match (the
 * query mentions a page's whole title or alias, e.g. "what tool is
 * abbreviated QMD" names the page titled "QMD"). The name table is built once
 * per set of names (the registry keeps one `names` object while no id, title
 * or alias changes), so a recall costs a few map lookups, not a scan.
 */
import type { PageMeta } from "./vault/page.ts";

/** Confidence a contained title or alias gives a page: strong, below an exact match. */
export const CONTAINED_NAME_CONFIDENCE = 0.75;
const MAX_NAME_WORDS = 8;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export interface NameMatches {
  exact: Set<string>;
  contained: Set<string>;
}

interface NameTable {
  exact: Map<string, Set<string>>;
  /** Titles and aliases by their word sequence. */
  words: Map<string, Set<string>>;
  /** Titles and aliases written in CJK, matched as substrings. */
  cjk: Array<{ name: string; id: string }>;
}

const tables = new WeakMap<object, NameTable>();

/** Anything outside printable ASCII (a name with a tab or newline just takes the slow path). */
const NOT_PLAIN_ASCII = /[^ -~]/;

function plain(text: string): string {
  // NFKC leaves ASCII as it is; most names are ASCII and the table holds every name.
  const normal = NOT_PLAIN_ASCII.test(text) ? text.normalize("NFKC") : text;
  return normal.trim().replace(/\s+/g, " ").toLowerCase();
}

/** Words only: punctuation becomes a space, so "ADR-001: SQLite" reads "adr 001 sqlite". */
function words(text: string): string {
  return plain(text)
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, " ")
    .trim();
}

function add(map: Map<string, Set<string>>, key: string, id: string): void {
  if (key === "") return;
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
}

function tableOf(pages: ReadonlyMap<string, PageMeta>, key: object): NameTable {
  const cached = tables.get(key);
  if (cached) return cached;
  const table: NameTable = { exact: new Map(), words: new Map(), cjk: [] };
  for (const [id, page] of pages) {
    add(table.exact, id.toLowerCase(), id);
    add(table.exact, id.toLowerCase().split("/").pop() ?? id, id);
    for (const name of [page.title, ...page.aliases]) {
      add(table.exact, plain(name), id);
      const w = words(name);
      // One- and two-letter names ("Go", "UI") would match half the prompts.
      if (w.length < 3 || w.split(" ").length > MAX_NAME_WORDS) continue;
      if (CJK.test(w)) table.cjk.push({ name: w.replace(/ /g, ""), id });
      else add(table.words, w, id);
    }
  }
  tables.set(key, table);
  return table;
}

/**
 * Pages the query names exactly, and pages whose whole title or alias the
 * query contains. `names` identifies the set of names in `pages` (the table
 * is cached under it).
 */
export function matchNames(
  pages: ReadonlyMap<string, PageMeta>,
  query: string,
  names: object = pages,
): NameMatches {
  const table = tableOf(pages, names);
  const exact = new Set(table.exact.get(plain(query)) ?? []);
  const contained = new Set<string>();
  const tokens = words(query).split(" ").filter(Boolean);
  for (let i = 0; i < tokens.length; i += 1) {
    for (let n = 1; n <= MAX_NAME_WORDS && i + n <= tokens.length; n += 1) {
      for (const id of table.words.get(tokens.slice(i, i + n).join(" ")) ?? []) {
        if (!exact.has(id)) contained.add(id);
      }
    }
  }
  if (table.cjk.length > 0 && CJK.test(query)) {
    const squashed = words(query).replace(/ /g, "");
    for (const { name, id } of table.cjk) {
      if (squashed.includes(name) && !exact.has(id)) contained.add(id);
    }
  }
  return { exact, contained };
}
