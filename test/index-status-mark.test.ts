/**
 * The index status from marks (index-state.ts `readIndexStatusByMark`): a
 * process holding only the registry's summary reads the live manifest's mark
 * instead of the manifest, and gets exactly the status a full read gives
 * while the mirror holds exactly the registry's pages. Any other case (a page
 * changed, a manifest written after its mark, no mark yet) gives no status,
 * so the caller reads the manifest; reading it leaves a mark for the next.
 */
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  readIndexStatus,
  readIndexStatusByMark,
} from "../extensions/llm-wiki/lib/index/index-state.ts";
import {
  generationPaths,
  indexLayout,
  readCurrent,
} from "../extensions/llm-wiki/lib/index/layout.ts";
import { refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { readSummary } from "../extensions/llm-wiki/lib/vault/registry-summary.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

async function indexedVault(): Promise<TempVault> {
  const vault = makeTempVault({
    pages: {
      "concepts/rag": pageText({ type: "concept", title: "RAG" }, "Retrieval.\n"),
      "concepts/bm25": pageText({ type: "concept", title: "BM25" }, "Ranking.\n"),
      "sources/paper": pageText({ type: "source", title: "A paper" }, "Evidence.\n"),
    },
  });
  const built = await serviceFor(vault.root).reindex({ scope: "all" });
  expect(built.ok).toBe(true);
  return vault;
}

function liveMark(vault: TempVault): string {
  const layout = indexLayout(vault.paths);
  return join(generationPaths(layout, readCurrent(layout) ?? "").dir, "manifest.mark.json");
}

function summaryOf(vault: TempVault) {
  const state = readSummary(vault.paths);
  if (!state) throw new Error("no registry summary");
  return state.summary;
}

describe("the index status from marks", () => {
  it("is the status a full read of the manifest gives, while the mirror holds the registry's pages", async () => {
    const vault = await indexedVault();
    const layout = indexLayout(vault.paths);
    const registry = refreshRegistry(vault.paths);
    const byMark = readIndexStatusByMark(layout, summaryOf(vault));
    expect(byMark).toEqual(readIndexStatus(layout, registry));
    expect(byMark).toMatchObject({ state: "ready", pending: 0, documents: 3, canonical: 2 });
  });

  it("gives nothing once a page changed: the marks differ, the full read says stale", async () => {
    const vault = await indexedVault();
    vault.writePage("concepts/rag", pageText({ type: "concept", title: "RAG" }, "Changed.\n"));
    const registry = refreshRegistry(vault.paths);
    const layout = indexLayout(vault.paths);
    expect(readIndexStatusByMark(layout, summaryOf(vault))).toBeUndefined();
    expect(readIndexStatus(layout, registry)).toMatchObject({ state: "stale", pending: 1 });
  });

  it("gives nothing when the manifest changed after its mark was made", async () => {
    const vault = await indexedVault();
    const layout = indexLayout(vault.paths);
    const gen = generationPaths(layout, readCurrent(layout) ?? "");
    appendFileSync(gen.manifestLog, "\n");
    expect(readIndexStatusByMark(layout, summaryOf(vault))).toBeUndefined();
  });

  it("gives nothing without a mark; a service reading the manifest leaves one", async () => {
    const vault = await indexedVault();
    const layout = indexLayout(vault.paths);
    rmSync(liveMark(vault));
    expect(readIndexStatusByMark(layout, summaryOf(vault))).toBeUndefined();
    const status = serviceFor(vault.root).status().vault?.index;
    expect(status?.state).toBe("ready");
    expect(existsSync(liveMark(vault))).toBe(true);
    expect(readIndexStatusByMark(layout, summaryOf(vault))).toEqual(status);
  });

  it("keeps the mark in step with each incremental update", async () => {
    const vault = await indexedVault();
    const service = serviceFor(vault.root);
    vault.writePage("concepts/new", pageText({ type: "concept", title: "New" }, "Fresh.\n"));
    expect((await service.reindex()).ok).toBe(true);
    const layout = indexLayout(vault.paths);
    expect(readIndexStatusByMark(layout, summaryOf(vault))).toMatchObject({
      state: "ready",
      documents: 4,
    });
  });
});
