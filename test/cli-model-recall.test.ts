/**
 * An asked `llm-wiki recall` opens its index lexical-first (the SQLite
 * driver alone) and still answers every model mode: with the tiny test
 * models configured, hybrid, quality and adaptive recall load QMD's store
 * when they first need it and answer with it. Where no installed GPU build
 * of llama.cpp can start, the process loads the CPU build and never tries one.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gpuBuilds, llamaBackend } from "../extensions/llm-wiki/lib/index/llama-backend.ts";
import { ensureTestModels } from "../scripts/generate-test-models.ts";
import { buildImportLog } from "./helpers/build-import-log.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { copyExampleVault } from "./helpers/temp-vault.ts";

const ASKED = "how do we keep the cache consistent after a note changes";

let base: string;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-cli-models-")));
  root = join(base, "project");
  copyExampleVault(root);
  const models = await ensureTestModels();
  const settings = join(base, "settings.json");
  writeFileSync(settings, JSON.stringify({ "llm-wiki": { models } }));
  env = childEnv({ LLM_WIKI_SETTINGS: settings });
  const indexed = runCli(["reindex", "--vectors", "--json"], { cwd: root, env, timeout: 300_000 });
  expect(indexed.status, indexed.stderr).toBe(0);
}, 300_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe("an asked recall from the command line, with models", () => {
  it.each(["hybrid", "quality", "adaptive"])("answers in %s mode through QMD's store", (mode) => {
    const run = runCli(["recall", "--json", "--mode", mode, ASKED], {
      cwd: root,
      env,
      timeout: 300_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      modeUsed: string;
      results: Array<{ id: string }>;
    };
    expect(result.ok).toBe(true);
    // Not the lexical fallback: the model path ran.
    expect(result.modeUsed).toBe(mode);
    expect(result.results.map((r) => r.id)).toContain("concepts/cache-invalidation");
  });
});

describe("the llama.cpp build of a model-backed recall", () => {
  it("is the CPU build, no GPU build tried, when none installed can start here; the answer is the model's", () => {
    const builds = buildImportLog(base);
    const run = runCli(["recall", "--json", "--mode", "hybrid", ASKED], {
      cwd: root,
      env: { ...env, NODE_OPTIONS: builds.nodeOptions },
      timeout: 300_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { modeUsed: string; results: Array<{ id: string }> };
    expect(result.modeUsed).toBe("hybrid");
    expect(result.results.map((r) => r.id)).toContain("concepts/cache-invalidation");
    const asked = builds.asked();
    // The log sees the build that ran: the observation itself works.
    expect(asked.length).toBeGreaterThan(0);
    const gpu = gpuBuilds(process.platform, process.arch).map((b) => b.package);
    // The child's environment sets neither QMD_LLAMA_GPU nor QMD_FORCE_CPU.
    if (llamaBackend({ env: {} }).choice === "cpu") {
      expect(asked.filter((name) => gpu.some((g) => name.startsWith(g)))).toEqual([]);
    }
  });
});
