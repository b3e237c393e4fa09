/**
 * When a page goes stale: `stale_after` is either a date (`2026-06-30`, or a
 * full ISO timestamp) or a duration counted from `updated`, else `created`
 * (`90d`, `12w`, `6m` months, `1y`). A page is stale from that instant on; a
 * date without a time means 00:00 UTC of that day. Recall labels stale pages
 * and lint reports them, so the rule lives with the page's metadata.
 */
import type { PageMeta } from "./page.ts";

const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DURATION = /^(\d+)\s*(d|days?|w|weeks?|m|mo|months?|y|years?)$/i;
const DAY_MS = 86_400_000;

/** Parses a date or timestamp; undefined unless it names a real calendar day. */
function parseDate(text: string): Date | undefined {
  const m = DATE.exec(text.trim());
  if (!m) return undefined;
  const date = new Date(text.trim());
  if (Number.isNaN(date.getTime())) return undefined;
  // `new Date("2026-02-30")` rolls over to March: refuse days that do not exist.
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (day.toISOString().slice(0, 10) !== `${m[1]}-${m[2]}-${m[3]}`) return undefined;
  return date;
}

/** `base` moved forward by a duration; undefined when `text` is not one. */
function addDuration(base: Date, text: string): Date | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "").toLowerCase();
  const due = new Date(base.getTime());
  if (unit.startsWith("d")) return new Date(base.getTime() + n * DAY_MS);
  if (unit.startsWith("w")) return new Date(base.getTime() + 7 * n * DAY_MS);
  if (unit.startsWith("m")) due.setUTCMonth(due.getUTCMonth() + n);
  else due.setUTCFullYear(due.getUTCFullYear() + n);
  return due;
}

export type Due = { due: Date } | { problem: string };

/** When the page goes stale, why that cannot be told, or undefined without `stale_after` (recall labels stale pages too). */
export function staleDue(
  page: Pick<PageMeta, "staleAfter" | "updated" | "created">,
): Due | undefined {
  const value = page.staleAfter;
  if (value === undefined) return undefined;
  const date = parseDate(value);
  if (date) return { due: date };
  if (!DURATION.test(value.trim())) {
    return { problem: `stale_after "${value}" is neither a date nor a duration like 90d` };
  }
  const anchorText = page.updated ?? page.created;
  const anchor = anchorText === undefined ? undefined : parseDate(anchorText);
  if (!anchor) {
    return {
      problem: `stale_after "${value}" is a duration but the page has no valid updated or created date`,
    };
  }
  const due = addDuration(anchor, value);
  return due ? { due } : { problem: `stale_after "${value}" is out of range` };
}
