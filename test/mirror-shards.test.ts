/**
 * How the mirror spreads pages over collections: QMD's update() rescans a
 * whole collection, so bigger vaults get more, smaller collections, and a
 * generation keeps its shard count for life (recorded in its manifest).
 */
import { describe, expect, it } from "vitest";
import type { GenerationPaths } from "../extensions/llm-wiki/lib/index/layout.ts";
import {
  collectionOf,
  collectionsOf,
  emptyManifest,
  shardsFor,
  shardsOf,
} from "../extensions/llm-wiki/lib/index/mirror.ts";

const gen = { documents: "/x/documents" } as GenerationPaths;

describe("shardsFor", () => {
  it("keeps 8 per role for small vaults and doubles to about 128 pages a collection, up to 64", () => {
    expect(shardsFor(0)).toBe(8);
    expect(shardsFor(1_024)).toBe(8);
    expect(shardsFor(1_025)).toBe(16);
    expect(shardsFor(10_000)).toBe(64);
    expect(shardsFor(1_000_000)).toBe(64);
  });
});

describe("collections of a generation", () => {
  it("lists every shard of both roles and places a page in one of its role's shards", () => {
    const names = collectionsOf(gen, 16).map((c) => c.name);
    expect(names).toHaveLength(32);
    expect(new Set(names).size).toBe(32);
    for (let i = 0; i < 200; i += 1) {
      const c = collectionOf(`concepts/page-${i}`, "canonical", 16);
      expect(names).toContain(c);
      expect(c).toMatch(/^canonical-\d+$/);
    }
  });

  it("reads 8 shards from a manifest written before shard counts were recorded", () => {
    expect(shardsOf({ version: 1, entries: {} })).toBe(8);
    expect(shardsOf(emptyManifest(32))).toBe(32);
    expect(shardsOf({ version: 1, shards: 1_000, entries: {} })).toBe(8);
  });
});
