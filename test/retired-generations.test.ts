/**
 * A generation nothing points to any more leaves the index folder in one
 * rename, before the rebuild that replaced it returns, and its files are
 * removed in the background: at 100k pages that removal took longer than
 * the rest of the rebuild. What a process that exited first left behind is
 * removed by the next recovery, which does not call it an interrupted swap.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexLayout, readCurrent } from "../extensions/llm-wiki/lib/index/layout.ts";
import {
  generationRetirer,
  isRetired,
} from "../extensions/llm-wiki/lib/index/retired-generations.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** A folder of `files` small files and a subfolder, as a generation's mirror is laid out. */
function fakeGeneration(dir: string, files: number): void {
  mkdirSync(join(dir, "documents", "canonical-0"), { recursive: true });
  for (let i = 0; i < files; i += 1)
    writeFileSync(join(dir, "documents", "canonical-0", `p${i}.md`), `page ${i}\n`);
  writeFileSync(join(dir, "index.sqlite"), "");
}

function indexedVault() {
  return makeTempVault({
    pages: {
      "concepts/alpha": pageText({ type: "concept", title: "Alpha" }, "The zephyr wind.\n"),
      "concepts/beta": pageText({ type: "concept", title: "Beta" }, "A narwhal swims.\n"),
    },
  });
}

describe("retired generations", () => {
  it("are out of the index folder when retiring returns, and gone when its promise settles", async () => {
    const vault = indexedVault();
    const layout = indexLayout(vault.paths);
    const name = `gen-${Date.now().toString(36)}-old`;
    fakeGeneration(join(layout.root, name), 1 + Math.floor(Math.random() * 300));
    const gone = generationRetirer(layout).retire(name);
    expect(existsSync(join(layout.root, name))).toBe(false);
    await gone;
    expect(readdirSync(layout.root).filter((n) => n === name || isRetired(n))).toEqual([]);
  });

  it("are removed once: a sweep while their removal runs starts no second one", async () => {
    const vault = indexedVault();
    const layout = indexLayout(vault.paths);
    const retirer = generationRetirer(layout);
    const name = `gen-${Date.now().toString(36)}-old`;
    fakeGeneration(join(layout.root, name), 1 + Math.floor(Math.random() * 300));
    const leftover = `retired-${Date.now().toString(36)}-left`;
    fakeGeneration(join(layout.root, leftover), 1 + Math.floor(Math.random() * 50));
    const gone = retirer.retire(name);
    // The folder just retired is being removed; only the leftover is started.
    expect(retirer.sweep(readdirSync(layout.root))).toBe(1);
    // Both removals are under way now: nothing more to start.
    expect(retirer.sweep(readdirSync(layout.root))).toBe(0);
    await gone;
    await vi.waitFor(
      () => expect(readdirSync(layout.root).filter((n) => isRetired(n))).toEqual([]),
      {
        timeout: 60_000,
        interval: 20,
      },
    );
  });

  it("a full rebuild returns with only its new generation left under a generation's name", async () => {
    const vault = indexedVault();
    const service = serviceFor(vault.root);
    expect((await service.reindex()).ok).toBe(true);
    const layout = indexLayout(vault.paths);
    const before = readCurrent(layout);
    const rebuilt = await service.reindex({ scope: "all" });
    expect(rebuilt.ok).toBe(true);
    const live = readCurrent(layout);
    expect(live).toBeDefined();
    expect(live).not.toBe(before);
    expect(readdirSync(layout.root).filter((n) => /^(gen|staging)-/.test(n))).toEqual([live]);
    expect(
      await service.recall({ query: "narwhal", mode: "lexical", refreshIndex: false }),
    ).toMatchObject({ results: [{ id: "concepts/beta" }] });
    await vi.waitFor(
      () => expect(readdirSync(layout.root).filter((n) => isRetired(n))).toEqual([]),
      { timeout: 60_000, interval: 20 },
    );
  });

  it("left by an exited process are removed by the next recovery, which reports no recovery", async () => {
    const vault = indexedVault();
    const service = serviceFor(vault.root);
    expect((await service.reindex()).ok).toBe(true);
    const layout = indexLayout(vault.paths);
    const leftover = join(layout.root, `retired-${Date.now().toString(36)}-left`);
    fakeGeneration(leftover, 50);
    const live = readCurrent(layout);
    const report = await service.reindex({ scope: "all" });
    expect(report.ok).toBe(true);
    expect(report.reports.every((r) => r.recovered === false)).toBe(true);
    expect(readCurrent(layout)).not.toBe(live);
    await vi.waitFor(() => expect(existsSync(leftover)).toBe(false), {
      timeout: 60_000,
      interval: 20,
    });
  });
});
