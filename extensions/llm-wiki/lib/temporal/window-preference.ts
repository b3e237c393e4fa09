/**
 * How much a time window moves a page: a bounded factor on the final score,
 * beside the policy's own multiplier (`boundedMultiplier`), shown by
 * `--explain`. A page inside the window is preferred, never the only answer:
 * one outside it that the words match much better still ranks.
 */
import type { PageDate } from "./page-dates.ts";
import { inWindow, type TimeWindow } from "./time-window.ts";

/** Inside the window. */
export const WINDOW_INSIDE = 1.2;
/** Dated outside it. */
export const WINDOW_OUTSIDE = 0.85;
/** No date known: between the two, so an undated vault ranks as without a window. */
export const WINDOW_UNDATED = 0.95;

/** Why a page's score moved for the window, for `--explain` and `why`. */
export interface TimeWhy {
  /** The page's date and where it came from (absent: none known). */
  date?: string;
  dateSource?: PageDate["source"];
  inside: boolean | "undated";
  multiplier: number;
}

/** The factor for a page of date `dated` under `window`. */
export function windowPreference(dated: PageDate | undefined, window: TimeWindow): TimeWhy {
  if (!dated) return { inside: "undated", multiplier: WINDOW_UNDATED };
  const inside = inWindow(dated.date, window);
  return {
    date: dated.date,
    dateSource: dated.source,
    inside,
    multiplier: inside ? WINDOW_INSIDE : WINDOW_OUTSIDE,
  };
}
