/**
 * What git knows about the code pages name, asked once per HEAD: the
 * commits that touched each named path (with lines changed and whether the
 * commit deleted it), and the commits whose message names a page. Paths go
 * to git only after `--` (and were checked by `safeRepoPath`); pathspecs are
 * literal (see git-run.ts).
 */
import type { GitRunner } from "./git-run.ts";

/** A commit as shown to a reader. */
export interface CommitRef {
  sha: string;
  /** Committer time, seconds since the epoch. */
  time: number;
  subject: string;
}

/** One commit's change to a named path (for a folder: summed over the files under it). */
export interface PathTouch extends CommitRef {
  /** Lines added plus lines removed; -1 when a binary file changed. */
  churn: number;
  /** The commit deleted the file (for a folder: some file under it). */
  removed: boolean;
}

/** Commits read per git call: older history is not where a stale note comes from. */
const MAX_COMMITS = 2000;
/** Paths per `git log` call, well under any command-line limit. */
const PATHS_PER_CALL = 200;
/** Touches kept per path, newest first. */
const MAX_TOUCHES = 100;

const RS = "\u001e";
const US = "\u001f";

/** The named path a changed file counts for: itself, or the nearest named folder above it. */
function ownersOf(file: string, wanted: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let p = file;
  for (;;) {
    if (wanted.has(p)) out.push(p);
    const slash = p.lastIndexOf("/");
    if (slash <= 0) return out;
    p = p.slice(0, slash);
  }
}

/**
 * The commits reachable from `head` that touched each of `paths`, newest
 * first; a path no commit touched maps to an empty list. Undefined when git
 * failed.
 */
export function pathHistory(
  run: GitRunner,
  root: string,
  head: string,
  paths: readonly string[],
): Map<string, PathTouch[]> | undefined {
  const out = new Map<string, PathTouch[]>(paths.map((p) => [p, []]));
  for (let i = 0; i < paths.length; i += PATHS_PER_CALL) {
    const chunk = paths.slice(i, i + PATHS_PER_CALL);
    const wanted = new Set(chunk);
    const text = run(
      [
        "log",
        `--max-count=${MAX_COMMITS}`,
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--numstat",
        "--summary",
        `--format=${RS}%H${US}%ct${US}%s`,
        head,
        "--",
        ...chunk,
      ],
      { cwd: root },
    );
    if (text === undefined) return undefined;
    for (const record of text.split(RS)) {
      const [header = "", ...lines] = record.split("\n");
      const [sha, ct, subject = ""] = header.split(US);
      if (!sha || !ct) continue;
      const byPath = new Map<string, PathTouch>();
      const touch = (path: string) => {
        let t = byPath.get(path);
        if (!t) {
          t = { sha, time: Number(ct), subject, churn: 0, removed: false };
          byPath.set(path, t);
        }
        return t;
      };
      for (const line of lines) {
        const stat = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
        if (stat) {
          for (const owner of ownersOf(stat[3] ?? "", wanted)) {
            const t = touch(owner);
            if (stat[1] === "-" || t.churn < 0) t.churn = -1;
            else t.churn += Number(stat[1]) + Number(stat[2]);
          }
          continue;
        }
        const deleted = /^ delete mode \d+ (.+)$/.exec(line);
        if (deleted)
          for (const owner of ownersOf(deleted[1] ?? "", wanted)) touch(owner).removed = true;
      }
      for (const [path, t] of byPath) {
        const list = out.get(path);
        if (list && list.length < MAX_TOUCHES) list.push(t);
      }
    }
  }
  return out;
}

/** `[[concepts/x]]`, `[[concepts/x|label]]`, `[[concepts/x#part]]`. */
const WIKILINK = /\[\[([^\]|#\r\n]{1,200})(?:[|#][^\]\r\n]*)?\]\]/g;
/** A trailer-like line `wiki: concepts/x, concepts/y`. */
const WIKI_LINE = /^[ \t]*wiki:[ \t]*(.+)$/gim;
const PAGE_ID = /^[a-z0-9_][a-z0-9_.-]*(?:\/[a-z0-9_][a-z0-9_.-]*)*$/;

/** A page id as a commit message writes it (`wiki/concepts/x.md`, `concepts/x`), or undefined. */
export function mentionedId(text: string): string | undefined {
  let id = text.trim().toLowerCase();
  if (id.startsWith("wiki/")) id = id.slice(5);
  if (id.endsWith(".md")) id = id.slice(0, -3);
  if (!PAGE_ID.test(id) || id.split("/").some((s) => s === "." || s === "..")) return undefined;
  return id;
}

/** The page ids one commit message names. */
export function idsInMessage(message: string): string[] {
  const ids = new Set<string>();
  for (const m of message.matchAll(WIKILINK)) {
    const id = mentionedId(m[1] ?? "");
    if (id) ids.add(id);
  }
  for (const m of message.matchAll(WIKI_LINE)) {
    for (const part of (m[1] ?? "").split(/[,\s]+/)) {
      const id = mentionedId(part);
      if (id) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * For each page id some commit message names, the newest such commit
 * reachable from `head`. Undefined when git failed.
 */
export function commitLinks(
  run: GitRunner,
  root: string,
  head: string,
): Map<string, CommitRef> | undefined {
  const text = run(
    [
      "log",
      `--max-count=${MAX_COMMITS}`,
      "--no-color",
      `--format=${RS}%H${US}%ct${US}%s${US}%b`,
      head,
      "--",
    ],
    { cwd: root },
  );
  if (text === undefined) return undefined;
  const links = new Map<string, CommitRef>();
  for (const record of text.split(RS)) {
    const [sha, ct, subject = "", body = ""] = record.split(US);
    if (!sha || !ct) continue;
    for (const id of idsInMessage(`${subject}\n${body}`)) {
      // Newest first: the first commit seen for a page is its last linked one.
      if (!links.has(id)) links.set(id, { sha: sha.trim(), time: Number(ct), subject });
    }
  }
  return links;
}

/**
 * The commits reachable from `head`, newest first, as `[sha, time]` (at
 * most MAX_COMMITS), and whether that is the whole history. Undefined when
 * git failed.
 */
export function commitTimeline(
  run: GitRunner,
  root: string,
  head: string,
): { commits: Array<[string, number]>; complete: boolean } | undefined {
  const text = run(
    [
      "log",
      `--max-count=${MAX_COMMITS}`,
      "--no-color",
      "--no-show-signature",
      `--format=%H${US}%ct`,
      head,
      "--",
    ],
    { cwd: root },
  );
  if (text === undefined) return undefined;
  const commits: Array<[string, number]> = [];
  for (const line of text.split("\n")) {
    const [sha, ct] = line.split(US);
    const time = Number(ct);
    if (sha && /^[0-9a-f]{40,64}$/.test(sha) && Number.isFinite(time)) commits.push([sha, time]);
  }
  return { commits, complete: commits.length < MAX_COMMITS };
}
