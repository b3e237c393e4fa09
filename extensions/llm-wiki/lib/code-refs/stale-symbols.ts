/**
 * When a symbol a page names makes it stale (pure, given what `git grep`
 * found). A symbol is looked for as a word (`git grep -F -w`): its full
 * text, and for a qualified name (`SyncEngine.push`, `Registry::open`) also
 * each segment, since code rarely spells `Class.method` out; it counts as
 * present at a commit when the full text is found, or every segment is.
 *
 * A symbol makes the page stale when it is not present at HEAD but was at
 * the commit at the page's anchor (the newest commit of HEAD's history at or
 * before the page's `verified`/`updated` date, see stale-refs.ts). A symbol
 * absent at that commit too was never this repository's code as far as git
 * can tell (another project's name, a plan, a typo) and is ignored; so is a
 * symbol of a page without a date. Only committed code counts: `git grep`
 * reads trees, not the work tree.
 */

/** A symbol that was there at the page's date and is gone at HEAD. */
export interface StaleSymbol {
  kind: "symbol";
  symbol: string;
  /** The commit at the page's date, where it was last seen. */
  lastSeen: { sha: string; time: number };
}

/** Whether each search term was found at one commit (a term absent from the map was not looked for). */
export type TermPresence = Readonly<Record<string, boolean>>;

/** Commits from HEAD, newest first: full sha and committer time in seconds. */
export type Timeline = ReadonlyArray<readonly [string, number]>;

/** The words `git grep` looks for to tell whether `symbol` is present: itself, then its segments. */
export function symbolTerms(symbol: string): string[] {
  const segments = symbol.split(/\.|::|#/).filter((s) => s !== "");
  return segments.length > 1 ? [symbol, ...segments] : [symbol];
}

/** Whether every term of `symbol` was looked for in `presence`. */
export function symbolChecked(presence: TermPresence, symbol: string): boolean {
  // Own keys only: a term such as `constructor` must not match what every object inherits.
  return symbolTerms(symbol).every((t) => Object.hasOwn(presence, t));
}

/** Whether `symbol` is present per `presence` (see the module comment). */
export function symbolPresent(presence: TermPresence, symbol: string): boolean {
  if (presence[symbol] === true) return true;
  const [, ...segments] = symbolTerms(symbol);
  return segments.length > 0 && segments.every((s) => presence[s] === true);
}

/**
 * The commit of `timeline` that stands for the code at `anchor` (ms): the
 * newest at or before it. When the page is older than every commit read,
 * none when the timeline is the whole history (the page predates the code),
 * else the oldest read (`complete` false: history was cut at a maximum).
 */
export function commitAt(
  timeline: Timeline,
  anchor: number,
  complete: boolean,
): { sha: string; time: number } | undefined {
  let best: readonly [string, number] | undefined;
  let oldest: readonly [string, number] | undefined;
  for (const c of timeline) {
    if (c[1] * 1000 <= anchor && (!best || c[1] > best[1])) best = c;
    if (!oldest || c[1] < oldest[1]) oldest = c;
  }
  const pick = best ?? (complete ? undefined : oldest);
  return pick ? { sha: pick[0], time: pick[1] } : undefined;
}
