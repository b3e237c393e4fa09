/**
 * This process's peak resident memory, in MB. `process.resourceUsage()`'s
 * `maxRSS` is no measure of a spawned process on Linux: the kernel carries
 * the parent's high-water mark into the child at `exec` (the spawn shares
 * the parent's memory until then), so a benchmark worker started by a
 * parent holding a 100k-page vault in memory reported the parent's peak.
 * `/proc/self/status`'s `VmHWM` is this process's own; elsewhere `maxRSS`.
 */
import { readFileSync } from "node:fs";

export function peakRssMb(): number {
  try {
    const kb = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Math.round(Number(kb) / 1024);
  } catch {
    // No procfs: the portable figure below.
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
