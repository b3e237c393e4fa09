/**
 * A full disk during a rebuild: the rebuild fails with `index_no_space`
 * (naming the lack of space), removes every file it wrote at once, so the
 * space is given back, and the last good index stays live and answers.
 * Temporary files a killed writer left beside `LIVE` are removed by the
 * next successful swap.
 *
 * The disk is real where the test may mount one (a small tmpfs; root with
 * CAP_SYS_ADMIN); elsewhere the same failure is injected at a rebuild step as
 * an ENOSPC error. Every step before the swap is also failed that way.
 */
import { spawnSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CRASH_STEPS, type CrashStep } from "../extensions/llm-wiki/lib/index/crash-points.ts";
import { indexLayout, readCurrent } from "../extensions/llm-wiki/lib/index/layout.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const mounted: string[] = [];

afterEach(async () => {
  await closeServices();
  for (const dir of mounted.splice(0)) spawnSync("umount", ["-l", dir]);
  removeTempDirs();
});

/** A vault whose index holds one page with a unique `marker` word. */
async function indexedVault(root?: string): Promise<{ vault: TempVault; marker: string }> {
  const marker = `${randomWord(4, 9)}${randomWord(4, 9)}`;
  const vault = makeTempVault({
    ...(root ? { root } : {}),
    pages: { "concepts/first": pageText({ type: "concept", title: "First" }, `${marker}\n`) },
  });
  const built = await serviceFor(vault.root).reindex({ scope: "all" });
  expect(built.ok, JSON.stringify(built)).toBe(true);
  return { vault, marker };
}

/** Everything under the index folder, by path (sizes and bytes of the live generation). */
function indexFiles(vault: TempVault): Map<string, Buffer> {
  return snapshotFiles(vault.paths.qmd);
}

/** The live generation answers `marker` and no other generation, journal or temp file remains. */
async function expectLastGoodIndex(vault: TempVault, live: string, marker: string): Promise<void> {
  const layout = indexLayout(vault.paths);
  expect(readCurrent(layout)).toBe(live);
  const names = readdirSync(layout.root);
  expect(names.filter((n) => /^(gen|staging)-/.test(n))).toEqual([live]);
  expect(names.filter((n) => n.includes(".tmp-") || n === "journal.json")).toEqual([]);
  const recall = await serviceFor(vault.root).recall({
    query: marker,
    mode: "lexical",
    refreshIndex: false,
  });
  expect(recall.results.map((r) => r.id)).toEqual(["concepts/first"]);
}

/** Mounts a tmpfs of `bytes` on a fresh folder; undefined where this process may not mount. */
function smallDisk(bytes: number): string | undefined {
  const dir = makeTempDir("llm-wiki-full-disk-");
  const out = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir], {
    encoding: "utf8",
  });
  if (out.status !== 0) return undefined;
  mounted.push(dir);
  return dir;
}

/** Runs `fn` with an ENOSPC error injected at `step` (this process only). */
async function noSpaceAt<T>(step: CrashStep, fn: () => Promise<T>): Promise<T> {
  const saved = { at: process.env.LLM_WIKI_FAIL_AT, code: process.env.LLM_WIKI_FAIL_CODE };
  process.env.LLM_WIKI_FAIL_AT = step;
  process.env.LLM_WIKI_FAIL_CODE = "ENOSPC";
  try {
    return await fn();
  } finally {
    if (saved.at === undefined) delete process.env.LLM_WIKI_FAIL_AT;
    else process.env.LLM_WIKI_FAIL_AT = saved.at;
    if (saved.code === undefined) delete process.env.LLM_WIKI_FAIL_CODE;
    else process.env.LLM_WIKI_FAIL_CODE = saved.code;
  }
}

/** Steps before the pointer names the new generation: a failure there must leave nothing. */
const BEFORE_SWAP = CRASH_STEPS.slice(0, CRASH_STEPS.indexOf("after-pointer"));

describe("a rebuild on a full disk", () => {
  it("fails with index_no_space, gives the space back and keeps the last good index", {
    timeout: 120_000,
  }, async () => {
    expect(process.env.LLM_WIKI_TEST).toBe("1");
    const disk = smallDisk(3 * 1024 * 1024);
    const root = disk ? join(disk, "project") : undefined;
    if (root) mkdirSync(root);
    const { vault, marker } = await indexedVault(root);
    const live = readCurrent(indexLayout(vault.paths)) ?? "";
    // Pages that fit on the disk, but whose index does not fit beside them.
    for (let i = 0; i < 260; i++) {
      writeFileSync(
        join(vault.paths.wiki, "concepts", `p${i}-${randomWord(4, 9)}.md`),
        pageText(
          { type: "concept", title: `P ${i} ${randomWord(4, 9)}` },
          `${randomWords(600, 4, 9)}\n`,
        ),
      );
    }
    const before = indexFiles(vault);
    const service = serviceFor(vault.root);
    const failed = disk
      ? await service.reindex({ scope: "all" })
      : await noSpaceAt("after-update", () => service.reindex({ scope: "all" }));
    expect(failed.ok).toBe(false);
    const diagnostics = failed.reports[0]?.diagnostics ?? [];
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        code: "index_no_space",
        severity: "error",
        message: expect.stringMatching(/no space left.* MB free; a rebuild needs about [\d.]+ MB/),
        repair: expect.stringContaining("llm-wiki reindex"),
      }),
    );
    // Nothing of the failed generation is left; the live one is byte for byte as before.
    const after = indexFiles(vault);
    const beforeLive = [...before].filter(([path]) => path.startsWith(live));
    const afterLive = [...after].filter(([path]) => path.startsWith(live));
    expect(afterLive).toEqual(beforeLive);
    await expectLastGoodIndex(vault, live, marker);
  });

  it("at any step before the swap, removes its partial generation", async () => {
    expect(process.env.LLM_WIKI_TEST).toBe("1");
    const { vault, marker } = await indexedVault();
    const live = readCurrent(indexLayout(vault.paths)) ?? "";
    vault.writePage(
      "concepts/second",
      pageText({ type: "concept", title: "Second" }, randomWords(50, 4, 9)),
    );
    // Every step, in a random order each run: one failure must not hide the next.
    const steps = [...BEFORE_SWAP].sort(() => randomInt(3) - 1);
    for (const step of steps) {
      const service = serviceFor(vault.root);
      const failed = await noSpaceAt(step, () => service.reindex({ scope: "all" }));
      expect(
        failed.reports[0]?.diagnostics.map((d) => d.code),
        step,
      ).toEqual(["index_no_space"]);
      await expectLastGoodIndex(vault, live, marker);
    }
  });

  it("a successful swap removes temporary files that killed writers left", async () => {
    const { vault, marker } = await indexedVault();
    const layout = indexLayout(vault.paths);
    // The process ids of writers that are gone: children that ran and exited.
    const dead = Array.from({ length: 3 }, () => spawnSync(process.execPath, ["-e", ""]).pid);
    const leftovers = ["LIVE", "journal.json", "state.json"].map(
      (file, i) => `${file}.tmp-${dead[i]}-${randomBytes(4).toString("hex")}`,
    );
    for (const name of leftovers) writeFileSync(join(layout.root, name), randomWords(5, 4, 9));
    // A live writer's file (this test's parent process) is not a leftover.
    const inFlight = `LIVE.tmp-${process.ppid}-${randomBytes(4).toString("hex")}`;
    writeFileSync(join(layout.root, inFlight), randomWords(5, 4, 9));

    const rebuilt = await serviceFor(vault.root).reindex({ scope: "all" });
    expect(rebuilt.ok).toBe(true);
    const names = readdirSync(layout.root);
    for (const name of leftovers) expect(names).not.toContain(name);
    expect(names).toContain(inFlight);
    const recall = await serviceFor(vault.root).recall({ query: marker, mode: "lexical" });
    expect(recall.results.map((r) => r.id)).toEqual(["concepts/first"]);
  });
});
