/**
 * A benchmark's peak memory is its own process's: a worker spawned by a
 * parent holding hundreds of MB reports its own high-water mark, not the
 * parent's (which Linux carries into `maxRSS` at `exec`).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const MODULE = join(
  import.meta.dirname,
  "..",
  "extensions",
  "llm-wiki",
  "lib",
  "bench",
  "peak-rss.ts",
);

describe("peakRssMb", () => {
  it.runIf(process.platform === "linux")(
    "reports a spawned process's own peak, not the parent's 400 MB",
    () => {
      // Touched, so resident in this (the parent) process.
      const held = Buffer.alloc(400 * 1024 * 1024, 1);
      const child = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { peakRssMb } = await import(${JSON.stringify(MODULE)});
           console.log(JSON.stringify({ own: peakRssMb() }));`,
        ],
        { encoding: "utf8" },
      );
      expect(held[held.length - 1]).toBe(1);
      expect(child.status, child.stderr).toBe(0);
      // (Here `process.resourceUsage().maxRSS` says 400 MB or more.)
      const { own } = JSON.parse(child.stdout) as { own: number };
      expect(own).toBeGreaterThan(0);
      expect(own).toBeLessThan(200);
    },
  );
});
