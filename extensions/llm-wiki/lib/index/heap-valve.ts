/**
 * A bound on the garbage a long build piles up in V8's old space. A full
 * rebuild reads, parses and mirrors every page a slice at a time; what a
 * slice leaves behind is garbage at once, but the part that lived through
 * two young collections waits in the old space for a full collection, and
 * V8 schedules those by its own heuristics. At 100k pages the same build
 * peaked anywhere between 760 and 980 MB depending on where they fell, with
 * about 300 MB actually live. The valve asks for a full collection when the
 * heap has grown a fixed amount past what the last one left, so the peak
 * follows what is live, not the schedule.
 *
 * V8 only offers the collection to code when it is exposed; it is exposed
 * here in a context of its own (as test runners' leak detectors do), never
 * on the global object. Small builds never grow that far and never ask.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Checked between the slices of a build. */
export interface HeapValve {
  /** Collects when the heap grew `growthMb` past the last low; true when it did. */
  check(): boolean;
}

let collect: (() => void) | undefined;

/** V8's full collection, exposed once per process in a context of its own. */
function fullCollection(): () => void {
  if (collect === undefined) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  return collect;
}

/** A valve for one build: allows the heap `growthMb` above its lowest point before collecting. */
export function heapValve(growthMb = 128): HeapValve {
  const growth = growthMb * 1024 * 1024;
  let low = Number.POSITIVE_INFINITY;
  return {
    check() {
      const used = getHeapStatistics().used_heap_size;
      // V8's own full collections lower the heap too: the low follows them.
      low = Math.min(low, used);
      if (used < low + growth) return false;
      fullCollection()();
      low = getHeapStatistics().used_heap_size;
      return true;
    },
  };
}
