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
