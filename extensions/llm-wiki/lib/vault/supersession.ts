/**
 * When a declared `supersedes` relation may retire a page, and when lint
 * should ask a person to look at one. A page's front matter is all it takes
 * to declare that it supersedes another, so one written carelessly or by an
 * attacker could mark a reviewed rule historical. The rule, the same for
 * pages written by hand, by the tools and by an import:
 *
 * - a page retires another only when it is at least as established
 *   (`establishment`): verified by a person above `stable`, `stable` above
 *   a page with no status (or an evidence status), and that above a
 *   `draft` or `deprecated` page. Two pages that supersede each other (or
 *   any cycle of supersession) retire none of the pages on it. Anything
 *   else is a competing claim: recall keeps the page it names current and
 *   shows the claimant beside it as a proposed replacement
 *   (assembly/bundles.ts), and a claimant the query alone found answers as
 *   its own card;
 * - each withheld supersession, and each by which an unreviewed page
 *   (draft, OKF trust unverified or outdated) would retire an established
 *   one, is reported by lint (`supersedes_unreviewed`) until a user's
 *   resolution of the pair records what a person decided. Trust alone stays
 *   a label, never a filter, as everywhere else in recall.
 *
 * A user's resolution is not a declared relation and is judged by its own
 * rule (resolutions.ts).
 */
import type { PageMeta } from "./page.ts";
import { trustState } from "./provenance.ts";

type Judged = Pick<PageMeta, "status" | "provenance"> | undefined;

/**
 * How established a page is, for supersession: a person's verification
 * (OKF trust `human-reviewed`) counts two steps, `stable` two, any other
 * status or none one, `draft` and `deprecated` nothing.
 */
export function establishment(page: Judged): number {
  const status = page?.status;
  const base = status === "stable" ? 2 : status === "draft" || status === "deprecated" ? 0 : 1;
  return base + (trustState(page?.provenance) === "human-reviewed" ? 2 : 0);
}

/** True when recall must not let `from`'s declared supersession retire `to`: `from` is less established. */
export function supersessionWithheld(from: Judged, to: Judged): boolean {
  return establishment(from) < establishment(to);
}

/** Most supersession steps followed when looking for a cycle. */
const MAX_CYCLE_STEPS = 16;

/**
 * True when `to` (directly or through other pages) declares it supersedes
 * `from`: a cycle, in which no page retires another. `supersedes(id)` lists
 * the pages `id` declares it supersedes.
 */
export function supersessionCycle(
  from: string,
  to: string,
  supersedes: (id: string) => readonly string[],
): boolean {
  const seen = new Set<string>([to]);
  let frontier = [to];
  for (let step = 0; step < MAX_CYCLE_STEPS && frontier.length > 0; step += 1) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const target of supersedes(id)) {
        if (target === from) return true;
        if (seen.has(target)) continue;
        seen.add(target);
        next.push(target);
      }
    }
    frontier = next;
  }
  return false;
}

/** Why `page` counts as unreviewed ("draft", "unverified"), or undefined. */
function unreviewed(page: Judged): string | undefined {
  if (page?.status === "draft") return "draft";
  const trust = trustState(page?.provenance);
  if (trust === "unverified" || trust === "verification-outdated") return trust;
  return undefined;
}

/** Why `page` counts as established ("stable", "human-reviewed"), or undefined. */
function established(page: Judged): string | undefined {
  if (page?.status === "stable") return "stable";
  return trustState(page?.provenance) === "human-reviewed" ? "human-reviewed" : undefined;
}

/**
 * What lint says of `from` declaring it supersedes `to`: the two states
 * when the supersession is withheld (a less established page, or a cycle)
 * or an unreviewed page would retire an established one, else undefined.
 */
export function unreviewedSupersession(
  from: Judged,
  to: Judged,
  cycle = false,
): { from: string; to: string; withheld: boolean } | undefined {
  const withheld = cycle || supersessionWithheld(from, to);
  const weak = unreviewed(from);
  const strong = established(to);
  if (withheld) {
    return {
      from: cycle ? "mutually superseding" : (weak ?? standing(from)),
      to: strong ?? standing(to),
      withheld,
    };
  }
  if (weak === undefined || strong === undefined) return undefined;
  return { from: weak, to: strong, withheld };
}

/** A page's standing in a sentence: its status, or "unmarked" without one. */
function standing(page: Judged): string {
  const trust = trustState(page?.provenance);
  if (trust === "human-reviewed")
    return page?.status ? `${page.status}, human-reviewed` : "human-reviewed";
  return page?.status ?? "unmarked";
}
