/**
 * Recall is one pipeline of named stages (recall-operation.ts): each stage is
 * specified here alone, on a real vault and index where it needs one, and
 * the whole recall reports the stages it ran, in order, with their times.
 */
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assembleHits } from "../extensions/llm-wiki/lib/recall/recall-assemble.ts";
import { fitToBudget } from "../extensions/llm-wiki/lib/recall/recall-fit.ts";
import { planRecall } from "../extensions/llm-wiki/lib/recall/recall-plan.ts";
import { preferHits } from "../extensions/llm-wiki/lib/recall/recall-prefer.ts";
import { openVaults } from "../extensions/llm-wiki/lib/recall/recall-vaults.ts";
import { stageClock } from "../extensions/llm-wiki/lib/recall/stage-clock.ts";
import type { RetrievalHit } from "../extensions/llm-wiki/lib/retrieval.ts";
import {
  AUTOMATIC_POLICY,
  PRIMING_MAX_NOTES,
  PRIMING_POLICY,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import type { VaultHandle } from "../extensions/llm-wiki/lib/vault-handles.ts";
import { CLI } from "./helpers/cli.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const STAGES = ["plan", "vaults", "window", "retrieve", "prefer", "assemble", "fit"];
const RETRIEVE_PARTS = ["store", "search", "score", "fuse"];

/** A word no dictionary has, fresh each run, so a match can only come from the page. */
function word(): string {
  return `zq${Math.random().toString(36).slice(2, 9).replace(/\d/g, "x")}`;
}

const topic = word();
const other = word();
const PAGES = {
  "concepts/harbour": pageText(
    { type: "concept", title: "Harbour schedule" },
    `The harbour ${topic} schedule rotates weekly. See [[sources/tide-table]].\n`,
  ),
  "sources/tide-table": pageText(
    { type: "source", title: "Tide table" },
    `Tide table for the ${topic} harbour.\n`,
  ),
  "concepts/lighthouse": pageText(
    { type: "concept", title: "Lighthouse" },
    `The lighthouse ${other} lamp.\n`,
  ),
};

afterEach(closeServices);
afterAll(removeTempDirs);

describe("plan", () => {
  it("automatic recall takes the automatic policy, unasked, at most its bundles", () => {
    const plan = planRecall({ query: "x", policy: "automatic" }, DEFAULT_SETTINGS);
    expect(plan.policy).toEqual(AUTOMATIC_POLICY);
    expect(plan).toMatchObject({ automatic: true, priming: false, mode: "adaptive" });
    expect(plan.maxBundles).toBe(AUTOMATIC_POLICY.maxResults);
  });

  it("priming is automatic with its own policy and note count", () => {
    const plan = planRecall({ query: "x", policy: "priming" }, DEFAULT_SETTINGS);
    expect(plan.policy).toEqual(PRIMING_POLICY);
    expect(plan).toMatchObject({ automatic: true, priming: true, maxBundles: PRIMING_MAX_NOTES });
  });

  it("explicit recall keeps the asked count; a type filter widens the pool, not the answer", () => {
    const n = 1 + Math.floor(Math.random() * 9);
    const plan = planRecall(
      { query: "x", maxResults: n, types: ["skill"], mode: "lexical" },
      { ...DEFAULT_SETTINGS, retrievalMode: "quality" },
    );
    expect(plan).toMatchObject({ automatic: false, wanted: n, maxBundles: n, mode: "lexical" });
    expect(plan.policy.maxResults).toBeGreaterThan(n);
    expect([...(plan.typeFilter ?? [])]).toEqual(["skill"]);
  });

  it("the clock is the input's when given", () => {
    const now = new Date(Date.UTC(2020, 1, 2));
    expect(planRecall({ query: "x", now }, DEFAULT_SETTINGS).now).toBe(now);
  });
});

describe("stage clock", () => {
  it("records each stage once, in the order run, an async one when it settles", async () => {
    const clock = stageClock();
    expect(clock.run("plan", () => 1)).toBe(1);
    const later = clock.run("retrieve", () => new Promise<number>((r) => setTimeout(r, 5, 2)));
    clock.run("fit", () => 3);
    expect(await later).toBe(2);
    expect(clock.stages.map((s) => s.stage)).toEqual(["plan", "fit", "retrieve"]);
    for (const s of clock.stages) expect(s.ms).toBeGreaterThanOrEqual(0);
  });
});

describe("stages on a real vault", () => {
  let root: string;

  beforeAll(async () => {
    root = makeTempVault({ pages: PAGES }).root;
    const s = serviceFor(root);
    expect((await s.reindex({ scope: "all" })).ok).toBe(true);
    await closeServices();
  });

  async function opened(policy: "automatic" | "explicit") {
    const service = serviceFor(root);
    const plan = planRecall({ query: topic, policy, mode: "lexical" }, service.settings);
    const [project] = service.resolveVaults("project");
    const vaults = await openVaults(
      service.handles,
      project ? { project } : {},
      plan,
      service.settings,
      true,
    );
    return { service, plan, vaults };
  }

  it("vaults: the project's view with its registry and store, nothing said", async () => {
    const { vaults } = await opened("explicit");
    expect(vaults.paths.map((p) => p.kind)).toEqual(["project"]);
    expect([...(vaults.views[0]?.pages.keys() ?? [])].sort()).toEqual(Object.keys(PAGES).sort());
    expect(await vaults.views[0]?.store()).toBeDefined();
    expect(vaults.notes).toEqual([]);
  });

  it("prefer: pages already in context are left out, nothing is added", async () => {
    const { plan, vaults } = await opened("explicit");
    const hits: RetrievalHit[] = Object.keys(PAGES).map((id, i) => ({
      id,
      vault: "project",
      title: id,
      type: id.split("/")[0] === "sources" ? "source" : "concept",
      role: "canonical",
      score: 1 - i / 10,
      confidence: 1 - i / 10,
      exact: false,
      named: false,
      source: "fts",
    }));
    const excluded = { ...plan, exclude: new Set(["project:concepts/harbour"]) };
    const byKind = vaults.handles as ReadonlyMap<string, VaultHandle>;
    const out = preferHits(excluded, byKind, hits, topic, false);
    expect(out.hits.map((h) => h.id)).toEqual(["sources/tide-table", "concepts/lighthouse"]);
    const typed = { ...plan, typeFilter: new Set(["source"]) };
    expect(preferHits(typed, byKind, hits, topic, false).hits.map((h) => h.id)).toEqual([
      "sources/tide-table",
    ]);
  });

  it("assemble and fit: bundles become items; the block holds what fits the budget", async () => {
    const { service, plan, vaults } = await opened("explicit");
    const r = await service.recall({ query: topic, mode: "lexical" });
    const retrieved = r.results.filter((i) => i.matchReason !== "relation");
    const byKind = vaults.handles as ReadonlyMap<string, VaultHandle>;
    const assembled = assembleHits(plan, byKind, vaults.views, { hits: retrieved }, topic, true);
    expect(assembled.results.map((i) => i.id)).toEqual(r.results.map((i) => i.id));
    expect(assembled.results.map((i) => i.id)).not.toContain("concepts/lighthouse");
    const whole = fitToBudget(plan, service.settings, assembled, 3);
    expect(whole.rendered).toBe(r.rendered);
    expect(whole.renderedPages).toEqual(r.renderedPages);
    // A smaller budget keeps a prefix of the pages and stays within it.
    const maxChars = Math.max(200, Math.floor(whole.rendered.length / 2));
    const tight = fitToBudget(
      plan,
      { ...service.settings, recallMaxChars: maxChars },
      assembled,
      3,
    );
    expect(tight.rendered.length).toBeLessThanOrEqual(maxChars);
    expect(whole.renderedPages.slice(0, tight.renderedPages.length)).toEqual(tight.renderedPages);
  });

  it("a whole recall names its stages in order, each timed", async () => {
    const service = serviceFor(root);
    const r = await service.recall({
      query: "Harbour schedule",
      policy: "automatic",
      mode: "lexical",
    });
    expect(r.results[0]?.id).toBe("concepts/harbour");
    expect(r.stages.map((s) => s.stage)).toEqual(STAGES);
    for (const s of r.stages) {
      expect(Number.isFinite(s.ms)).toBe(true);
      expect(s.ms).toBeGreaterThanOrEqual(0);
    }
    // Retrieve says where its time went: opening the store, searching, scoring, fusing.
    const parts = r.stages.find((s) => s.stage === "retrieve")?.parts ?? [];
    expect(parts.map((p) => p.stage)).toEqual(RETRIEVE_PARTS);
    for (const p of parts) expect(p.ms).toBeGreaterThanOrEqual(0);
  });

  it("without a vault, the pipeline stops after choosing vaults", async () => {
    const service = serviceFor(makeTempDir(), { discover: true });
    const r = await service.recall({ query: topic, policy: "automatic" });
    expect(r.stages.map((s) => s.stage)).toEqual(["plan", "vaults"]);
    expect(r.results).toEqual([]);
  });

  it("recall --explain ends with the pipeline's stages and the search steps (CLI)", () => {
    const out = spawnSync(process.execPath, [CLI, "recall", topic, "--vault", root, "--explain"], {
      encoding: "utf8",
      env: childEnv(),
      timeout: 120_000,
    });
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trimEnd().split("\n");
    const pipeline = lines.find((l) => l.startsWith("pipeline: ")) ?? "";
    expect(pipeline.match(/[a-z]+(?= \d+\.\d\d ms)/g)).toEqual(STAGES);
    // Each part of retrieve with its time, beside the stage's own.
    const parts = /retrieve \d+\.\d\d ms \(([^)]*)\)/.exec(pipeline)?.[1] ?? "";
    expect(parts.split(", ").map((p) => /^([a-z]+) \d+\.\d\d$/.exec(p)?.[1])).toEqual(
      RETRIEVE_PARTS,
    );
    expect(lines.at(-1)).toMatch(/^search steps: lexical \(project\) \d+ ms, \d+ hits/);
  });
});
