/**
 * `recent`: what changed in the vault in a window of days, from the event
 * log (pages created, sources captured and ingested, observations,
 * resolutions…), newest first and capped. Internal events (recall feedback)
 * are left out, as the generated `meta/log.md` leaves them out. Every string
 * is shown neutralised: the log holds titles and kinds that came from agents
 * and users.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { neutraliseLine } from "../safety/text.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { isInternalEvent } from "../views/event-entries.ts";
import { readEventLog } from "./event-log.ts";
import { dayNumber, explicitDay, isoDay } from "./time-window.ts";

export const RECENT_DEFAULT_DAYS = 7;
export const RECENT_DEFAULT_LIMIT = 20;
export const RECENT_MAX_LIMIT = 100;
/** Longest kind, id or title shown; a longer one is cut with an ellipsis. */
const MAX_FIELD_CHARS = 200;

export interface RecentInput {
  /** First day shown (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`); default: a week before `now`. */
  since?: string;
  /** Last day shown; default: open. */
  until?: string;
  /** Most entries (1–100, default 20). */
  limit?: number;
  now?: Date;
}

/** One logged change. */
export interface RecentEntry {
  ts: string;
  kind: string;
  /** The wiki page it names. */
  page?: string;
  /** Another id it carries (a source packet). */
  id?: string;
  title?: string;
  /** Who logged it: the teammate and the agent, when recorded. */
  by?: string;
  agent?: string;
}

export interface RecentResult {
  ok: boolean;
  since: string;
  until?: string;
  /** Newest first, at most `limit`. */
  entries: RecentEntry[];
  /** Events in the window, shown or cut by `limit` (internal events never count). */
  total: number;
  truncated: boolean;
  diagnostics: Diagnostic[];
}

const shown = (text: string): string => {
  const safe = neutraliseLine(text);
  return safe.length > MAX_FIELD_CHARS ? `${safe.slice(0, MAX_FIELD_CHARS - 1)}…` : safe;
};

/**
 * Lines of the log that are not events (a write cut short by a full disk, an
 * edit by hand): said, so an event that seems missing is explained. The log
 * is authoritative and never rewritten, so there is nothing to repair.
 */
function malformedLines(count: number): Diagnostic {
  return diagnostic(
    "event_log_malformed",
    "warning",
    `${count} line(s) of meta/events.jsonl are not whole events (a write cut short, or an edit by hand) and were skipped; the log is append-only and left as it is`,
    { path: "meta/events.jsonl" },
  );
}

/** The changes logged in the window, newest first. */
export function recentChanges(paths: VaultPaths, input: RecentInput = {}): RecentResult {
  const now = input.now ?? new Date();
  const fail = (d: Diagnostic, since = ""): RecentResult => ({
    ok: false,
    since,
    entries: [],
    total: 0,
    truncated: false,
    diagnostics: [d],
  });
  const limit = input.limit ?? RECENT_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > RECENT_MAX_LIMIT) {
    return fail(
      diagnostic(
        "invalid_input",
        "error",
        `limit must be a whole number from 1 to ${RECENT_MAX_LIMIT}`,
      ),
    );
  }
  let since = isoDay(Math.floor(now.getTime() / 86_400_000) - RECENT_DEFAULT_DAYS + 1);
  let until: string | undefined;
  if (input.since !== undefined) {
    const day = explicitDay(input.since, "since");
    if (!day.ok) return fail(day.diagnostic);
    since = day.day;
  }
  if (input.until !== undefined) {
    const day = explicitDay(input.until, "until");
    if (!day.ok) return fail(day.diagnostic, since);
    until = day.day;
  }
  if (until !== undefined && since > until) {
    return fail(
      diagnostic("time_window_empty", "error", `since ${since} is after until ${until}`),
      since,
    );
  }
  const inside: RecentEntry[] = [];
  const log = readEventLog(paths);
  for (const e of log.events) {
    // What a session was shown, opened or judged is for ranking, not for reading.
    if (isInternalEvent({ kind: e.kind, visibility: e.visibility })) continue;
    const day = new Date(Date.parse(e.ts)).toISOString().slice(0, 10);
    if (dayNumber(day) === undefined || day < since || (until !== undefined && day > until)) {
      continue;
    }
    const entry: RecentEntry = { ts: shown(e.ts), kind: shown(e.kind) };
    if (e.page) entry.page = shown(e.page);
    if (e.id) entry.id = shown(e.id);
    if (e.title) entry.title = shown(e.title);
    if (e.by) entry.by = shown(e.by);
    if (e.agent) entry.agent = shown(e.agent);
    inside.push(entry);
  }
  // Newest first; events logged in the same millisecond keep the log's order reversed.
  const ordered = inside
    .map((entry, i) => ({ entry, i, t: Date.parse(entry.ts) }))
    .sort((a, b) => b.t - a.t || b.i - a.i)
    .map((x) => x.entry);
  const result: RecentResult = {
    ok: true,
    since,
    entries: ordered.slice(0, limit),
    total: ordered.length,
    truncated: ordered.length > limit,
    diagnostics: log.malformed > 0 ? [malformedLines(log.malformed)] : [],
  };
  if (until !== undefined) result.until = until;
  return result;
}

/** `  by Name (agent)`, `  by Name`, `  (agent)`, or "" when the event does not say. */
export function whoPhrase(e: { by?: string; agent?: string }): string {
  if (e.by && e.agent) return `  by ${e.by} (${e.agent})`;
  if (e.by) return `  by ${e.by}`;
  return e.agent ? `  (${e.agent})` : "";
}

/** The listing as text, one change a line. */
export function renderRecent(result: RecentResult): string {
  if (!result.ok) return "";
  const window = `since ${result.since}${result.until ? ` until ${result.until}` : ""}`;
  if (result.entries.length === 0) return `no changes logged ${window}.`;
  const lines = result.entries.map(
    (e) =>
      `${e.ts}  ${e.kind}${e.page ? `  ${e.page}` : ""}${e.id ? `  ${e.id}` : ""}${e.title ? `  "${e.title}"` : ""}${whoPhrase(e)}`,
  );
  const more = result.truncated
    ? `\n(${result.total - result.entries.length} older change(s) not shown; narrow the window or raise the limit)`
    : "";
  return `${result.total} change(s) ${window}, newest first:\n${lines.join("\n")}${more}`;
}
