import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VaultSelector } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { pageHints } from "../extensions/llm-wiki/pi/page-hints.ts";
import { createReindexScheduler } from "../extensions/llm-wiki/pi/reindex-scheduler.ts";

function recorder() {
  const passes: Array<{ vault: VaultSelector; paths: string[] | undefined }> = [];
  const scheduler = createReindexScheduler({
    delayMs: 5,
    run: async (vault, paths) => {
      passes.push({ vault, paths: paths ? [...paths].sort() : undefined });
    },
  });
  return { passes, scheduler };
}

describe("the background reindex scheduler", () => {
  it("merges a burst of requests into one pass that names every changed file", async () => {
    const { passes, scheduler } = recorder();
    scheduler.schedule("project", undefined, ["/v/wiki/b.md"]);
    scheduler.schedule("project", undefined, ["/v/wiki/a.md", "/v/wiki/b.md"]);
    await scheduler.settled();
    expect(passes).toEqual([{ vault: "project", paths: ["/v/wiki/a.md", "/v/wiki/b.md"] }]);
  });

  it("looks at every page when one merged request did not say what changed", async () => {
    const { passes, scheduler } = recorder();
    scheduler.schedule("project", undefined, ["/v/wiki/a.md"]);
    scheduler.schedule("personal");
    await scheduler.settled();
    expect(passes).toEqual([{ vault: "all", paths: undefined }]);
    scheduler.schedule("project", undefined, ["/v/wiki/c.md"]);
    await scheduler.settled();
    expect(passes[1]).toEqual({ vault: "project", paths: ["/v/wiki/c.md"] });
  });
});

const SCHEDULER = join(
  import.meta.dirname,
  "..",
  "extensions",
  "llm-wiki",
  "pi",
  "reindex-scheduler.ts",
);

/**
 * A Node process whose only work is the scheduler: `body` runs after
 * `schedule("project")`; the first pass asks for another, as a page changed
 * during a pass does.
 */
function alone(delayMs: number, body: string): { status: number | null; stdout: string } {
  const script = [
    `import { createReindexScheduler } from ${JSON.stringify(SCHEDULER)};`,
    "let passes = 0;",
    `const scheduler = createReindexScheduler({ delayMs: ${delayMs}, run: async () => {`,
    `  process.stdout.write("ran\\n");`,
    `  if (++passes === 1) scheduler.schedule("project");`,
    "} });",
    `scheduler.schedule("project");`,
    body,
  ].join("\n");
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    // A hang guard, not a measurement.
    timeout: 120_000,
  });
  return { status: out.status, stdout: out.stdout };
}

describe("the background reindex scheduler and the life of its process", () => {
  it("keeps the process alive for the passes someone waits for (print-mode Pi ended here with no answer)", () => {
    // An unsettled top-level await would end Node with status 13 and print nothing.
    const out = alone(50, `await scheduler.settled(); process.stdout.write("settled\\n");`);
    expect(out).toEqual({ status: 0, stdout: "ran\nran\nsettled\n" });
  });

  it("does not keep a finished process alive for a pass nobody waits for", () => {
    const out = alone(600_000, "");
    expect(out).toEqual({ status: 0, stdout: "" });
  });
});

describe("pages a wiki tool names for the background pass", () => {
  it("are passed on when every one is a page under wiki/, and dropped (look at every page) otherwise", () => {
    expect(pageHints(["wiki/concepts/a.md", "wiki/sources/b.md"])).toEqual([
      "wiki/concepts/a.md",
      "wiki/sources/b.md",
    ]);
    expect(pageHints(["wiki/concepts/a.md", undefined])).toBeUndefined();
    expect(pageHints([".llm-wiki/wiki/concepts/a.md"])).toBeUndefined();
    expect(pageHints(["raw/sources/SRC-1/source.md"])).toBeUndefined();
  });
});
