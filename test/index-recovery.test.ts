/**
 * Crash safety of a full rebuild: the new generation is built beside the live
 * one and swapped in through a journal. A real CLI process is killed
 * (SIGKILL, no cleanup) at every named step of `CRASH_STEPS`; the last good
 * index must keep answering in a fresh process, and the next reindex must
 * finish the recovery. A rebuild that fails (an injected exception at each
 * step) removes what it wrote, keeps the previous index and reports `stale`
 * with the last error.
 *
 * Every vault starts from a good index of OLD content and is then changed, so
 * the answers tell which generation is live.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CRASH_STEPS, type CrashStep } from "../extensions/llm-wiki/lib/index/crash-points.ts";
import { indexLayout, readCurrent } from "../extensions/llm-wiki/lib/index/layout.ts";
import type { ReindexReport } from "../extensions/llm-wiki/lib/index/qmd-indexing.ts";
import { binBuildOptions } from "../scripts/build.ts";
import { type CliRun, runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, indexStatus, serviceFor } from "./helpers/index-services.ts";
import {
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** What each query recalls from the generation built before the change… */
const OLD = {
  zephyr: ["concepts/alpha"],
  pangolin: [],
  axolotl: [],
  narwhal: ["sources/beta"],
};
/** …and from one built after it. */
const NEW = {
  zephyr: [],
  pangolin: ["concepts/alpha"],
  axolotl: ["concepts/delta"],
  narwhal: ["sources/beta"],
};
const QUERIES = Object.keys(OLD);

/** Steps at which the pointer already names the new generation. */
const SWAPPED: readonly CrashStep[] = ["after-pointer", "after-cleanup"];
/** Steps at which a swap journal exists. */
const JOURNALED: readonly CrashStep[] = ["after-journal", "after-pointer", "after-cleanup"];

function cli(args: string[], extra: Record<string, string> = {}): CliRun {
  return runCli(args, { env: childEnv(extra) });
}

/** The fresh process's script (test/helpers/fresh-answers.ts), bundled once for this file. */
let answersScript = "";
beforeAll(async () => {
  // Under the checkout, so the bundle's external packages resolve from its node_modules.
  const out = join(REPO, ".cache", "test-env", `fresh-answers-${process.pid}`);
  await build({
    ...binBuildOptions(out),
    entryPoints: { "fresh-answers": join(REPO, "test", "helpers", "fresh-answers.ts") },
  });
  answersScript = join(out, "fresh-answers.js");
  return () => rmSync(out, { recursive: true, force: true });
});

/** A fresh process's answers: a new service, lexical recall, no reindex first. */
function answersInFreshProcess(root: string): Record<string, string[]> {
  const out = spawnSync(process.execPath, [answersScript, root, ...QUERIES], {
    env: childEnv(),
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Record<string, string[]>;
}

/** A vault with a good index of OLD content, then changed on disk to NEW content. */
async function vaultWithOldIndex(): Promise<{ vault: TempVault; oldGeneration: string }> {
  const vault = makeTempVault({
    pages: {
      "concepts/alpha": pageText(
        { type: "concept", title: "Alpha" },
        "The zephyr wind carries seeds.\n",
      ),
      "sources/beta": pageText({ type: "source", title: "Beta" }, "A narwhal in the harbour.\n"),
    },
  });
  const service = serviceFor(vault.root);
  const result = await service.reindex();
  expect(result.ok).toBe(true);
  expect(await service.recall({ query: "zephyr", mode: "lexical" })).toMatchObject({
    results: [{ id: "concepts/alpha" }],
  });
  await service.close();
  const oldGeneration = readCurrent(indexLayout(vault.paths));
  if (oldGeneration === undefined) throw new Error("no generation after the first reindex");
  vault.writePage(
    "concepts/alpha",
    pageText({ type: "concept", title: "Alpha" }, "Now about a pangolin.\n"),
  );
  vault.writePage(
    "concepts/delta",
    pageText({ type: "concept", title: "Delta" }, "An axolotl in the pond.\n"),
  );
  return { vault, oldGeneration };
}

/** Status counts of the generation that answers: the old one (2 pages, 2 pending) or the new one. */
function countsOfLive(swapped: boolean, live: string | undefined) {
  return swapped
    ? { generation: live, documents: 3, pending: 0, needsEmbedding: 3 }
    : { generation: live, documents: 2, pending: 2, needsEmbedding: 2 };
}

/** Asserts the index folder holds one live generation and nothing left over. */
function expectClean(vault: TempVault): void {
  const layout = indexLayout(vault.paths);
  const live = readCurrent(layout);
  expect(live).toBeDefined();
  const leftovers = readdirSync(layout.root).filter(
    (name) => /^(gen|staging)-/.test(name) && name !== live,
  );
  expect(leftovers).toEqual([]);
  expect(existsSync(layout.journal)).toBe(false);
  expect(existsSync(layout.lock)).toBe(false);
  const stray = [...snapshotFiles(vault.paths.meta).keys()].filter(
    (rel) => rel.includes(".tmp-") || rel.includes(".stale-"),
  );
  expect(stray).toEqual([]);
}

describe("a crash at any step of a rebuild", () => {
  it("classifies the named steps: once journaled or swapped, every later step is too", () => {
    expect(new Set(CRASH_STEPS).size).toBe(CRASH_STEPS.length);
    // Some steps come before the journal, and the swap comes after it.
    expect(JOURNALED.length).toBeLessThan(CRASH_STEPS.length);
    expect(SWAPPED.length).toBeGreaterThan(0);
    expect(SWAPPED.length).toBeLessThan(JOURNALED.length);
    expect(CRASH_STEPS.slice(-JOURNALED.length)).toEqual(JOURNALED);
    expect(JOURNALED.slice(-SWAPPED.length)).toEqual(SWAPPED);
  });

  it.each(CRASH_STEPS)(
    "%s: the last good index answers, and the next reindex completes the recovery",
    async (step) => {
      const { vault, oldGeneration } = await vaultWithOldIndex();
      const swapped = SWAPPED.includes(step);
      const pages = snapshotFiles(vault.paths.wiki);

      const crash = cli(["reindex", "--all", "--vault", vault.root, "--json"], {
        LLM_WIKI_TEST: "1",
        LLM_WIKI_CRASH_AT: step,
      });
      expect(crash.signal).toBe("SIGKILL");
      expect(crash.status).toBeNull();
      // The dead process still owns the lock file: the next writer must take it over.
      const lock = JSON.parse(readFileSync(indexLayout(vault.paths).lock, "utf8")) as {
        pid: number;
      };
      expect(lock.pid).toBe(crash.pid);

      // A fresh process answers from the last good generation.
      expect(answersInFreshProcess(vault.root)).toEqual(swapped ? NEW : OLD);
      const live = readCurrent(indexLayout(vault.paths));
      if (swapped) expect(live).not.toBe(oldGeneration);
      else expect(live).toBe(oldGeneration);

      const status = indexStatus(serviceFor(vault.root));
      expect(status).toMatchObject({
        state: JOURNALED.includes(step) ? "recovering" : "stale",
        repair: "llm-wiki reindex",
        ...countsOfLive(swapped, live),
      });

      // The repair command, in a new process, finishes what the crash left.
      const repair = cli(["reindex", "--vault", vault.root, "--json"]);
      expect(repair.status, repair.stderr).toBe(0);
      const result = JSON.parse(repair.stdout) as { ok: boolean; reports: ReindexReport[] };
      expect(result.ok).toBe(true);
      expect(result.reports[0]).toMatchObject({
        recovered: true,
        status: { state: "ready", documents: 3, pending: 0, needsEmbedding: 3 },
      });
      expectClean(vault);
      expect(indexStatus(serviceFor(vault.root))).toMatchObject({ state: "ready", documents: 3 });
      expect(answersInFreshProcess(vault.root)).toEqual(NEW);
      expect(snapshotFiles(vault.paths.wiki)).toEqual(pages);
    },
  );

  it("is inert without LLM_WIKI_TEST: no user setting can kill a rebuild", async () => {
    const { vault } = await vaultWithOldIndex();
    const out = cli(["reindex", "--all", "--vault", vault.root], {
      LLM_WIKI_CRASH_AT: "after-update",
      LLM_WIKI_FAIL_AT: "after-update",
    });
    expect(out.signal).toBeNull();
    expect(out.status, out.stderr).toBe(0);
    expectClean(vault);
    expect(answersInFreshProcess(vault.root)).toEqual(NEW);
  });
});

describe("a rebuild that fails", () => {
  /** Runs `fn` with `LLM_WIKI_FAIL_AT` set for this process only. */
  async function failingAt<T>(step: CrashStep, fn: () => Promise<T>): Promise<T> {
    const previous = process.env.LLM_WIKI_FAIL_AT;
    process.env.LLM_WIKI_FAIL_AT = step;
    try {
      return await fn();
    } finally {
      if (previous === undefined) delete process.env.LLM_WIKI_FAIL_AT;
      else process.env.LLM_WIKI_FAIL_AT = previous;
    }
  }

  it.each(CRASH_STEPS)(
    "%s: keeps the previous index, reports the error, and the next reindex recovers",
    async (step) => {
      expect(process.env.LLM_WIKI_TEST).toBe("1");
      const { vault, oldGeneration } = await vaultWithOldIndex();
      const service = serviceFor(vault.root);
      const swapped = SWAPPED.includes(step);

      const failed = await failingAt(step, () => service.reindex({ scope: "all" }));

      expect(failed.ok).toBe(false);
      const report = failed.reports[0];
      expect(report?.diagnostics.map((d) => [d.code, d.severity, d.repair])).toEqual([
        ["index_failed", "error", "llm-wiki reindex --force"],
      ]);
      expect(report?.diagnostics[0]?.message).toBe(
        `indexing failed: injected failure at ${step}; the previous index stays in use`,
      );
      const live = readCurrent(indexLayout(vault.paths));
      if (swapped) expect(live).not.toBe(oldGeneration);
      else {
        expect(live).toBe(oldGeneration);
        // The failed rebuild removed what it wrote (its generation, its journal) at once.
        expectClean(vault);
      }
      const status = indexStatus(service);
      expect(status).toMatchObject({
        // Only a swap that got as far as the pointer leaves a journal to finish.
        state: swapped ? "recovering" : "stale",
        lastError: `injected failure at ${step}`,
        repair: "llm-wiki reindex",
        ...countsOfLive(swapped, live),
      });
      if (!swapped) {
        expect(status.diagnostics.map((d) => d.code)).toEqual(["index_stale"]);
        expect(status.diagnostics[0]?.message).toContain(
          `the last index update failed (injected failure at ${step})`,
        );
      }
      // The same service and a fresh process both answer from the last good generation.
      const expected = swapped ? NEW : OLD;
      for (const query of QUERIES) {
        const result = await service.recall({ query, mode: "lexical", refreshIndex: false });
        expect(
          result.results.map((r) => r.id),
          query,
        ).toEqual(expected[query as keyof typeof expected]);
      }
      expect(answersInFreshProcess(vault.root)).toEqual(expected);

      const next = await service.reindex();
      expect(next.ok).toBe(true);
      expect(next.reports[0]?.recovered).toBe(swapped);
      const ready = indexStatus(service);
      expect(ready).toMatchObject({ state: "ready", documents: 3, pending: 0 });
      expect(ready.lastError).toBeUndefined();
      expectClean(vault);
      expect(answersInFreshProcess(vault.root)).toEqual(NEW);
    },
  );

  it("fails the CLI with exit 1 and a structured diagnostic, never a stack trace", async () => {
    const { vault, oldGeneration } = await vaultWithOldIndex();
    const out = cli(["reindex", "--all", "--vault", vault.root, "--json"], {
      LLM_WIKI_TEST: "1",
      LLM_WIKI_FAIL_AT: "after-update",
    });
    expect(out.status).toBe(1);
    expect(out.stderr).not.toMatch(/^\s+at |\.ts:\d+/m);
    const result = JSON.parse(out.stdout) as { ok: boolean; reports: ReindexReport[] };
    expect(result.ok).toBe(false);
    expect(result.reports[0]?.diagnostics).toEqual([
      {
        code: "index_failed",
        severity: "error",
        message:
          "indexing failed: injected failure at after-update; the previous index stays in use",
        repair: "llm-wiki reindex --force",
      },
    ]);
    expect(result.reports[0]?.status).toMatchObject({
      state: "stale",
      generation: oldGeneration,
      lastError: "injected failure at after-update",
    });
    expect(readCurrent(indexLayout(vault.paths))).toBe(oldGeneration);
    expect(indexStatus(serviceFor(vault.root))).toMatchObject({
      state: "stale",
      lastError: "injected failure at after-update",
    });
    expect(answersInFreshProcess(vault.root)).toEqual(OLD);
  });
});
