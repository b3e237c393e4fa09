/**
 * Automatic recall injects memory nobody asked for, so it must be precise in
 * every mode: with vectors in the index, unrelated prompts still inject
 * nothing (vector similarity alone is not evidence), while a prompt the vault
 * answers still gets its page.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
let service: WikiService;
let root: string;

beforeAll(async () => {
  root = join(makeTempDir("llm-wiki-precision-"), "acme-notes");
  cpSync(EXAMPLE, root, { recursive: true, filter: (src) => !/[\\/]meta([\\/]|$)/.test(src) });
  // A turn budget no busy machine reaches: these specs are about precision, not speed.
  service = createWikiService({
    cwd: root,
    vault: root,
    settings: { ...DEFAULT_SETTINGS, turnBudgetMs: 60_000 },
  });
  const built = await service.reindex({ scope: "all", components: ["lexical", "vectors"] });
  expect(built.ok).toBe(true);
  expect(service.status().vault?.index.vectors.present).toBe(true);
  // Loads the embed model once: a cold load on a busy machine can exceed the
  // automatic turn budget, and these specs are about precision, not speed.
  await service.recall({ query: "cache", mode: "hybrid" });
}, 180_000);

afterAll(async () => {
  await service.close();
  removeTempDirs();
});

describe("automatic recall with vectors (tiny models)", () => {
  it.each([
    "write a haiku about autumn leaves",
    "tell me a joke",
    "what is 2+2",
    "fix the failing parser test in module foo",
  ])("injects nothing for %j in hybrid mode", async (prompt) => {
    const result = await service.recall({ query: prompt, policy: "automatic", mode: "hybrid" });
    expect(result.modeUsed).toBe("hybrid");
    expect(result.results).toEqual([]);
    expect(result.rendered).toBe("");
  });

  it("still injects the page a prompt is about", async () => {
    const result = await service.recall({
      query: "how do we keep the cache consistent",
      policy: "automatic",
      mode: "hybrid",
    });
    expect(result.results[0]?.id).toBe("concepts/cache-invalidation");
  });

  it("explicit recall keeps vector evidence, above its lower floor", async () => {
    const explicit = await service.recall({
      query: "write a haiku about autumn leaves",
      mode: "hybrid",
    });
    expect(explicit.modeUsed).toBe("hybrid");
    // Explicit recall may show weak candidates above its lower floor; automatic never does.
    for (const hit of explicit.results) expect(hit.score).toBeGreaterThan(0.25);
  });
});

describe("vectors made with another embed model", () => {
  it("are not searched: hybrid answers lexically with a vectors_stale diagnostic", async () => {
    const other = createWikiService({
      cwd: root,
      vault: root,
      // A real GGUF file, but not the model the vectors were made with.
      settings: {
        ...service.settings,
        models: { embed: join(import.meta.dirname, "..", ".cache", "test-models", "rerank.gguf") },
      },
    });
    try {
      const result = await other.recall({
        query: "how do we keep the cache consistent",
        mode: "hybrid",
      });
      expect(result.modeUsed).toBe("lexical");
      expect(result.diagnostics).toContainEqual(
        expect.objectContaining({
          code: "vectors_stale",
          repair: "llm-wiki reindex --vectors --force",
        }),
      );
      expect(result.results[0]?.id).toBe("concepts/cache-invalidation");
    } finally {
      await other.close();
    }
  });
});
