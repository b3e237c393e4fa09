/**
 * The incremental paths keep their state by difference: the mirror plan
 * from the changed pages alone, the manifest's counts and mark moved by the
 * entries that changed, the store's counts by the hashes a change touched,
 * the link graph patched. Each shortcut must leave exactly what a rebuild
 * from nothing gives. Random sequences of adds, edits, role changes,
 * renames, deletes, identical copies and malformed pages, each followed by a
 * reindex that names the files it wrote (or, now and then, names none), are
 * compared with a cold rebuild of the same vault. The seed is fresh each run
 * and printed with any failure.
 */
import { readFileSync, rmSync, utimesSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readStoreStatus } from "../extensions/llm-wiki/lib/index/index-state.ts";
import {
  type GenerationPaths,
  generationPaths,
  indexLayout,
  readCurrent,
} from "../extensions/llm-wiki/lib/index/layout.ts";
import {
  manifestMarkOf,
  readManifest,
  readManifestMark,
} from "../extensions/llm-wiki/lib/index/mirror.ts";
import type { VaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { Registry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const WORDS = ["zephyr", "narwhal", "quokka", "pangolin", "axolotl", "okapi", "tapir", "dingo"];
const TYPES = ["concept", "entity", "source", "decision"] as const;

function liveGeneration(paths: VaultPaths): GenerationPaths {
  const layout = indexLayout(paths);
  const name = readCurrent(layout);
  if (name === undefined) throw new Error("no live generation");
  return generationPaths(layout, name);
}

/** A page of random type, words and links (to existing ids, titles or nothing). */
function randomPage(r: CorpusRandom, ids: readonly string[], title: string): string {
  const words = Array.from({ length: r.between(3, 9) }, () => r.pick(WORDS)).join(" ");
  const links = Array.from({ length: r.between(0, 3) }, () => {
    const roll = r.int(5);
    // By a basename that may belong to no page yet, or to several: an added
    // or removed page changes what it resolves to.
    if (roll === 4) return `[[p${r.int(ids.length + 4)}]]`;
    if (roll === 0 || ids.length === 0) return `[[missing-${r.int(5)}]]`;
    const id = r.pick(ids);
    return roll === 1 ? `[[${id}]]` : `[[${id.split("/").pop()}]]`;
  }).join(" ");
  return pageText({ type: r.pick(TYPES), title }, `${words}\n\n${links}\n`);
}

/** What the index and registry hold, in a form a cold rebuild's can be compared with. */
function stateOf(service: WikiService, vault: TempVault) {
  const gen = liveGeneration(vault.paths);
  const manifest = readManifest(gen);
  if (!manifest) throw new Error("no manifest");
  const entries = Object.entries(manifest.entries).sort(([a], [b]) => (a < b ? -1 : 1));
  const store = readStoreStatus(gen);
  const status = service.status().vault?.index;
  const registry: Registry = service.handles.get(vault.paths).registry();
  return {
    manifest: entries,
    // The mark on disk must be the one its manifest gives.
    mark: readManifestMark(gen),
    markOfManifest: manifestMarkOf(manifest),
    store: store && { documents: store.documents, needsEmbedding: store.needsEmbedding },
    status: status && {
      state: status.state,
      documents: status.documents,
      canonical: status.canonical,
      evidence: status.evidence,
      pending: status.pending,
      needsEmbedding: status.needsEmbedding,
    },
    registry: {
      pages: [...registry.pages.entries()],
      hashes: [...registry.hashes.entries()],
      secretPages: [...registry.secretPages].sort(),
      links: [...registry.links.entries()].sort(),
      backlinks: [...registry.backlinks.entries()].sort(),
      linkProblems: registry.linkProblems,
      relations: registry.snapshot.relationGraph.toSaved(),
    },
    // The file the older package reads, rewritten only when a resolved link moved.
    backlinksFile: readFileSync(vault.paths.backlinks, "utf8"),
  };
}

/** Applies one random operation; returns the files it wrote or removed. */
function step(r: CorpusRandom, vault: TempVault, live: Set<string>, next: () => string): string[] {
  const ids = [...live].sort();
  const roll = r.int(10);
  if (ids.length === 0 || roll < 3) {
    const id = next();
    // Now and then an exact copy of another page: two documents, one content hash.
    const text =
      ids.length > 0 && r.int(4) === 0
        ? vault.readPage(r.pick(ids))
        : randomPage(r, ids, `Page ${id}`);
    live.add(id);
    return [vault.writePage(id, text)];
  }
  const id = r.pick(ids);
  if (roll < 6) {
    // An edit: new words, links or type (so role), a malformed page, or the same bytes touched.
    const kind = r.int(6);
    if (kind === 0) {
      const file = vault.pageFile(id);
      const t = 1_700_000_000 + r.int(1_000_000);
      utimesSync(file, t, t);
      return [file];
    }
    if (kind === 1) return [vault.writePage(id, "---\ntype: [unclosed\n---\nbroken\n")];
    return [
      vault.writePage(id, randomPage(r, ids, r.int(3) === 0 ? `Renamed ${id}` : `Page ${id}`)),
    ];
  }
  if (roll < 8) {
    const to = next();
    const text = vault.readPage(id);
    rmSync(vault.pageFile(id));
    live.delete(id);
    live.add(to);
    return [vault.pageFile(id), vault.writePage(to, text)];
  }
  rmSync(vault.pageFile(id));
  live.delete(id);
  return [vault.pageFile(id)];
}

async function reindexed(service: WikiService, paths?: string[]): Promise<void> {
  const result = await service.reindex({ scope: "changed", ...(paths ? { paths } : {}) });
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  expect(result.reports[0]?.action).not.toBe("rebuild");
}

describe("incremental index state is the state a rebuild from nothing gives", () => {
  it("after random adds, edits, renames and deletes, named or found by a walk", async () => {
    const seed = Number(process.env.INCREMENTAL_SEED) || Math.floor(Math.random() * 2 ** 31);
    const note = `seed ${seed} (INCREMENTAL_SEED=${seed} replays this run)`;
    const r = new CorpusRandom(seed);
    const vault = makeTempVault();
    const live = new Set<string>();
    let n = 0;
    // Now and then a number again in another folder: two pages, one basename.
    const next = () => {
      n += 1;
      const number = r.int(4) === 0 ? r.int(n) : n;
      const id = `${r.pick(["concepts", "sources", "notes"])}/p${number}`;
      return live.has(id) ? `notes/p${n}x` : id;
    };
    for (let i = 0; i < 6; i += 1) step(r, vault, live, next);
    const service = serviceFor(vault.root);
    const first = await service.reindex({ scope: "all" });
    expect(first.ok, note).toBe(true);

    for (let round = 0; round < 40; round += 1) {
      const files = step(r, vault, live, next);
      // Most writes are named by the host that made them; some are found by walking.
      await reindexed(service, r.int(4) === 0 ? undefined : files);
      // A recall right after trusts the registry the reindex made current.
      if (r.int(5) === 0) await service.recall({ query: r.pick(WORDS), mode: "lexical" });
    }
    // Last, edits of accepted pages only: the registry is patched, not built
    // anew, so what the patch leaves (links, backlinks.json) is what is compared.
    for (let round = 0; round < 12; round += 1) {
      const accepted = [...service.handles.get(vault.paths).registry().pages.keys()];
      if (accepted.length === 0) break;
      const id = r.pick(accepted);
      const file = vault.writePage(id, randomPage(r, accepted, `Page ${id}`));
      await reindexed(service, [file]);
    }
    const incremental = stateOf(service, vault);
    await closeServices();

    rmSync(vault.paths.registryCache, { recursive: true, force: true });
    const cold = serviceFor(vault.root);
    const rebuilt = await cold.reindex({ scope: "all" });
    expect(rebuilt.ok, note).toBe(true);
    const scratch = stateOf(cold, vault);

    expect(incremental.mark, note).toEqual(incremental.markOfManifest);
    expect(incremental.status?.state, note).toBe("ready");
    expect(incremental.manifest, note).toEqual(scratch.manifest);
    expect(incremental.mark, note).toEqual(scratch.mark);
    expect(incremental.store, note).toEqual(scratch.store);
    expect(incremental.status, note).toEqual(scratch.status);
    expect(incremental.registry, note).toEqual(scratch.registry);
    expect(incremental.backlinksFile, note).toBe(scratch.backlinksFile);
  }, 120_000);
});
