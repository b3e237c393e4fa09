/**
 * A page git could not merge: two teammates changed the same lines, and git
 * left both versions in the file between conflict markers (`<<<<<<<`,
 * optionally `|||||||` with the common version, `=======`, `>>>>>>>`).
 * Such a page is never rewritten here (a person resolves it) and never
 * shown half-merged: its metadata comes from one side, and its text, where
 * recall and the index read it, shows both sides labelled, without the
 * markers. Markers inside fenced code are content (a runbook about git), not
 * a conflict.
 */

/** The diagnostic code of a page git left unmerged (lint's `merge` check, status). */
export const MERGE_CONFLICT_CODE = "page_merge_conflict";

const ONE_SIDE = "**Unresolved merge conflict: one version says**";
const END = "**(end of the conflict)**";

/** One conflicted region of a text, by line index (0-based, `end` past the closing marker). */
interface Hunk {
  start: number;
  /** The `|||||||` line, when git wrote the common version too (diff3). */
  base?: number;
  middle: number;
  end: number;
}

const OPEN = /^<{7}(?:[ \t].*)?$/;
const BASE = /^\|{7}(?:[ \t].*)?$/;
const MIDDLE = /^={7}[ \t]*$/;
const CLOSE = /^>{7}(?:[ \t].*)?$/;
const FENCE = /^[ ]{0,3}(`{3,}|~{3,})/;

/** Cheap check before a scan: no marker line, no conflict. */
function mayHold(text: string): boolean {
  return text.includes("<<<<<<<") && text.includes(">>>>>>>");
}

function hunksOf(lines: readonly string[]): Hunk[] {
  const hunks: Hunk[] = [];
  let fence: string | undefined;
  let open: Partial<Hunk> | undefined;
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] as string).replace(/\r$/, "");
    if (open === undefined) {
      const f = FENCE.exec(line);
      if (f?.[1]) {
        const mark = f[1];
        if (fence === undefined) fence = mark;
        else if (mark[0] === fence[0] && mark.length >= fence.length) fence = undefined;
        continue;
      }
      if (fence === undefined && OPEN.test(line)) open = { start: i };
      continue;
    }
    if (open.middle === undefined && open.base === undefined && BASE.test(line)) open.base = i;
    else if (open.middle === undefined && MIDDLE.test(line)) open.middle = i;
    else if (open.middle !== undefined && CLOSE.test(line)) {
      hunks.push({ ...(open as Hunk), end: i + 1 });
      open = undefined;
    } else if (OPEN.test(line)) open = { start: i };
  }
  return hunks;
}

/** How many conflicted regions `text` holds outside fenced code (0: none). */
export function countMergeConflicts(text: string): number {
  return mayHold(text) ? hunksOf(text.split("\n")).length : 0;
}

/**
 * `text` with each conflicted region replaced by what `render` makes of its
 * two sides (the lines before `=======`, and after it); text without a
 * conflict comes back as it is.
 */
function replaceHunks(
  text: string,
  render: (ours: string[], theirs: string[]) => string[],
): string {
  if (!mayHold(text)) return text;
  const lines = text.split("\n");
  const hunks = hunksOf(lines);
  if (hunks.length === 0) return text;
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    out.push(...lines.slice(at, h.start));
    out.push(
      ...render(lines.slice(h.start + 1, h.base ?? h.middle), lines.slice(h.middle + 1, h.end - 1)),
    );
    at = h.end;
  }
  out.push(...lines.slice(at));
  return out.join("\n");
}

/** `text` with each conflicted region replaced by one side: `ours` (before `=======`) or theirs. */
export function conflictSide(text: string, side: "ours" | "theirs"): string {
  return replaceHunks(text, (ours, theirs) => (side === "ours" ? ours : theirs));
}

/**
 * `text` with each conflicted region shown as both sides, labelled in plain
 * words, no marker left: what a reader (a model, a person) sees of a page
 * nobody has resolved yet. Text without a conflict comes back as it is.
 */
export function bothSides(text: string): string {
  return replaceHunks(text, (ours, theirs) => [
    "",
    ONE_SIDE,
    "",
    ...ours,
    "",
    "**The other version says**",
    "",
    ...theirs,
    "",
    END,
    "",
  ]);
}

/**
 * What recall quotes of a page shown with both sides (`bothSides`): the
 * first conflicted region whole, both versions, so an excerpt never shows
 * one side alone; at most `maxChars`, cut with an ellipsis. Undefined when
 * `body` shows no conflict.
 */
export function conflictExcerpt(body: string, maxChars: number): string | undefined {
  const start = body.indexOf(ONE_SIDE);
  if (start === -1) return undefined;
  const end = body.indexOf(END, start);
  const region = body.slice(start, end === -1 ? undefined : end + END.length).trim();
  return region.length <= maxChars ? region : `${region.slice(0, maxChars - 1)}…`;
}
