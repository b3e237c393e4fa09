/**
 * Time in a question, as a window of whole days (UTC): "yesterday", "last
 * week", "in March", "since 2026-02", "between 2026-01-05 and 2026-01-20",
 * "in Q3", "Q3 2025", "last quarter", "between Feb and April", "the
 * summer of 2026", "last winter", "H1 2026", "late 2025", "before the v2
 * release" (when a page gives that release's date). A month or quarter
 * named without its year is the most recent one that has begun. Pure:
 * `now` is always given, and a named event is looked up through `anchor`.
 * Only a temporal preposition (before, after, since, until, till, prior to)
 * names an event: "from the sync engine" or "stored by the cache" name a
 * place or an agent, and stay words of the question.
 * The phrase that named the window is removed from the words searched, so
 * "last week" does not look for pages about weeks.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";

/** A window of days, both ends inclusive (`YYYY-MM-DD`); an absent end is open. */
export interface TimeWindow {
  since?: string;
  until?: string;
  /** The words of the query that named it, as written. */
  phrase?: string;
  /** Where it came from: the query's words, explicit `since`/`until`, or both intersected. */
  origin: "query" | "explicit" | "both";
  /** The page whose date a named event ("before the v2 release") gave. */
  anchor?: string;
}

/**
 * A named event's date: an event-like page (one that says when it happened)
 * whose title or alias is the name; undefined for any other page.
 */
export type AnchorLookup = (name: string) => { date: string; pageId: string } | undefined;

/** The query with its time words taken out, and the window they named. */
export interface ParsedTime {
  window?: TimeWindow;
  /** The query without the phrase (and a dangling preposition); the query itself when none. */
  rest: string;
  diagnostics: Diagnostic[];
}

/** Dates outside these years are refused: nothing a wiki records is older or that far ahead. */
export const MIN_YEAR = 1970;
export const MAX_YEAR = 2200;
/** The longest explicit `since`/`until` value looked at (an ISO date is 10 characters). */
const MAX_DATE_CHARS = 40;

const DAY_MS = 86_400_000;
/** A bare year counts as time up to this many years after today's. */
const YEARS_AHEAD = 5;

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
] as const;
const MONTH_ALT = MONTHS.map((m) => (m === "may" ? m : `${m}|${m.slice(0, 3)}`)).join("|");
/** Every month's name, full or short, begins with one of these. */
const MONTH_SHORT = MONTHS.map((m) => m.slice(0, 3)).join("|");

/** A day as days since 1970-01-01 (UTC). */
type Day = number;

interface Span {
  from: Day;
  to: Day;
}

const dayOf = (y: number, m: number, d: number): Day => Math.floor(Date.UTC(y, m, d) / DAY_MS);

/** `YYYY-MM-DD` of a day number. */
export function isoDay(day: Day): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The day number of a `YYYY-MM-DD` (or longer ISO) date, undefined when it is no real date. */
export function dayNumber(iso: string): Day | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  if (y < MIN_YEAR || y > MAX_YEAR) return undefined;
  const day = dayOf(y, mo, d);
  // 2026-02-30 rolls over in Date.UTC: a real date reads back the same.
  return isoDay(day) === `${m[1]}-${m[2]}-${m[3]}` ? day : undefined;
}

const monthSpan = (y: number, m: number): Span => ({
  from: dayOf(y, m, 1),
  to: dayOf(y, m + 1, 1) - 1,
});

/** Monday of the ISO week holding `day` (1970-01-01 was a Thursday). */
const mondayOf = (day: Day): Day => day - ((day + 3) % 7);

function ymd(day: Day): { y: number; m: number; d: number } {
  const date = new Date(day * DAY_MS);
  return { y: date.getUTCFullYear(), m: date.getUTCMonth(), d: date.getUTCDate() };
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  few: 3,
  couple: 2,
};
const COUNT = `(\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)`;
const UNIT = "(days?|weeks?|months?|quarters?|years?)";

function countOf(word: string): number {
  const w = word.replace(/^a (few|couple of)$/, "$1").replace(/ of$/, "");
  return /^\d+$/.test(w) ? Number(w) : (NUMBER_WORDS[w] ?? 1);
}

/** The days `n` units back from `today` through today. */
function lastN(today: Day, n: number, unit: string): Span {
  const { y, m, d } = ymd(today);
  if (unit.startsWith("day")) return { from: today - n + 1, to: today };
  if (unit.startsWith("week")) return { from: today - 7 * n + 1, to: today };
  if (unit.startsWith("month")) return { from: dayOf(y, m - n, d) + 1, to: today };
  if (unit.startsWith("quarter")) return { from: dayOf(y, m - 3 * n, d) + 1, to: today };
  return { from: dayOf(y - n, m, d) + 1, to: today };
}

/** The calendar unit holding the point `n` units back ("3 weeks ago": that week). */
function ago(today: Day, n: number, unit: string): Span {
  const { y, m } = ymd(today);
  if (unit.startsWith("day")) return { from: today - n, to: today - n };
  if (unit.startsWith("week")) {
    const monday = mondayOf(today) - 7 * n;
    return { from: monday, to: monday + 6 };
  }
  if (unit.startsWith("month")) return monthSpan(y, m - n);
  if (unit.startsWith("quarter")) return quarterSpan(y, Math.floor(m / 3) - n);
  return { from: dayOf(y - n, 0, 1), to: dayOf(y - n + 1, 0, 1) - 1 };
}

/** Quarter `q` (0-based, may run past either end of the year) of year `y`. */
function quarterSpan(y: number, q: number): Span {
  return { from: dayOf(y, 3 * q, 1), to: dayOf(y, 3 * q + 3, 1) - 1 };
}

const ORDINALS: Record<string, number> = {
  first: 0,
  "1st": 0,
  second: 1,
  "2nd": 1,
  third: 2,
  "3rd": 2,
  fourth: 3,
  "4th": 3,
};

/** A four-digit year the windows take. */
const YEAR = "(?:19|20|21|22)\\d{2}";

/** The month (0-based) each season begins in; winter begins in the December before. */
const SEASON_START: Record<string, number> = {
  spring: 2,
  summer: 5,
  autumn: 8,
  fall: 8,
  winter: -1,
};

/** Words that may follow a bare season that is a time ("in the spring and summer", "in winter when …"). */
const SEASON_FOLLOWERS =
  "and|or|when|while|we|i|you|they|he|she|it|did|do|does|was|were|is|are|has|had|have|so|then|too|last|this|before|after|of|in|at|for|to|that|because|with|on|by|but|not|already|again";

/** Three months from `start` (0-based, -1 for the December before) of year `y`. */
function seasonSpan(y: number, start: number): Span {
  return { from: dayOf(y, start, 1), to: dayOf(y, start + 3, 1) - 1 };
}

/**
 * The latest season `start` begun by day `t` (`over`: the latest one ended
 * before it). A winter begun this December belongs to next year's count.
 */
function latestSeason(t: Day, start: number, over: boolean): Span {
  const { y } = ymd(t);
  for (const year of [y + 1, y, y - 1]) {
    const span = seasonSpan(year, start);
    if (over ? span.to < t : span.from <= t) return span;
  }
  return seasonSpan(y - 2, start);
}

/** Most recent such quarter not after today's (asked in May, "in Q3" is last year's). */
function namedQuarter(today: Day, q: number, year?: number): Span | "invalid" {
  const t = ymd(today);
  const y = year ?? (q > Math.floor(t.m / 3) ? t.y - 1 : t.y);
  return checkedYear(y) ? quarterSpan(y, q) : "invalid";
}

/** A period's regular expression and how it becomes days. */
interface PeriodRule {
  re: string;
  /**
   * A short pattern every match of `re` contains (case aside): a query
   * without it cannot hold this period, so its part of the large
   * alternations is left out and never compiled.
   */
  may: string;
  /** Needs a preposition before it ("in 2026", not "2026 tokens"). */
  bare?: false;
  /** The days, "invalid" for an impossible date, undefined when the words are no date after all. */
  span(m: string[], today: Day): Span | "invalid" | undefined;
}

const monthIndex = (name: string): number =>
  MONTHS.findIndex((m) => m === name || m.slice(0, 3) === name);

function checkedYear(y: number): boolean {
  return y >= MIN_YEAR && y <= MAX_YEAR;
}

/** Most recent such month not after today's (asked in February, "in March" is last year's). */
function namedMonth(today: Day, month: number, year?: number): Span | "invalid" {
  const t = ymd(today);
  const y = year ?? (month > t.m ? t.y - 1 : t.y);
  return checkedYear(y) ? monthSpan(y, month) : "invalid";
}

const PERIODS: PeriodRule[] = [
  {
    re: "(\\d{4})-(\\d{1,2})-(\\d{1,2})",
    may: "\\d{4}-\\d",
    span: (m) => {
      const day = dayNumber(
        `${m[1]}-${(m[2] ?? "").padStart(2, "0")}-${(m[3] ?? "").padStart(2, "0")}`,
      );
      return day === undefined ? "invalid" : { from: day, to: day };
    },
  },
  {
    re: "(\\d{4})-(\\d{1,2})(?![\\d-])",
    may: "\\d{4}-\\d",
    span: (m) => {
      const [y, mo] = [Number(m[1]), Number(m[2]) - 1];
      return checkedYear(y) && mo >= 0 && mo < 12 ? monthSpan(y, mo) : "invalid";
    },
  },
  { re: "today", may: "today", span: (_m, t) => ({ from: t, to: t }) },
  { re: "yesterday", may: "yesterday", span: (_m, t) => ({ from: t - 1, to: t - 1 }) },
  { re: "this week", may: "this week", span: (_m, t) => ({ from: mondayOf(t), to: t }) },
  {
    re: "last week|the week before",
    may: "week",
    span: (_m, t) => ({ from: mondayOf(t) - 7, to: mondayOf(t) - 1 }),
  },
  {
    re: "this month",
    may: "month",
    span: (_m, t) => {
      const { y, m } = ymd(t);
      return { from: dayOf(y, m, 1), to: t };
    },
  },
  {
    re: "last month",
    may: "month",
    span: (_m, t) => {
      const { y, m } = ymd(t);
      return monthSpan(y, m - 1);
    },
  },
  {
    re: "this year",
    may: "year",
    span: (_m, t) => ({ from: dayOf(ymd(t).y, 0, 1), to: t }),
  },
  {
    re: "last year",
    may: "year",
    span: (_m, t) => {
      const y = ymd(t).y - 1;
      return { from: dayOf(y, 0, 1), to: dayOf(y + 1, 0, 1) - 1 };
    },
  },
  { re: "recently|lately", may: "recently|lately", span: (_m, t) => ({ from: t - 29, to: t }) },
  // "recent firmware problems"; "the most recent release" is the latest, not a window.
  { re: "(?<!most )recent", may: "recent", span: (_m, t) => ({ from: t - 29, to: t }) },
  {
    re: `(?:the )?(?:last|past|previous) ${COUNT} ${UNIT}`,
    may: "(?:last|past|previous) ",
    span: (m, t) => lastN(t, countOf(m[1] ?? "1"), m[2] ?? "day"),
  },
  {
    re: `(?:the )?(?:last|past) (day|week|month|year)`,
    may: "(?:last|past) ",
    span: (m, t) => lastN(t, 1, m[1] ?? "day"),
  },
  {
    re: `${COUNT} ${UNIT} ago`,
    may: " ago",
    span: (m, t) => ago(t, countOf(m[1] ?? "1"), m[2] ?? "day"),
  },
  {
    // "last quarter of the file" is a part of something, not a time.
    re: "(this|last|previous) quarter(?! of )",
    may: "quarter",
    span: (m, t) => {
      const { y, m: month } = ymd(t);
      const q = Math.floor(month / 3);
      if (m[1] === "this") return { from: quarterSpan(y, q).from, to: t };
      return quarterSpan(y, q - 1);
    },
  },
  {
    re: "q([1-4])(?:,? |-|/)((?:19|20|21|22)\\d{2})|((?:19|20|21|22)\\d{2})(?: |-|/)?q([1-4])",
    may: "q[1-4]|[1-4]q",
    span: (m, t) => {
      const q = Number(m[1] || m[4]) - 1;
      return namedQuarter(t, q, Number(m[2] || m[3]));
    },
  },
  {
    // A season is a time with its year ("the summer of 2026"), or as the
    // last one ("last summer"): "summer interns" is no time. Northern
    // seasons by month; a winter runs December to February.
    re: `(?:the )?(spring|summer|autumn|fall|winter),? (?:of )?(${YEAR})|(last|this) (spring|summer|autumn|fall|winter)`,
    may: "spring|summer|autumn|fall|winter",
    span: (m, t) => {
      const season = SEASON_START[m[1] || m[4] || ""] ?? 0;
      if (m[2]) {
        const y = Number(m[2]);
        return checkedYear(y) ? seasonSpan(y, season) : "invalid";
      }
      // "this": the latest one begun; "last": the latest one over.
      return latestSeason(t, season, m[3] === "last");
    },
  },
  {
    // "in the spring", "during winter": a season after a preposition is the
    // latest one begun, as a month without its year is. A season naming
    // the next word is no time: "in winter mode", "in the spring boot app".
    re: `(spring|summer|autumn|fall|winter)(?![ -](?!(?:${SEASON_FOLLOWERS})\\b)\\p{L})`,
    may: "spring|summer|autumn|fall|winter",
    bare: false,
    span: (m, t) => {
      return latestSeason(t, SEASON_START[m[1] ?? ""] ?? 0, false);
    },
  },
  {
    re: `(?:the )?(first|second|1st|2nd) half,? (?:of )?(${YEAR})|h([12])(?:,? |-|/)?(${YEAR})`,
    may: "half|h[12]",
    span: (m) => {
      const y = Number(m[2] || m[4]);
      const second = m[1] ? /^(second|2nd)$/.test(m[1]) : m[3] === "2";
      return checkedYear(y)
        ? { from: dayOf(y, second ? 6 : 0, 1), to: dayOf(y, second ? 12 : 6, 1) - 1 }
        : "invalid";
    },
  },
  {
    // A third of the year: January–April, May–August, September–December.
    re: `(early|mid|late)[- ](${YEAR})`,
    may: "early|mid|late",
    span: (m) => {
      const y = Number(m[2]);
      const third = m[1] === "early" ? 0 : m[1] === "mid" ? 1 : 2;
      return checkedYear(y)
        ? { from: dayOf(y, 4 * third, 1), to: dayOf(y, 4 * third + 4, 1) - 1 }
        : "invalid";
    },
  },
  {
    // An ordinal quarter is a time only with its year: "the second quarter
    // of the pipeline" is a part of the pipeline.
    re: "(?:the )?(first|second|third|fourth|1st|2nd|3rd|4th) quarter,? (?:of )?((?:19|20|21|22)\\d{2})",
    may: "quarter",
    span: (m, t) => namedQuarter(t, ORDINALS[m[1] ?? ""] ?? 0, Number(m[2])),
  },
  {
    re: "q([1-4])",
    may: "q[1-4]",
    bare: false,
    span: (m, t) => namedQuarter(t, Number(m[1]) - 1),
  },
  {
    re: `(${MONTH_ALT})\\.? (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})`,
    may: MONTH_SHORT,
    span: (m) => {
      const [y, mo, d] = [Number(m[3]), monthIndex(m[1] ?? ""), Number(m[2])];
      const day = dayNumber(
        `${y}-${String(mo + 1).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
      );
      return day === undefined ? "invalid" : { from: day, to: day };
    },
  },
  {
    re: `(${MONTH_ALT})\\.?,? (\\d{4})`,
    may: MONTH_SHORT,
    span: (m, t) => namedMonth(t, monthIndex(m[1] ?? ""), Number(m[2])),
  },
  {
    re: `(${MONTH_ALT})`,
    may: MONTH_SHORT,
    bare: false,
    span: (m, t) => namedMonth(t, monthIndex(m[1] ?? "")),
  },
  {
    re: "((?:19|20|21|22)\\d{2})",
    may: "(?:19|20|21|22)\\d{2}",
    bare: false,
    span: (m, t) => {
      const y = Number(m[1]);
      // "in 2048 tokens" is a size: a year far ahead is no time anyone recorded.
      if (y > ymd(t).y + YEARS_AHEAD) return undefined;
      return checkedYear(y) ? { from: dayOf(y, 0, 1), to: dayOf(y + 1, 0, 1) - 1 } : "invalid";
    },
  },
];

/** Each period rule anchored to a whole phrase, compiled once. */
const PERIOD_WHOLE = PERIODS.map((rule) => ({ rule, re: new RegExp(`^(?:${rule.re})$`, "i") }));
/** Each rule's precondition, compiled once. */
const PERIOD_MAY = PERIODS.map((rule) => new RegExp(rule.may, "i"));

/** The days of one period phrase ("last week", "march 2026"), or undefined / invalid. */
function periodSpan(text: string, today: Day): Span | "invalid" | undefined {
  for (const { rule, re } of PERIOD_WHOLE) {
    const m = re.exec(text);
    if (m)
      return rule.span(
        [...m].map((s) => (s ?? "").toLowerCase()),
        today,
      );
  }
  return undefined;
}

const B = "(?<![\\p{L}\\p{N}])";
const E = "(?![\\p{L}\\p{N}])";
const BEFORE = "before|until|till|up to|prior to|by";
const AFTER = "since|after|from";
/**
 * The prepositions that can date a question by a named event. "from", "by"
 * and "up to" are left out: before a period they bound it ("by March"), but
 * before a name they are ordinary ("errors from the sync engine").
 */
const EVENT_BEFORE = "before|until|till|prior to";
const EVENT_AFTER = "since|after";

interface Found {
  start: number;
  end: number;
  span: Span | "invalid";
  anchor?: string;
}

/** The three large patterns, built from the rules a query may hold. */
interface PeriodPatterns {
  range: RegExp;
  bound: RegExp;
  period: RegExp;
}

// Compiling the alternation of every rule costs more than a whole recall
// (tens of milliseconds in a fresh process, e.g. each Claude Code hook);
// a query names few periods, so each distinct subset of rules is compiled
// once and kept. Rules whose precondition fails cannot match anywhere in the
// query, so the subset finds exactly what the full alternation would.
const PATTERNS = new Map<string, PeriodPatterns>();
const ANCHOR_RE = new RegExp(
  `${B}(${EVENT_AFTER}|${EVENT_BEFORE}) (?:the |our |we shipped )?`,
  "giu",
);

/** The patterns for `query`, or undefined when it can name no period at all. */
function patternsFor(query: string): PeriodPatterns | undefined {
  const active = PERIODS.filter((_, i) => PERIOD_MAY[i]?.test(query));
  if (active.length === 0) return undefined;
  const key = active.map((rule) => PERIODS.indexOf(rule)).join(",");
  const known = PATTERNS.get(key);
  if (known) return known;
  const any = active.map((p) => `(?:${p.re})`).join("|");
  const bare = active
    .filter((p) => p.bare !== false)
    .map((p) => `(?:${p.re})`)
    .join("|");
  const patterns: PeriodPatterns = {
    range: new RegExp(
      `${B}(?:between|from) (?<a>${any}) (?:and|to|until|through|till) (?<b>${any})${E}`,
      "iu",
    ),
    bound: new RegExp(`${B}(${AFTER}|${BEFORE}) (?:the )?(${any})${E}`, "iu"),
    period: new RegExp(
      `${B}(?:(?:in|during|on|of|over) (?:the )?(${any})${bare === "" ? "" : `|(${bare})`})${E}`,
      "iu",
    ),
  };
  PATTERNS.set(key, patterns);
  return patterns;
}

/** `from X to Y`, `between X and Y`. */
function findRange(q: string, today: Day, re: RegExp): Found | undefined {
  const m = re.exec(q);
  if (!m) return undefined;
  let a = periodSpan(m.groups?.a ?? "", today);
  const b = periodSpan(m.groups?.b ?? "", today);
  if (a === undefined || b === undefined) return undefined;
  // "between Feb and April" asked in March: the most recent April, and the
  // February before it, not this February to last April.
  if (a !== "invalid" && b !== "invalid" && a.from > b.to) {
    const again = periodSpan(m.groups?.a ?? "", b.to);
    if (again !== undefined && again !== "invalid" && again.from <= b.to) a = again;
  }
  const span = a === "invalid" || b === "invalid" ? "invalid" : { from: a.from, to: b.to };
  return { start: m.index, end: m.index + m[0].length, span };
}

/** `since X`, `after X`, `before X`, `until X` with X a period. */
function findBound(q: string, today: Day, re: RegExp): Found | undefined {
  const m = re.exec(q);
  if (!m) return undefined;
  const word = (m[1] ?? "").toLowerCase();
  const whole = m[0]
    .slice(m[1]?.length ?? 0)
    .trim()
    .replace(/^the /i, "");
  if (modalMay(whole, q.slice(m.index + m[0].length))) return undefined;
  const p = periodSpan(whole, today);
  if (p === undefined) return undefined;
  return { start: m.index, end: m.index + m[0].length, span: bounded(word, p) };
}

/**
 * A lowercase "may" followed by more words is the verb ("from may be
 * stale"), a lowercase "q3" an identifier ("in q3 of the loop"): the period
 * then needs its capital, a year, or to end the clause.
 */
function modalMay(phrase: string, after: string): boolean {
  return /^(?:may|q[1-4])$/.test(phrase) && !/^\s*(?:$|[?.!,;:)])/.test(after);
}

/** One side of a period: "after March" starts on April 1st, "until March" ends on March 31st. */
function bounded(word: string, p: Span | "invalid"): Span | "invalid" {
  if (p === "invalid") return p;
  const open = Number.NEGATIVE_INFINITY;
  const far = Number.POSITIVE_INFINITY;
  if (word === "since" || word === "from") return { from: p.from, to: far };
  if (word === "after") return { from: p.to + 1, to: far };
  if (word === "until" || word === "till" || word === "by") return { from: open, to: p.to };
  return { from: open, to: p.from - 1 };
}

/** `before the v2 release`: the longest run of following words that names a dated page. */
function findAnchor(q: string, anchor: AnchorLookup | undefined): Found | undefined {
  if (!anchor) return undefined;
  for (const m of q.matchAll(ANCHOR_RE)) {
    const after = q.slice(m.index + m[0].length);
    const words = after.split(/\s+/).slice(0, 6);
    for (let n = words.length; n >= 1; n -= 1) {
      const name = words
        .slice(0, n)
        .join(" ")
        .replace(/[?.!,;:]+$/, "");
      if (name === "") continue;
      const hit = anchor(name);
      const day = hit ? dayNumber(hit.date) : undefined;
      if (!hit || day === undefined) continue;
      const length = m[0].length + after.indexOf(words[n - 1] ?? "") + (words[n - 1]?.length ?? 0);
      return {
        start: m.index,
        end: m.index + length,
        span: bounded((m[1] ?? "").toLowerCase(), { from: day, to: day }),
        anchor: hit.pageId,
      };
    }
  }
  return undefined;
}

/** `in March`, `during 2025`, `on 2026-03-04`, or a bare `last week`. */
function findPeriod(q: string, today: Day, re: RegExp): Found | undefined {
  const m = re.exec(q);
  if (!m) return undefined;
  const text = m.slice(1).find((s) => s !== undefined && s !== "") ?? "";
  const whole = m[0]
    .replace(/^(in|during|on|of|over) /i, "")
    .replace(/^the /i, "")
    .trim();
  if (modalMay(whole, q.slice(m.index + m[0].length))) return undefined;
  const p = periodSpan(whole, today) ?? periodSpan(text, today);
  if (p === undefined) return undefined;
  return { start: m.index, end: m.index + m[0].length, span: p };
}

/** The query without `[start, end)`, whitespace collapsed; the query when nothing would be left. */
function without(q: string, start: number, end: number): string {
  // "yesterday's failure": the possessive goes with the phrase.
  const after = q.slice(end).replace(/^['’]s(?![\p{L}\p{N}])/u, "");
  const rest = `${q.slice(0, start)} ${after}`
    .replace(/\s+([?.!,;:])/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
  return /[\p{L}\p{N}]/u.test(rest) ? rest : q;
}

/**
 * The time window a query names, relative to `now`, and the query without
 * those words. At most one phrase is read (ranges and bounds before plain
 * periods); an impossible date ("since 2026-13") yields a warning and no window.
 */
export function parseTimeWindow(
  query: string,
  options: { now: Date; anchor?: AnchorLookup },
): ParsedTime {
  const today = Math.floor(options.now.getTime() / DAY_MS);
  const patterns = patternsFor(query);
  const found =
    (patterns ? findRange(query, today, patterns.range) : undefined) ??
    findAnchor(query, options.anchor) ??
    (patterns
      ? (findBound(query, today, patterns.bound) ?? findPeriod(query, today, patterns.period))
      : undefined);
  if (!found) return { rest: query, diagnostics: [] };
  const phrase = query.slice(found.start, found.end);
  if (found.span === "invalid" || found.span.from > found.span.to) {
    return {
      rest: query,
      diagnostics: [
        diagnostic(
          "time_window_invalid",
          "warning",
          `"${phrase.slice(0, 60)}" is no date between ${MIN_YEAR} and ${MAX_YEAR} (or names an empty span); recalled without a time window`,
        ),
      ],
    };
  }
  const window: TimeWindow = { phrase, origin: "query" };
  if (Number.isFinite(found.span.from)) window.since = isoDay(found.span.from);
  if (Number.isFinite(found.span.to)) window.until = isoDay(found.span.to);
  if (found.anchor) window.anchor = found.anchor;
  return { window, rest: without(query, found.start, found.end), diagnostics: [] };
}

/**
 * An explicit `since`/`until` value: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`
 * (its first day for `since`, its last for `until`), or a diagnostic.
 */
export function explicitDay(
  value: string,
  side: "since" | "until",
): { ok: true; day: string } | { ok: false; diagnostic: Diagnostic } {
  const text = value.trim();
  const bad = (why: string) => ({
    ok: false as const,
    diagnostic: diagnostic(
      "time_window_invalid",
      "error",
      `${side}: ${why}; give a date as YYYY-MM-DD, YYYY-MM or YYYY between ${MIN_YEAR} and ${MAX_YEAR}`,
    ),
  });
  if (text.length > MAX_DATE_CHARS) return bad(`a value of ${text.length} characters is no date`);
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(text);
  if (!m) return bad(`"${text.replace(/[^\x20-\x7e]/g, "?")}" is not an ISO date`);
  const y = Number(m[1]);
  if (!checkedYear(y)) return bad(`year ${y} is out of range`);
  let span: Span;
  if (m[3] !== undefined) {
    const day = dayNumber(text);
    if (day === undefined) return bad(`${text} is no calendar date`);
    span = { from: day, to: day };
  } else if (m[2] !== undefined) {
    const mo = Number(m[2]) - 1;
    if (mo < 0 || mo > 11) return bad(`month ${m[2]} does not exist`);
    span = monthSpan(y, mo);
  } else span = { from: dayOf(y, 0, 1), to: dayOf(y + 1, 0, 1) - 1 };
  return { ok: true, day: isoDay(side === "since" ? span.from : span.to) };
}

/**
 * The window of explicit bounds intersected with the query's; an empty
 * intersection or bounds in the wrong order is an error diagnostic.
 */
export function combineWindows(
  fromQuery: TimeWindow | undefined,
  explicit: { since?: string; until?: string },
): { ok: true; window?: TimeWindow } | { ok: false; diagnostic: Diagnostic } {
  const hasExplicit = explicit.since !== undefined || explicit.until !== undefined;
  if (!hasExplicit) return fromQuery ? { ok: true, window: fromQuery } : { ok: true };
  const later = (a?: string, b?: string) =>
    a === undefined ? b : b === undefined || a > b ? a : b;
  const earlier = (a?: string, b?: string) =>
    a === undefined ? b : b === undefined || a < b ? a : b;
  const since = later(explicit.since, fromQuery?.since);
  const until = earlier(explicit.until, fromQuery?.until);
  if (since !== undefined && until !== undefined && since > until) {
    return {
      ok: false,
      diagnostic: diagnostic(
        "time_window_empty",
        "error",
        `no day is both on or after ${since} and on or before ${until}${fromQuery ? ` (with "${fromQuery.phrase ?? ""}" in the query)` : ""}`,
      ),
    };
  }
  const window: TimeWindow = { origin: fromQuery ? "both" : "explicit" };
  if (since !== undefined) window.since = since;
  if (until !== undefined) window.until = until;
  if (fromQuery?.phrase) window.phrase = fromQuery.phrase;
  if (fromQuery?.anchor) window.anchor = fromQuery.anchor;
  return { ok: true, window };
}

/** Whether a `YYYY-MM-DD` date falls inside the window. */
export function inWindow(date: string, window: Pick<TimeWindow, "since" | "until">): boolean {
  const day = date.slice(0, 10);
  return (
    (window.since === undefined || day >= window.since) &&
    (window.until === undefined || day <= window.until)
  );
}
