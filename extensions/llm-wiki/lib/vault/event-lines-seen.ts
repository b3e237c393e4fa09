/**
 * A line of `meta/events.jsonl` seen twice is one event. The log merges as
 * a union of lines (docs/team.md), and in a criss-cross of merges git can
 * bring the same line back from both sides; readers that count or list
 * events take each line once. Only exact repeats are dropped: two events
 * differ in their time (to the millisecond) or their content.
 */
import { fnv1a } from "./stable-hash.ts";

/** The lines a reader has taken, by a key that only the same line shares in practice. */
export type SeenLines = Set<string>;

/**
 * True the first time `line` is offered to `seen` (and records it), false
 * for a repeat. The key is the line's length, its FNV-1a hash and its first
 * 48 characters (the time and kind of an event): a different event sharing
 * all three is not a practical case, and memory stays near a key per event.
 */
export function firstSight(seen: SeenLines, line: string): boolean {
  const key = `${line.length}:${fnv1a(line)}:${line.slice(0, 48)}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}
