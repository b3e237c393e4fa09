/**
 * The date of each page, for time-window recall: when what it records
 * happened or was decided — its own `date` (`published`, `captured`, the
 * older system's `ingested`), else `created` — and only when it says
 * neither, its last edit (`updated`), else the last event of the log that
 * names it, else the last commit that touched its file. A decision created
 * on 01-20 and edited on 03-10 was decided "before March". Git is asked once per commit of the repository (the answer is
 * kept in `meta/cache/temporal/git-dates.json` under that commit), never once
 * per recall.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { runGit } from "../code-refs/git-run.ts";
import { vaultArea, writeFileAtomic } from "../vault/fs-safe.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { isInternalEvent } from "../views/event-entries.ts";
import { readTimedEvents } from "./event-log.ts";
import { dayNumber } from "./time-window.ts";

/** A page's date (`YYYY-MM-DD`) and where it came from. */
export interface PageDate {
  date: string;
  source: "frontmatter" | "events" | "git";
  /** For front matter: the field read (`updated`, `created`, `date`, `published`, `captured`). */
  field?: string;
}

/**
 * Which date a caller wants: `event` (time questions: when it happened or
 * was decided) or `changed` (freshness: when the page was last touched).
 */
export type DateBasis = "event" | "changed";

/** What a page's front matter says, in order of preference for `basis`. */
function frontmatterDate(page: PageMeta, basis: DateBasis): PageDate | undefined {
  // An edit fixes a typo or adds a link; it does not move when the thing
  // happened. Freshness asks the opposite question.
  const order: Array<[string, string | undefined]> =
    basis === "event"
      ? [
          ["date", page.date],
          ["created", page.created],
          ["updated", page.updated],
        ]
      : [
          ["updated", page.updated],
          ["date", page.date],
          ["created", page.created],
        ];
  for (const [field, value] of order) {
    const day = value === undefined ? undefined : isoOf(value);
    if (day) return { date: day, source: "frontmatter", field };
  }
  return undefined;
}

/** `YYYY-MM-DD` of an ISO date or timestamp, undefined when it is no date. */
function isoOf(value: string): string | undefined {
  const text = value.trim();
  if (dayNumber(text) !== undefined) return text.slice(0, 10);
  const ms = Date.parse(text);
  if (Number.isNaN(ms) || !/^\d{4}-/.test(text)) return undefined;
  const iso = new Date(ms).toISOString().slice(0, 10);
  return dayNumber(iso) === undefined ? undefined : iso;
}

/**
 * The last day the event log names each page on. Only what was done to or
 * recorded about the page dates it: a recall showing it, or a judgment of
 * that recall (internal events, kept for ranking), says nothing of when
 * its content happened, and would move its date every time it is shown.
 */
function eventDates(paths: VaultPaths): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readTimedEvents(paths)) {
    if (!e.page || isInternalEvent({ kind: e.kind, visibility: e.visibility })) continue;
    const day = isoOf(e.ts);
    if (day && (out.get(e.page) ?? "") < day) out.set(e.page, day);
  }
  return out;
}

/** The repository's `.git` directory holding `dir`, walking up; undefined outside one. */
function gitDirOf(dir: string): { top: string; gitDir: string } | undefined {
  let at = resolve(dir);
  for (;;) {
    const dot = join(at, ".git");
    try {
      const stat = statSync(dot);
      if (stat.isDirectory()) return { top: at, gitDir: dot };
      // A worktree or submodule: `.git` is a file naming the real directory.
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dot, "utf8"));
      if (m?.[1]) return { top: at, gitDir: resolve(at, m[1].trim()) };
    } catch {
      // Not here: go up.
    }
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

/** The commit HEAD points at, read from the files (no git process), or undefined. */
function headCommit(gitDir: string): string | undefined {
  try {
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
    if (!ref) return /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
    // A worktree keeps its HEAD apart from the shared refs.
    const common = existsSync(join(gitDir, "commondir"))
      ? resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim())
      : gitDir;
    for (const base of [gitDir, common]) {
      const file = join(base, ref);
      if (existsSync(file)) return readFileSync(file, "utf8").trim();
    }
    const packed = readFileSync(join(common, "packed-refs"), "utf8");
    return new RegExp(
      `^([0-9a-f]{40,64}) ${ref.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
      "m",
    ).exec(packed)?.[1];
  } catch {
    return undefined;
  }
}

interface GitDates {
  head: string;
  /** Vault-relative path (`wiki/…`) → day of the last commit touching it. */
  dates: Record<string, string>;
}

const gitMemo = new Map<string, GitDates>();

/** The git-dates cache file of a vault. */
export function gitDatesFile(paths: VaultPaths): string {
  return join(paths.meta, "cache", "temporal", "git-dates.json");
}

/**
 * Each wiki file's last commit day, from one `git log` per HEAD commit;
 * empty outside a repository or when git is missing or fails.
 */
function gitDates(paths: VaultPaths): Record<string, string> {
  const repo = gitDirOf(paths.root);
  if (!repo) return {};
  const head = headCommit(repo.gitDir);
  if (!head) return {};
  const memo = gitMemo.get(paths.dir);
  if (memo?.head === head) return memo.dates;
  const file = gitDatesFile(paths);
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as Partial<GitDates>;
    if (saved.head === head && saved.dates && typeof saved.dates === "object") {
      const kept = { head, dates: saved.dates };
      gitMemo.set(paths.dir, kept);
      return kept.dates;
    }
  } catch {
    // No cache yet, or a corrupt one: ask git.
  }
  const dates: Record<string, string> = {};
  try {
    const wikiRel = relative(repo.top, paths.wiki).split(sep).join("/") || ".";
    // The project's one git runner: no GIT_* variable, no system or global
    // configuration, no hooks or pager; paths printed as they are.
    const out = runGit(["log", "--format=%x00%cI", "--name-only", "--no-renames", "--", wikiRel], {
      cwd: repo.top,
    });
    if (out === undefined) return {};
    let day: string | undefined;
    const prefix = relative(repo.top, paths.dir).split(sep).join("/");
    for (const line of out.split("\n")) {
      if (line.startsWith("\0")) {
        day = isoOf(line.slice(1));
        continue;
      }
      if (!day || line.trim() === "") continue;
      // Newest commit first: the first time a path is seen is its last change.
      const rel =
        prefix === ""
          ? line
          : line.startsWith(`${prefix}/`)
            ? line.slice(prefix.length + 1)
            : undefined;
      if (rel !== undefined && dates[rel] === undefined) dates[rel] = day;
    }
  } catch {
    return {};
  }
  gitMemo.set(paths.dir, { head, dates });
  try {
    writeFileAtomic(file, `${JSON.stringify({ head, dates })}\n`, vaultArea(paths));
  } catch {
    // A vault this user may not write still answers; the next process asks git again.
  }
  return dates;
}

/** Page dates looked up one page at a time. */
export interface PageDateLookup {
  get(id: string): PageDate | undefined;
}

/**
 * Every page's date and its origin, resolved a page at a time when asked
 * and kept: a recall with a time window needs the dates of its candidates,
 * not of every page (a walk of 100k pages for "… since March"). The event
 * log and git are read at most once, for the first page their date is
 * asked of. `git: false` leaves the repository out (tests, and vaults whose
 * files' commits say nothing about their content).
 */
export function pageDateLookup(
  paths: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
  options: { git?: boolean; basis?: DateBasis } = {},
): PageDateLookup {
  const known = new Map<string, PageDate | null>();
  let events: Map<string, string> | undefined;
  let git: Record<string, string> | undefined;
  const resolve = (id: string): PageDate | undefined => {
    const page = pages.get(id);
    if (!page) return undefined;
    const own = frontmatterDate(page, options.basis ?? "event");
    if (own) return own;
    events ??= eventDates(paths);
    const logged = events.get(id);
    if (logged) return { date: logged, source: "events" };
    if (options.git === false) return undefined;
    git ??= gitDates(paths);
    const committed = git[page.path];
    return committed ? { date: committed, source: "git" } : undefined;
  };
  return {
    get(id) {
      let date = known.get(id);
      if (date === undefined) {
        date = resolve(id) ?? null;
        known.set(id, date);
      }
      return date ?? undefined;
    },
  };
}

/** Every page's date and its origin (see `pageDateLookup`), all at once. */
export function pageDates(
  paths: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
  options: { git?: boolean; basis?: DateBasis } = {},
): Map<string, PageDate> {
  const lookup = pageDateLookup(paths, pages, options);
  const out = new Map<string, PageDate>();
  for (const id of pages.keys()) {
    const date = lookup.get(id);
    if (date) out.set(id, date);
  }
  return out;
}

/**
 * The dates of only the pages `ids` of `pages`, by the same chain: a few
 * recall hits (priming's freshness), not the whole vault.
 */
export function datesOfPages(
  paths: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
  ids: Iterable<string>,
  basis: DateBasis = "event",
): Map<string, PageDate> {
  const subset = new Map<string, PageMeta>();
  for (const id of ids) {
    const page = pages.get(id);
    if (page) subset.set(id, page);
  }
  return pageDates(paths, subset, { basis });
}

/**
 * A page's date as every host shows it: the day a time question judges it
 * by (`date`), and its last edit (`edited`, front matter `updated`) when
 * that is another day. "Decided 01-20, edited 03-10" answers "before March"
 * and reads so; showing the edit alone would put a March date under it.
 */
export interface ShownDate {
  date: string;
  edited?: string;
}

/**
 * The shown dates of the pages `ids` of `pages`: each page's date by the
 * chain a time window uses (`event` basis), taken from `known` when the
 * recall already dated the vault, else resolved for these pages only (front
 * matter first, so a dated page costs no read); a page with no date at all
 * is left out.
 */
export function shownDates(
  paths: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
  ids: Iterable<string>,
  known?: PageDateLookup,
): Map<string, ShownDate> {
  const wanted = [...new Set(ids)].filter((id) => pages.has(id));
  // A dated vault holds every page's date already: one missing there has none.
  const dates = known ?? datesOfPages(paths, pages, wanted);
  const out = new Map<string, ShownDate>();
  for (const id of wanted) {
    const date = dates.get(id)?.date;
    if (date === undefined) continue;
    const updated = pages.get(id)?.updated;
    const edited = updated === undefined ? undefined : isoOf(updated);
    out.set(id, edited !== undefined && edited !== date ? { date, edited } : { date });
  }
  return out;
}
