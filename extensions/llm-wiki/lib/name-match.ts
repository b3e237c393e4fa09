/**
 * Matching a query against page names (id, title, aliases, recall triggers) without the index:
 * an exact match (the query is a page's name) and a contained match (the
 * query mentions a page's whole title or alias, e.g. "what tool is
 * abbreviated QMD" names the page titled "QMD"). The name table is built once
 * per set of names (the registry keeps one `names` object while no id, title
 * or alias changes), so a recall costs a few map lookups, not a scan. A table
 * kept on disk (see vault/registry-names.ts) is handed in with
 * `adoptNameTable`; it is made from `pageNameKeys`, as a built one is.
 */
import { ftsTokens } from "./lexical/fts-tokens.ts";
import type { SpellingRepair } from "./lexical/spelling.ts";
import { repairedNames } from "./name-typos.ts";
import type { PageMeta } from "./vault/page.ts";

/** Confidence a contained title or alias gives a page: strong, below an exact match. */
export const CONTAINED_NAME_CONFIDENCE = 0.75;
const MAX_NAME_WORDS = 8;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export interface NameMatches {
  exact: Set<string>;
  contained: Set<string>;
  /** Words of the longest title or alias the query contains, by contained page. */
  span: Map<string, number>;
  /** The contained names of two words or more, as their stems ("remot cach"). */
  phrases?: Set<string>;
  /** Query words read as another spelling to complete a name ("pol" as "pool"). */
  respelled?: SpellingRepair[];
}

/** Ids by key, in page order; a `Map` of sets, or a table read from disk. */
export interface NameLookup {
  get(key: string): Iterable<string> | undefined;
}

/** The name table of a set of pages. */
export interface NameTable {
  exact: NameLookup;
  /** Titles and aliases by their sequence of index terms (stems: "Idempotency keys" reads "idempot key"). */
  words: NameLookup;
  /** Titles and aliases written in CJK, matched as substrings. */
  cjk: ReadonlyArray<{ name: string; id: string }>;
}

/** What one page adds to the name table, each list in the order it is added. */
export interface PageNameKeys {
  exact: string[];
  words: string[];
  cjk: string[];
}

const tables = new WeakMap<object, NameTable>();

/** Anything outside printable ASCII (a name with a tab or newline just takes the slow path). */
const NOT_PLAIN_ASCII = /[^ -~]/;

function plain(text: string): string {
  // NFKC leaves ASCII as it is; most names are ASCII and the table holds every name.
  const normal = NOT_PLAIN_ASCII.test(text) ? text.normalize("NFKC") : text;
  return normal.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * Words only: punctuation becomes a space and a number's leading zeros go,
 * so "ADR-001: SQLite" reads "adr 1 sqlite", as people type it ("adr 1").
 */
function words(text: string): string {
  return plain(text)
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, " ")
    .replace(/(^| )0+(?=\d)/g, "$1")
    .trim();
}

/** A word with a plain English plural folded: "tombstones" and "tombstone" read alike. */
function singular(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The stem of one word as the index reads it. */
function stemOf(word: string): string {
  return ftsTokens(word).join(" ");
}

/**
 * The words-table key of a name's words: a one-word name by its singular
 * (stemming "store" would also take "stored", a verb in most prompts), a
 * longer one by its stems, as the index reads words ("reconnects storm"
 * names "Reconnect storm", "rate limits" names "Rate limiting").
 */
function wordsKey(ws: readonly string[]): string | undefined {
  if (ws.length === 0 || ws.length > MAX_NAME_WORDS) return undefined;
  if (ws.length === 1) return singular(ws[0] as string);
  return ws.map(stemOf).join(" ");
}

function add(map: Map<string, Set<string>>, key: string, id: string): void {
  if (key === "") return;
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
}

/**
 * The names of a page: its title, its aliases and its recall triggers (the
 * questions its author said it answers, `recall_triggers`, which
 * `@zosmaai/pi-llm-wiki` counts as strongly as an alias).
 */
export function pageNames(
  page: Pick<PageMeta, "title" | "aliases"> & { recallTriggers?: readonly string[] },
): string[] {
  // "Redis (ElastiCache)" is also named Redis: a title's trailing qualifier is not its name.
  const head = page.title.replace(/\s*\([^()]*\)\s*$/, "").trim();
  const titles = head !== "" && head !== page.title ? [page.title, head] : [page.title];
  return [...titles, ...page.aliases, ...(page.recallTriggers ?? [])];
}

/**
 * The keys page `id` adds to the name table: its id and last id segment,
 * each name (`pageNames`) as exact keys; names of 3+ characters and at most
 * MAX_NAME_WORDS words as word sequences, or as CJK names. Empty keys are
 * never added.
 */
export function pageNameKeys(
  id: string,
  page: Pick<PageMeta, "title" | "aliases"> & { recallTriggers?: readonly string[] },
): PageNameKeys {
  const keys: PageNameKeys = {
    exact: [id.toLowerCase(), id.toLowerCase().split("/").pop() ?? id],
    words: [],
    cjk: [],
  };
  for (const name of pageNames(page)) {
    keys.exact.push(plain(name));
    const w = words(name);
    // One- and two-letter names ("Go", "UI") would match half the prompts.
    if (w.length < 3) continue;
    if (CJK.test(w)) {
      if (w.split(" ").length <= MAX_NAME_WORDS) keys.cjk.push(w.replace(/ /g, ""));
      continue;
    }
    const key = wordsKey(w.split(" "));
    if (key !== undefined) keys.words.push(key);
  }
  return keys;
}

/** The name table of `pages`, ids in page order under every key. */
export function buildNameTable(pages: ReadonlyMap<string, PageMeta>): NameTable {
  const exact = new Map<string, Set<string>>();
  const byWords = new Map<string, Set<string>>();
  const cjk: Array<{ name: string; id: string }> = [];
  for (const [id, page] of pages) {
    const keys = pageNameKeys(id, page);
    for (const key of keys.exact) add(exact, key, id);
    for (const key of keys.words) add(byWords, key, id);
    for (const name of keys.cjk) cjk.push({ name, id });
  }
  return { exact, words: byWords, cjk };
}

/**
 * Uses `table` as the name table of `names` (a registry's `names` object):
 * a table kept on disk, made with `pageNameKeys` from the same pages, so a
 * recall need not build one from every page.
 */
export function adoptNameTable(names: object, table: NameTable): void {
  tables.set(names, table);
}

function tableOf(pages: ReadonlyMap<string, PageMeta>, key: object): NameTable {
  const cached = tables.get(key);
  if (cached) return cached;
  const table = buildNameTable(pages);
  tables.set(key, table);
  return table;
}

/**
 * The pages one of whose names (title, alias, recall trigger) reads as
 * `name` once case, punctuation and plural endings are set aside, in page
 * order: the table's entry for it, not a walk of every page (a name in a
 * time question, "since the March offsite", at 100k pages). Callers that
 * need an exact match check the names of the few pages returned.
 */
export function pagesNamed(
  pages: ReadonlyMap<string, PageMeta>,
  name: string,
  names: object = pages,
): string[] {
  const table = tableOf(pages, names);
  const w = words(name);
  const key = w.length >= 3 && !CJK.test(w) ? wordsKey(w.split(" ")) : undefined;
  const ids = key !== undefined ? table.words.get(key) : table.exact.get(plain(name));
  return ids ? [...ids] : [];
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
  const span = new Map<string, number>();
  const phrases = new Set<string>();
  const found = (id: string, n: number, key?: string) => {
    if (key !== undefined) phrases.add(key);
    if (exact.has(id)) return;
    contained.add(id);
    if (n > (span.get(id) ?? 0)) span.set(id, n);
  };
  const tokens = words(query).split(" ").filter(Boolean);
  const stems: Array<string | undefined> = [];
  for (let i = 0; i < tokens.length; i += 1) {
    for (let n = 1; n <= MAX_NAME_WORDS && i + n <= tokens.length; n += 1) {
      const key =
        n === 1
          ? singular(tokens[i] as string)
          : tokens
              .slice(i, i + n)
              .map((w, k) => {
                stems[i + k] ??= stemOf(w);
                return stems[i + k];
              })
              .join(" ");
      // The whole query, word for word, is the name as typed ("adr 9" for "ADR-009").
      const whole = i === 0 && n === tokens.length;
      for (const id of table.words.get(key) ?? []) {
        if (whole) exact.add(id);
        found(id, n, n > 1 ? key : undefined);
      }
    }
  }
  // A two-word name typed with one slip ("warm pol size"), found only beside its other word.
  const hasName = (key: string) => {
    for (const _ of table.words.get(key) ?? []) return true;
    return false;
  };
  const respelled: SpellingRepair[] = [];
  for (const { key, from, to } of repairedNames(tokens, stemOf, hasName)) {
    for (const id of table.words.get(key) ?? []) found(id, 2);
    respelled.push({ from, to });
  }
  if (table.cjk.length > 0 && CJK.test(query)) {
    const squashed = words(query).replace(/ /g, "");
    for (const { name, id } of table.cjk) {
      if (squashed.includes(name)) found(id, [...name].length);
    }
  }
  return { exact, contained, span, phrases, ...(respelled.length > 0 ? { respelled } : {}) };
}

/**
 * The words of the longest of `phrases` (contained names' stems, from
 * `matchNames`) that one of the page's own names holds, 0 for none:
 * "Bazel remote cache on NVMe" holds "remote cache", 2.
 */
export function namesHold(
  page: Pick<PageMeta, "title" | "aliases">,
  phrases: ReadonlySet<string> | undefined,
): number {
  if (!phrases || phrases.size === 0) return 0;
  let most = 0;
  for (const name of [page.title, ...page.aliases]) {
    const w = words(name);
    if (w === "" || CJK.test(w)) continue;
    const seq = ` ${w.split(" ").map(stemOf).join(" ")} `;
    for (const phrase of phrases) {
      if (seq.includes(` ${phrase} `)) most = Math.max(most, phrase.split(" ").length);
    }
  }
  return most;
}

/**
 * A name as its near duplicates read it: words only (case and punctuation
 * folded), plain plurals folded, word order ignored: "Cache invalidation",
 * "Caches: Invalidation" and "invalidation cache" share one key; "" for a
 * name without words.
 */
export function nearNameKey(name: string): string {
  return words(name)
    .split(" ")
    .filter((w) => w !== "")
    .map(singular)
    .sort()
    .join(" ");
}
