/**
 * The mirror manifest: written whole by a rebuild, then kept by appending one
 * line per changed page (mirror.ts `recordManifest`), so a change costs a line,
 * not a megabyte, and a reader always sees base + log.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { generationPaths } from "../extensions/llm-wiki/lib/index/layout.ts";
import {
  emptyManifest,
  MANIFEST_LOG_LIMIT,
  type Manifest,
  type ManifestEntry,
  readManifest,
  recordManifest,
  writeManifest,
} from "../extensions/llm-wiki/lib/index/mirror.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

function generation() {
  const root = makeTempDir("llm-wiki-manifest-");
  const gen = generationPaths({ root, pointer: "", journal: "", state: "", lock: "" }, "gen-test");
  mkdirSync(gen.dir, { recursive: true });
  return gen;
}

const entry = (hash: string): ManifestEntry => ({
  hash,
  role: "canonical",
  collection: "canonical-0",
});

function withEntries(base: Manifest, entries: Record<string, ManifestEntry>): Manifest {
  return { ...base, entries };
}

describe("the manifest change log", () => {
  it("appends only the changed ids and leaves manifest.json as the rebuild wrote it", () => {
    const gen = generation();
    const base = withEntries(emptyManifest(8), { a: entry("1"), b: entry("2"), c: entry("3") });
    writeManifest(gen, base);
    const written = readFileSync(gen.manifest, "utf8");
    const { c: _gone, ...kept } = base.entries;
    const next = withEntries(base, { ...kept, b: entry("2b"), d: entry("4") });
    recordManifest(gen, base, next, ["b", "c", "d", "a"]);
    expect(readFileSync(gen.manifest, "utf8")).toBe(written);
    expect(readFileSync(gen.manifestLog, "utf8").trim().split("\n")).toHaveLength(3);
    expect(readManifest(gen)?.entries).toEqual({
      a: entry("1"),
      b: entry("2b"),
      d: entry("4"),
    });
  });

  it("ignores a torn last line (a crash mid-append): that page is simply written again", () => {
    const gen = generation();
    const base = withEntries(emptyManifest(8), { a: entry("1"), b: entry("2") });
    writeManifest(gen, base);
    recordManifest(gen, base, withEntries(base, { ...base.entries, a: entry("1a") }), ["a"]);
    appendFileSync(gen.manifestLog, '{"id":"b","entry":{"hash":"2b","ro');
    expect(readManifest(gen)?.entries).toEqual({ a: entry("1a"), b: entry("2") });
  });

  it("writes the manifest whole again once the log grows past its limit", () => {
    const gen = generation();
    let current = withEntries(emptyManifest(8), { a: entry("0") });
    writeManifest(gen, current);
    const record = (i: number) => {
      current = recordManifest(gen, current, withEntries(current, { a: entry(String(i)) }), ["a"]);
    };
    for (let i = 1; i <= MANIFEST_LOG_LIMIT; i += 1) record(i);
    expect(existsSync(gen.manifestLog)).toBe(true);
    const last = String(MANIFEST_LOG_LIMIT + 1);
    record(MANIFEST_LOG_LIMIT + 1);
    expect(existsSync(gen.manifestLog)).toBe(false);
    expect(JSON.parse(readFileSync(gen.manifest, "utf8")).entries).toEqual({ a: entry(last) });
    expect(readManifest(gen)?.entries).toEqual({ a: entry(last) });
  });
});
