/**
 * The heap valve a full rebuild checks between slices
 * (`lib/index/heap-valve.ts`): it leaves a heap that has not grown alone, and
 * once the heap has grown its allowance past the lowest point it saw, it
 * collects, and what nothing references any more is given back.
 */
import { randomBytes } from "node:crypto";
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { heapValve } from "../extensions/llm-wiki/lib/index/heap-valve.ts";

const MB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;

/** About `mb` MB of small heap strings, as a slice of pages leaves behind. */
function garbage(mb: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < mb * 128; i++)
    out.push(`${randomBytes(8).toString("hex")}${"x".repeat(8000)}`.slice(1));
  return out;
}

describe("heap valve", () => {
  it("does not collect while the heap stays within its allowance", () => {
    const valve = heapValve(512);
    expect(valve.check()).toBe(false);
    const kept = garbage(16);
    expect(valve.check()).toBe(false);
    expect(kept.length).toBeGreaterThan(0);
  });

  it("collects once the heap grew past its allowance, and gives back what is unreferenced", () => {
    // A valve allowing nothing collects at once: the low the next one sees is
    // what is live, not garbage the specs before this one in the worker left
    // (V8 collecting that while the slice is made would hide the growth).
    expect(heapValve(0).check()).toBe(true);
    const valve = heapValve(32);
    expect(valve.check()).toBe(false);
    let dropped: string[] | undefined = garbage(96);
    const before = used();
    expect(dropped.length).toBeGreaterThan(0);
    dropped = undefined;
    expect(valve.check()).toBe(true);
    expect(before - used()).toBeGreaterThan(64 * MB);
    // Right after a collection the heap is at its new low: nothing to do.
    expect(valve.check()).toBe(false);
  });
});
