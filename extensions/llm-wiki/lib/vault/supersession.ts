/**
 * When a declared `supersedes` relation may retire a page, and when lint
 * should ask a person to look at one. A page's front matter is all it takes
 * to declare that it supersedes another, so one written carelessly or by an
 * attacker could mark a reviewed rule historical. Two rules:
 *
 * - a draft never retires a stable page: until the draft is accepted the
 *   stable claim is the current one (an ADR that is only proposed does not
 *   yet replace the accepted one), so recall does not honour the relation.
 *   The draft is memory all the same: recall shows it beside the stable
 *   page as a proposed replacement (assembly/bundles.ts), and a draft the
 *   query alone found answers as its own card;
 * - a draft or an unverified page (OKF trust: generated, never or no longer
 *   verified) that supersedes a stable or human-reviewed page is reported
 *   by lint (`supersedes_unreviewed`) until a user's resolution of the pair
 *   records what a person decided. Trust alone stays a label, never a
 *   filter, as everywhere else in recall.
 *
 * A user's resolution is not a declared relation and is judged by its own
 * rule (resolutions.ts).
 */
import type { PageMeta } from "./page.ts";
import { trustState } from "./provenance.ts";

type Judged = Pick<PageMeta, "status" | "provenance"> | undefined;

/** True when recall must not let `from`'s declared supersession retire `to`. */
export function supersessionWithheld(from: Judged, to: Judged): boolean {
  return from?.status === "draft" && to?.status === "stable";
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
 * when an unreviewed page would retire an established one, else undefined.
 */
export function unreviewedSupersession(
  from: Judged,
  to: Judged,
): { from: string; to: string; withheld: boolean } | undefined {
  const weak = unreviewed(from);
  const strong = established(to);
  if (weak === undefined || strong === undefined) return undefined;
  return { from: weak, to: strong, withheld: supersessionWithheld(from, to) };
}
