/**
 * The time window of one recall: the query's time words (relative to `now`)
 * intersected with explicit `since`/`until`, the query to search with those
 * words taken out, and each vault's page dates (resolved only when there is
 * a window, so a recall without time costs nothing here).
 */
import type { Diagnostic } from "../diagnostics.ts";
import { pagesNamed } from "../name-match.ts";
import type { RetrievalVault } from "../retrieval/retrieval-types.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type PageDate, type PageDateLookup, pageDateLookup } from "./page-dates.ts";
import {
  type AnchorLookup,
  combineWindows,
  dayNumber,
  explicitDay,
  parseTimeWindow,
  type TimeWindow,
} from "./time-window.ts";

/** What recall needs to prefer pages of a time window. */
export type RecallWindow =
  | {
      ok: true;
      window?: TimeWindow;
      /** The query the search steps use (names are still matched on the original). */
      searchQuery: string;
      /** The vaults, each with its page dates when there is a window. */
      vaults: RetrievalVault[];
      diagnostics: Diagnostic[];
    }
  | { ok: false; diagnostics: Diagnostic[] };

/** Names compared loosely: case, punctuation and spacing aside. */
const nameKey = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/**
 * Page types that record something that happened at a date of their own:
 * a source (a release note, a paper, a meeting) and the foreign types other
 * tools write for events. A card (concept, entity, …) is dated by its last
 * edit, which names no event: "by the sync engine" is no time.
 */
const EVENT_TYPES: ReadonlySet<string> = new Set([
  "source",
  "event",
  "release",
  "milestone",
  "meeting",
  "incident",
]);

/**
 * The day an event-like page names: its own `date` (`published`,
 * `captured`) first, whatever its type; for an event type, else its date in
 * the page-date chain. Undefined for a page that names no event.
 */
function eventDay(page: PageMeta, chained: () => PageDate | undefined): string | undefined {
  if (page.date !== undefined && dayNumber(page.date.slice(0, 10)) !== undefined) {
    return page.date.slice(0, 10);
  }
  return EVENT_TYPES.has(page.type.toLowerCase()) ? chained()?.date : undefined;
}

/** Words that call a version a release ("the v2 launch", "since we shipped 2.0"). */
const RELEASE_WORDS: ReadonlySet<string> = new Set([
  "release",
  "released",
  "launch",
  "launched",
  "version",
  "ship",
  "shipped",
  "rollout",
]);

/** `v2`, `v2.0`, `2.0.0` → `2` / `2.1`: a version with its trailing zeros off; else undefined. */
function versionKey(word: string): string | undefined {
  const m = /^(v)?(\d{1,4}(?:\.\d{1,4}){0,3})$/i.exec(word);
  if (!m?.[2] || (!m[1] && !m[2].includes("."))) return undefined;
  return m[2].replace(/(?:\.0+)+$/, "");
}

/** A text's words, lowercased, with the punctuation around each off (a version's dots kept). */
const wordsOf = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((w) => w !== "");

/**
 * The version a name of a release asks for: "v2 release", "the 2.0 launch"
 * — one version and otherwise only release words, at least one; undefined
 * for any other name. A bare "v2" is left alone: in "since the v2 API" it
 * begins the name of something else.
 */
function releaseName(name: string): string | undefined {
  let version: string | undefined;
  let called = false;
  for (const word of wordsOf(name)) {
    const key = versionKey(word);
    if (key !== undefined) {
      if (version !== undefined) return undefined;
      version = key;
    } else if (RELEASE_WORDS.has(word)) called = true;
    else return undefined;
  }
  return called ? version : undefined;
}

/** Whether a page names the release of `version`: its title or an alias holds the version, and it is a release. */
function namesRelease(page: PageMeta, version: string): boolean {
  const type = page.type.toLowerCase();
  return [page.title, ...page.aliases].some((text) => {
    const words = wordsOf(text);
    if (!words.some((w) => versionKey(w) === version)) return false;
    return type === "release" || type === "milestone" || words.some((w) => RELEASE_WORDS.has(w));
  });
}

/**
 * A named event's date: an event-like page whose title or alias is the name
 * ("the v2 release" → a source titled "v2 release"), or, for a release's
 * name, the earliest dated event-like page that names that release ("since
 * the v2 release" → "Release v2.0 shipped"). Only event-like pages are named
 * here, so an ordinary page's title after "before"/"since" stays a word of
 * the question and its page stays a candidate.
 */
function anchorLookup(
  vaults: readonly RetrievalVault[],
  datesOf: (v: RetrievalVault) => PageDateLookup,
): AnchorLookup {
  return (name) => {
    const key = nameKey(name);
    if (key === "") return undefined;
    // The first event-like page, in vault and page order, one of whose names reads as `name`.
    for (const v of vaults) {
      for (const id of pagesNamed(v.pages, name, v.names)) {
        const page = v.pages.get(id);
        if (!page || (page.date === undefined && !EVENT_TYPES.has(page.type.toLowerCase())))
          continue;
        if (![page.title, ...page.aliases].some((n) => nameKey(n) === key)) continue;
        const date = eventDay(page, () => datesOf(v).get(id));
        return date ? { date, pageId: id } : undefined;
      }
    }
    const version = releaseName(name);
    if (version === undefined) return undefined;
    let best: { date: string; pageId: string } | undefined;
    for (const v of vaults) {
      for (const [id, page] of v.pages) {
        if (page.date === undefined && !EVENT_TYPES.has(page.type.toLowerCase())) continue;
        if (!namesRelease(page, version)) continue;
        const date = eventDay(page, () => datesOf(v).get(id));
        if (date && (!best || date < best.date)) best = { date, pageId: id };
      }
    }
    return best;
  };
}

/** The window, search query and dated vaults of one recall. */
export function recallWindow(
  input: { query: string; since?: string; until?: string; now?: Date },
  vaults: ReadonlyArray<{ vault: RetrievalVault; paths: VaultPaths }>,
): RecallWindow {
  const diagnostics: Diagnostic[] = [];
  const explicit: { since?: string; until?: string } = {};
  for (const side of ["since", "until"] as const) {
    const value = input[side];
    if (value === undefined) continue;
    const day = explicitDay(value, side);
    if (!day.ok) return { ok: false, diagnostics: [day.diagnostic] };
    explicit[side] = day.day;
  }
  const dates = new Map<RetrievalVault, PageDateLookup>();
  const datesOf = (v: RetrievalVault): PageDateLookup => {
    let d = dates.get(v);
    if (!d) {
      const paths = vaults.find((x) => x.vault === v)?.paths;
      d = paths ? pageDateLookup(paths, v.pages) : new Map();
      dates.set(v, d);
    }
    return d;
  };
  const plain = vaults.map((x) => x.vault);
  const parsed = parseTimeWindow(input.query, {
    now: input.now ?? new Date(),
    anchor: anchorLookup(plain, datesOf),
  });
  diagnostics.push(...parsed.diagnostics);
  const combined = combineWindows(parsed.window, explicit);
  if (!combined.ok) return { ok: false, diagnostics: [...diagnostics, combined.diagnostic] };
  const window = combined.window;
  if (!window) return { ok: true, searchQuery: input.query, vaults: plain, diagnostics };
  return {
    ok: true,
    window,
    searchQuery: parsed.window ? parsed.rest : input.query,
    vaults: plain.map((v) => ({ ...v, dates: datesOf(v) })),
    diagnostics,
  };
}
