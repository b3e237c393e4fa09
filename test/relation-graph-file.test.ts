/**
 * The saved relation graph's file (vault/relation-graph-file.ts): a page's
 * declared edges, in either direction, are found by bisecting sorted lines,
 * exactly as the graph held them, whatever its page ids hold (quotes,
 * backslashes, tabs, newlines, ids that prefix one another); a file that is
 * not as stamped, or not of this layout, is not used; a malformed line is
 * reported when its page is asked.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileStamp } from "../extensions/llm-wiki/lib/vault/registry-cache.ts";
import {
  byFrom,
  byTo,
  type SavedRelations,
} from "../extensions/llm-wiki/lib/vault/relation-graph.ts";
import {
  openSavedRelations,
  SavedRelationsInvalid,
  saveRelations,
} from "../extensions/llm-wiki/lib/vault/relation-graph-file.ts";
import { RELATION_TYPES, type RelationEdge } from "../extensions/llm-wiki/lib/vault/relations.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const SEED = Number(process.env.RELATIONS_FILE_SEED || Math.floor(Math.random() * 2 ** 31));
const note = `relations file seed ${SEED} (replay: RELATIONS_FILE_SEED=${SEED})`;

/** Page ids as a hostile vault may name them, some prefixes of others. */
function idsFrom(r: CorpusRandom, count: number): string[] {
  const odd = ['"', "\\", "\t", "\n", "é", "猫", " ", "/", "\u2028", "a"];
  const ids = new Set<string>(["concepts/a", "concepts/a/b", "concepts/a\t", "concepts/ab"]);
  while (ids.size < count) {
    const parts = Array.from({ length: r.between(1, 4) }, () =>
      r.int(3) === 0 ? r.pick(odd) : r.pick(["crane", "quay", "ledger", "x", "y"]),
    );
    ids.add(`${r.pick(["concepts", "entities", "sources"])}/${parts.join("")}`);
  }
  return [...ids];
}

/** A graph as `toSaved` hands it over: each declaring page's edges in `byTo` order, pages in id order. */
function randomGraph(r: CorpusRandom, ids: readonly string[]): SavedRelations {
  const types = RELATION_TYPES.filter((t) => t !== "contradicts");
  const declared = new Map<string, RelationEdge[]>();
  for (const from of ids) {
    if (r.int(3) === 0) continue;
    const edges: RelationEdge[] = [];
    for (let n = r.between(1, 5); n > 0; n -= 1) {
      const to = r.pick(ids);
      if (to === from) continue;
      const edge: RelationEdge =
        r.int(5) === 0
          ? { from, to, type: "contradicts", origin: "text" }
          : { from, to, type: r.pick(types) };
      if (edge.type === "applies_under") edge.scope = r.pick(["web", "batch\tjobs", 'say "x"']);
      edges.push(edge);
    }
    if (edges.length > 0) declared.set(from, edges.sort(byTo));
  }
  const edges = [...declared.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap((id) => declared.get(id) ?? []);
  return { edges, resolutions: [] };
}

describe("the saved relation graph's file", () => {
  it.each([
    ["a small graph", 30, 120],
    ["a graph over many probes' worth of bytes", 2000, 3000],
  ])(
    "gives each page's edges both ways in %s, as the graph held them, by bisection",
    (_, min, max) => {
      const r = new CorpusRandom(SEED + max);
      const ids = idsFrom(r, r.between(min, max));
      const saved = randomGraph(r, ids);
      const vault = makeTempVault({ pages: {} });
      const stamp = saveRelations(vault.paths, saved);
      const opened = openSavedRelations(vault.paths, stamp);
      if (!opened) throw new Error(`the file saved did not open; ${note}`);
      for (const id of [...ids, "concepts/absent", "concepts/", "concepts/a\t\t"]) {
        const out = saved.edges.filter((e) => e.from === id);
        const incoming = saved.edges.filter((e) => e.to === id).sort(byFrom);
        expect(opened.declared.from(id), `${note}: out of ${JSON.stringify(id)}`).toEqual(
          out.length > 0 ? out : undefined,
        );
        expect(opened.declared.to(id), `${note}: in of ${JSON.stringify(id)}`).toEqual(
          incoming.length > 0 ? incoming : undefined,
        );
      }
      expect(saved.edges.length, note).toBeGreaterThan(0);
    },
  );

  it("is not used when not as stamped, or when its header is of a layout it does not know", () => {
    const r = new CorpusRandom(SEED);
    const vault = makeTempVault({ pages: {} });
    const saved = randomGraph(r, idsFrom(r, 20));
    const stamp = saveRelations(vault.paths, saved);
    expect(openSavedRelations(vault.paths, "")).toBeUndefined();
    expect(openSavedRelations(vault.paths, `${stamp}0`)).toBeUndefined();
    const file = join(vault.paths.registryCache, "relations.json");
    writeFileSync(file, `${JSON.stringify({ version: 9, ...saved })}\n`);
    expect(openSavedRelations(vault.paths, fileStamp(file))).toBeUndefined();
    writeFileSync(
      file,
      `${JSON.stringify({ version: 2, edges: [{ from: 1 }], resolutions: [] })}\n`,
    );
    expect(openSavedRelations(vault.paths, fileStamp(file))).toBeUndefined();
  });

  it("reads a version 2 file (one JSON document) whole, with the same answers, until it is written anew", () => {
    const r = new CorpusRandom(SEED);
    const ids = idsFrom(r, r.between(30, 120));
    const saved = randomGraph(r, ids);
    const vault = makeTempVault({ pages: {} });
    const file = join(vault.paths.registryCache, "relations.json");
    saveRelations(vault.paths, saved);
    const current = openSavedRelations(vault.paths, fileStamp(file));
    // As the previous release wrote it.
    writeFileSync(file, `${JSON.stringify({ version: 2, ...saved })}\n`);
    const legacy = openSavedRelations(vault.paths, fileStamp(file));
    if (!current || !legacy) throw new Error(`a file did not open; ${note}`);
    for (const id of [...ids, "concepts/absent"]) {
      expect(legacy.declared.from(id), `${note}: out of ${JSON.stringify(id)}`).toEqual(
        current.declared.from(id),
      );
      expect(legacy.declared.to(id), `${note}: in of ${JSON.stringify(id)}`).toEqual(
        current.declared.to(id),
      );
    }
  });

  it("refuses to read a large file replaced after it was opened; a small one was read whole at opening", () => {
    const r = new CorpusRandom(SEED);
    const vault = makeTempVault({ pages: {} });
    const file = join(vault.paths.registryCache, "relations.json");
    const large = randomGraph(r, idsFrom(r, 2500));
    const small = randomGraph(r, idsFrom(r, 20));
    // Large: read per question, so a question after the file changed cannot trust it.
    const opened = openSavedRelations(vault.paths, saveRelations(vault.paths, large));
    if (!opened) throw new Error(`the file did not open; ${note}`);
    saveRelations(vault.paths, small);
    const asked = large.edges[0]?.from ?? "";
    expect(() => opened.declared.from(asked), note).toThrow(SavedRelationsInvalid);
    // Small: its bytes were taken with its stamp, and answer as they were.
    const held = openSavedRelations(vault.paths, fileStamp(file));
    if (!held) throw new Error(`the file did not open; ${note}`);
    saveRelations(vault.paths, large);
    const id = small.edges[0]?.from ?? "";
    expect(held.declared.from(id), note).toEqual(small.edges.filter((e) => e.from === id));
  });

  it("reports a malformed line when its page is asked, not before", () => {
    const vault = makeTempVault({ pages: {} });
    const good: RelationEdge = { from: "concepts/a", to: "concepts/b", type: "supports" };
    const bad: RelationEdge = { from: "concepts/c", to: "concepts/b", type: "qualifies" };
    saveRelations(vault.paths, { edges: [good, bad], resolutions: [] });
    const file = join(vault.paths.registryCache, "relations.json");
    // The edge of C now names a relation type nobody knows.
    writeFileSync(file, readFileSync(file, "utf8").replaceAll('"qualifies"', '"qualifier"'));
    const opened = openSavedRelations(vault.paths, fileStamp(file));
    if (!opened) throw new Error("the file did not open");
    expect(opened.declared.from("concepts/a")).toEqual([good]);
    expect(() => opened.declared.from("concepts/c")).toThrow(SavedRelationsInvalid);
    expect(() => opened.declared.to("concepts/b")).toThrow(SavedRelationsInvalid);
  });
});
