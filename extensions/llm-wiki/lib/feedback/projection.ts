/**
 * The feedback projection: what the logged `recall_feedback` events say
 * about each page, decayed with a 90-day half-life and corrected for
 * position bias, folded into one bounded adjustment per (page) and per
 * (query hash, page), from every file of the event log (`meta/events.jsonl`
 * and the clones' logs, vault/event-log-files.ts). Derived only: cached
 * under `meta/cache/` (deleting the cache loses nothing: the next reader
 * replays the log) and brought up to date by reading only the files' new
 * bytes. A line a git merge brought twice into a file counts once.
 * Explicit choices recorded as pages (a correction's observation, a
 * conflict's resolution) are not taken from their events but from the pages
 * (vault-feedback.ts): a page deleted takes its choice with it, and a log
 * lost or never appended to loses none.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { firstSight, type SeenLines } from "../vault/event-lines-seen.ts";
import { eventLogFiles } from "../vault/event-log-files.ts";
import { vaultArea, writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type FeedbackAction, isFeedbackEvent } from "./feedback-event.ts";

/** The largest effect feedback has on a page's final score (a multiplier of 1 ± this). */
export const FEEDBACK_MAX = 0.02;
/** Engagement without an open or a citation is weak: all of it together at most this. */
export const SHOWN_ONLY_FLOOR = -0.005;
export const HALF_LIFE_DAYS = 90;
const DAY_MS = 86_400_000;
/** Decayed sums are kept relative to this moment, so adding an event never rescales the others. */
const EPOCH_MS = Date.UTC(2020, 0, 1);
/** Examination falls with rank as 1/rank^η (a standard position-bias model). */
const POSITION_ETA = 0.7;
/** An open or citation far down the list counts at most this many times one at the top. */
const MAX_POSITION_WEIGHT = 3;
/** An explicit judgment of a page for one query also says this much about the page in general. */
const GENERAL_SHARE = 0.5;

/**
 * Each action's effect before decay and position correction, in units of
 * the final multiplier. Explicit statements are strong (one saturates the
 * bound for its query), citations moderate, opens weak, `shown` none (it is
 * exposure, the denominator of the others).
 */
export const ACTION_WEIGHTS: Readonly<Record<FeedbackAction, number>> = Object.freeze({
  shown: 0,
  opened: 0.003,
  cited: 0.006,
  shown_only: -0.001,
  relevant: 0.02,
  irrelevant: -0.02,
  corrected: -0.02,
  conflict_selected: 0.01,
});

/**
 * Every constant that shapes an adjustment, as the feedback benchmark's
 * baseline records them: a change to one makes the committed figures stale
 * (test/feedback-benchmark.test.ts fails until the benchmark is run again).
 */
export const PROJECTION_PARAMETERS = Object.freeze({
  feedbackMax: FEEDBACK_MAX,
  halfLifeDays: HALF_LIFE_DAYS,
  shownOnlyFloor: SHOWN_ONLY_FLOOR,
  positionEta: POSITION_ETA,
  maxPositionWeight: MAX_POSITION_WEIGHT,
  generalShare: GENERAL_SHARE,
  actionWeights: ACTION_WEIGHTS,
});

const EXPLICIT: ReadonlySet<FeedbackAction> = new Set([
  "relevant",
  "irrelevant",
  "corrected",
  "conflict_selected",
]);

/** How much an action at `rank` (1-based) counts after position-bias correction. */
export function positionWeight(action: FeedbackAction, rank: number | null): number {
  if (rank === null || rank < 1 || EXPLICIT.has(action)) return 1;
  const examined = rank ** -POSITION_ETA;
  // A click far down says more (it was found despite the position);
  // silence far down says less (it was likely never read).
  if (action === "shown_only") return examined;
  return Math.min(MAX_POSITION_WEIGHT, 1 / examined);
}

/** One signal to fold in: an event, or a choice replayed from a page. */
export interface FeedbackSignal {
  page: string;
  queryHash: string | null;
  action: FeedbackAction;
  rank: number | null;
  /** Milliseconds since 1970. */
  at: number;
}

interface PageSums {
  /** Decayed sums relative to EPOCH (see `grow`). */
  signal: number;
  shownOnly: number;
  /** When the earliest event folded in was (ms since 1970): a page created after it was re-created. */
  first: number;
}

/** How much of one log file is folded in, and what identifies it (a replaced or merged file is read anew). */
interface LogMark {
  bytes: number;
  /** The file's first bytes and those before `bytes` (see `readHead`). */
  head: string;
  /**
   * The file itself (inode and birth time): git writes a file it merges or
   * checks out anew, so a merge that only added lines at its end (some of
   * them repeats of lines read here) is still read again from the start.
   */
  file: string;
}

/** The projection's state, as cached on disk. */
interface ProjectionState {
  version: typeof STATE_VERSION;
  /** Each log file folded in, by its path relative to `meta/`. */
  logs: Record<string, LogMark>;
  pages: Record<string, PageSums>;
  /** `<query hash> <page>` → decayed explicit sum. */
  queries: Record<string, number>;
}

/**
 * 2: pages' first event kept, choices recorded as pages no longer folded from the log.
 * 3: the log's fingerprint holds the bytes before the read point too (a merge reorders lines).
 * 4: one mark per log file (the clones' logs), each with the file's identity.
 */
const STATE_VERSION = 4;
const HEAD_BYTES = 256;

/** `w`, stated at `at`, expressed at EPOCH (decay applied at read time, see `decayAt`). */
function grow(w: number, at: number): number {
  return w * 2 ** ((at - EPOCH_MS) / (HALF_LIFE_DAYS * DAY_MS));
}

function decayAt(now: number): number {
  return 2 ** (-(now - EPOCH_MS) / (HALF_LIFE_DAYS * DAY_MS));
}

function clamp(x: number, bound: number): number {
  return Math.max(-bound, Math.min(bound, x));
}

function emptyState(): ProjectionState {
  return { version: STATE_VERSION, logs: {}, pages: {}, queries: {} };
}

/** What ranking asks of feedback: a page's adjustment, within ±FEEDBACK_MAX. */
export interface FeedbackAdjustments {
  adjustment(page: string, queryHash: string | undefined, now: number): number;
  /** Pages with any recorded signal. */
  pages(): string[];
}

/** The feedback adjustments of one vault. */
export class FeedbackProjection implements FeedbackAdjustments {
  private state: ProjectionState;

  constructor(state: ProjectionState = emptyState()) {
    this.state = state;
  }

  /** Folds one signal in. */
  add(signal: FeedbackSignal): void {
    const w = ACTION_WEIGHTS[signal.action] * positionWeight(signal.action, signal.rank);
    if (w === 0) return;
    const grown = grow(w, signal.at);
    const explicit = EXPLICIT.has(signal.action);
    const sums = this.state.pages[signal.page] ?? { signal: 0, shownOnly: 0, first: signal.at };
    sums.first = Math.min(sums.first, signal.at);
    if (signal.action === "shown_only") sums.shownOnly += grown;
    else sums.signal += explicit ? grown * GENERAL_SHARE : grown;
    this.state.pages[signal.page] = sums;
    if (explicit && signal.queryHash) {
      const key = `${signal.queryHash} ${signal.page}`;
      this.state.queries[key] = (this.state.queries[key] ?? 0) + grown;
    }
  }

  /**
   * The adjustment for `page` (and, when given, for it under `queryHash`) at
   * `now`, within ±FEEDBACK_MAX; 0 when nothing was recorded.
   */
  adjustment(page: string, queryHash: string | undefined, now: number): number {
    return clamp(this.contribution(page, queryHash, now), FEEDBACK_MAX);
  }

  /** The adjustment before the bound (several projections of one vault are summed, then bounded). */
  contribution(page: string, queryHash: string | undefined, now: number): number {
    const sums = this.state.pages[page];
    const perQuery = queryHash ? this.state.queries[`${queryHash} ${page}`] : undefined;
    if (sums === undefined && perQuery === undefined) return 0;
    const d = decayAt(now);
    const general =
      (sums?.signal ?? 0) * d + Math.max(SHOWN_ONLY_FLOOR, (sums?.shownOnly ?? 0) * d);
    return general + (perQuery ?? 0) * d;
  }

  /** Pages with any recorded signal. */
  pages(): string[] {
    return Object.keys(this.state.pages);
  }

  /** When `page`'s earliest folded event was (ms since 1970), undefined when it has none. */
  firstEvent(page: string): number | undefined {
    return this.state.pages[page]?.first;
  }

  /** @internal the state to cache, and how much of the log it covers. */
  snapshot(): ProjectionState {
    return this.state;
  }

  /** @internal after reading more of the log file `name` (relative to `meta/`). */
  setLog(name: string, mark: LogMark): void {
    this.state.logs[name] = mark;
  }
}

/** Where the projection is cached. */
export function projectionFile(paths: VaultPaths): string {
  return join(paths.meta, "cache", "feedback-projection.json");
}

/**
 * What identifies the log's first `size` bytes: its first and its last
 * `HEAD_BYTES` before `size`. The head alone misses a merge (`git pull`
 * with the log's union merge) that put a teammate's lines before ones read
 * here; the bytes before the read point then differ and the log is replayed.
 */
function readHead(file: string, size: number): string {
  if (size === 0) return "";
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    readSync(fd, head, 0, head.length, 0);
    const tailStart = Math.max(head.length, size - HEAD_BYTES);
    const tail = Buffer.alloc(size - tailStart);
    if (tail.length > 0) readSync(fd, tail, 0, tail.length, tailStart);
    return tail.length === 0
      ? head.toString("base64")
      : `${head.toString("base64")}:${tail.toString("base64")}`;
  } finally {
    closeSync(fd);
  }
}

function readRange(file: string, from: number, to: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(to - from);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

function loadCached(paths: VaultPaths): FeedbackProjection | undefined {
  try {
    const data = JSON.parse(readFileSync(projectionFile(paths), "utf8")) as ProjectionState;
    if (
      data?.version !== STATE_VERSION ||
      typeof data.logs !== "object" ||
      data.logs === null ||
      Object.values(data.logs).some(
        (m) =>
          typeof m?.bytes !== "number" || typeof m.head !== "string" || typeof m.file !== "string",
      ) ||
      typeof data.pages !== "object" ||
      typeof data.queries !== "object"
    ) {
      return undefined;
    }
    return new FeedbackProjection(data);
  } catch {
    return undefined;
  }
}

function saveCached(paths: VaultPaths, projection: FeedbackProjection): void {
  const file = projectionFile(paths);
  try {
    writeFileAtomic(file, JSON.stringify(projection.snapshot()), vaultArea(paths));
  } catch {
    // A cache: the next reader rebuilds it from the log.
  }
}

/**
 * From when a page's events count (ms since 1970), undefined when all do: a
 * page re-created under an id an earlier page had does not inherit its feedback.
 */
export type NotBefore = (page: string) => number | undefined;

/**
 * Folds the log's lines from `text` (complete lines only), each line once
 * (`seen`: a line a merge brought twice is one event); returns the bytes
 * consumed.
 */
function foldLines(
  projection: FeedbackProjection,
  text: Buffer,
  seen: SeenLines,
  notBefore?: NotBefore,
): number {
  const end = text.lastIndexOf(0x0a);
  if (end < 0) return 0;
  for (const line of text.subarray(0, end).toString("utf8").split("\n")) {
    if (!line.includes('"recall_feedback"') || !firstSight(seen, line)) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue; // a torn or hand-edited line says nothing
    }
    if (!isFeedbackEvent(event)) continue;
    // A choice recorded as a page counts from the page (see vault-feedback.ts), never twice.
    if (event.observation || event.resolution) continue;
    const at = Date.parse(event.ts);
    if (!Number.isFinite(at)) continue;
    const since = notBefore?.(event.page);
    if (since !== undefined && at < since) continue;
    projection.add({
      page: event.page,
      queryHash: event.query_hash,
      action: event.action,
      rank: event.rank,
      at,
    });
  }
  return end + 1;
}

/** Log bytes read since the cache was last written before it is written again. */
const SAVE_EVERY_BYTES = 64 * 1024;

export interface LoadOptions {
  /** The projection in memory, extended when it still describes the log. */
  current?: FeedbackProjection;
  /** Events of a page older than this are left out (see `NotBefore`). */
  notBefore?: NotBefore;
  /** Replay the whole log, ignoring `current` and the cache (a filter changed). */
  rebuild?: boolean;
}

/** A log file as it is now: where, how large, which file. */
interface LogNow {
  path: string;
  name: string;
  size: number;
  file: string;
}

function logsNow(paths: VaultPaths): LogNow[] {
  const out: LogNow[] = [];
  for (const path of eventLogFiles(paths)) {
    try {
      const st = statSync(path);
      out.push({
        path,
        name: relative(paths.meta, path).split("\\").join("/"),
        size: st.size,
        file: `${st.ino}:${st.birthtimeMs}`,
      });
    } catch {
      // Gone since it was listed: as if it were not there.
    }
  }
  return out;
}

/**
 * The vault's projection, brought up to date with the log: `current` (or
 * the cached state) plus the lines appended to each file since, or a replay
 * of every file when there is neither, a file folded in was replaced, cut
 * or removed (a merge, a checkout), or `rebuild` says so. Never throws.
 */
export function loadProjection(
  paths: VaultPaths,
  { current, notBefore, rebuild = false }: LoadOptions = {},
): FeedbackProjection {
  const logs = logsNow(paths);
  const byName = new Map(logs.map((l) => [l.name, l]));
  const matches = (p: FeedbackProjection | undefined): p is FeedbackProjection => {
    const snap = p?.snapshot();
    if (snap === undefined) return false;
    // Every file folded in is still the same file, only grown.
    return Object.entries(snap.logs).every(([name, mark]) => {
      const now = byName.get(name);
      if (now === undefined || now.file !== mark.file || mark.bytes > now.size) return false;
      // The same file at the size folded in: nothing to read (a vault holds many clones' files).
      return mark.bytes === now.size || safeHead(now.path, mark.bytes) === mark.head;
    });
  };
  const cached = rebuild ? undefined : matches(current) ? current : loadCached(paths);
  const fresh = matches(cached);
  const projection = fresh ? cached : new FeedbackProjection();
  let read = 0;
  for (const log of logs) {
    const from = fresh ? (projection.snapshot().logs[log.name]?.bytes ?? 0) : 0;
    if (log.size <= from) continue;
    try {
      // Lines appended to a file that stayed the same file are new events, never repeats.
      const consumed = foldLines(
        projection,
        readRange(log.path, from, log.size),
        new Set(),
        notBefore,
      );
      read += consumed;
      projection.setLog(log.name, {
        bytes: from + consumed,
        head: safeHead(log.path, from + consumed),
        file: log.file,
      });
    } catch {
      // An unreadable file: the projection as it stands.
    }
  }
  if (read > 0 && (!fresh || projection !== current || read >= SAVE_EVERY_BYTES)) {
    saveCached(paths, projection);
  }
  return projection;
}

function safeHead(file: string, size: number): string {
  try {
    return readHead(file, size);
  } catch {
    return "";
  }
}
