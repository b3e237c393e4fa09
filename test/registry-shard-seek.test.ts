/**
 * A registry record sought in its shard file (vault/registry-shard-seek.ts)
 * is the record the whole file parses to, for every key, and nothing for a
 * key the shard does not hold: shards written by the cache's own writer,
 * large enough to be bisected, with keys and values made to mislead a byte
 * search (quotes, backslashes, non-ASCII, text that looks like a record's
 * key, values longer than any single read). Fresh seed each run, printed on
 * failure (SHARD_SEEK_SEED replays one).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CacheSnapshot,
  REGISTRY_SHARDS,
  type RegistryRecord,
  recordInShardFile,
  type ShardRecords,
  saveCache,
  shardOf,
} from "../extensions/llm-wiki/lib/vault/registry-cache.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

/** Characters that trip a byte search: quotes, backslashes, commas, braces, non-ASCII. */
const TRICKY = 'ab-_ /"\\,:{}[]é日\u0001\u2028';

function randomRel(r: CorpusRandom): string {
  const folder = r.pick(["concepts", "sources", "entities", "ü", "a b"]);
  const name =
    r.int(4) === 0 ? r.chars(TRICKY, r.between(1, 8)) : r.chars("abcxyz-0", r.between(1, 10));
  return `wiki/${folder}/${name}.md`;
}

/** Text that looks like the start of a record, in places where it is only a string. */
function decoy(r: CorpusRandom): string {
  return r.pick([
    `,"${randomRel(r)}":{`,
    `{"${randomRel(r)}":{"hash":"x"}`,
    randomRel(r),
    '"wiki/',
  ]);
}

function randomRecord(r: CorpusRandom, rel: string): RegistryRecord {
  const id = rel.slice("wiki/".length, -".md".length);
  // Some records are longer than any single read of the seek, most are short.
  const long = r.int(8) === 0 ? r.chars(TRICKY, 500).repeat(r.between(8, 80)) : "";
  const rec = {
    size: r.int(100_000),
    mtimeMs: 1_700_000_000_000 + r.int(1_000_000),
    hash: r.chars("0123456789abcdef", 64),
    meta: {
      id,
      path: rel,
      title: `${r.chars(TRICKY, r.between(0, 20))}${decoy(r)}${long}`,
      aliases: [randomRel(r), decoy(r)],
      role: "canonical",
      type: "concept",
    },
    links: Array.from({ length: r.between(0, 4) }, () => ({
      target: randomRel(r),
      text: decoy(r),
    })),
  };
  return rec as unknown as RegistryRecord;
}

describe("a record sought in its shard file", () => {
  it("is the record the whole shard parses to, for every key; nothing for a key not there", () => {
    const seed = Number(process.env.SHARD_SEEK_SEED) || Math.floor(Math.random() * 2 ** 31);
    const note = `seed ${seed} (SHARD_SEEK_SEED=${seed} replays this run)`;
    const r = new CorpusRandom(seed);
    const vault = makeTempVault();
    const shards: ShardRecords[] = Array.from({ length: REGISTRY_SHARDS }, () => ({}));
    const rels = new Set<string>();
    while (rels.size < 1_500) rels.add(randomRel(r));
    for (const rel of rels) (shards[shardOf(rel)] as ShardRecords)[rel] = randomRecord(r, rel);
    const empty: CacheSnapshot = { shards: [], stamps: Array(REGISTRY_SHARDS).fill("") };
    saveCache(vault.paths, shards, shards.keys(), empty, []);

    // Large enough that the seek bisects rather than reading each shard whole.
    const sizes = readdirSync(vault.paths.registryCache).map(
      (name) => statSync(join(vault.paths.registryCache, name)).size,
    );
    const median = [...sizes].sort((a, b) => a - b)[sizes.length >> 1] ?? 0;
    expect(median, note).toBeGreaterThan(64 * 1024);

    const onDisk = new Map<string, unknown>();
    for (const name of readdirSync(vault.paths.registryCache)) {
      const text = readFileSync(join(vault.paths.registryCache, name), "utf8");
      for (const [rel, rec] of Object.entries((JSON.parse(text) as { files: object }).files))
        onDisk.set(rel, rec);
    }
    expect(onDisk.size, note).toBe(rels.size);
    for (const [rel, rec] of onDisk) expect(recordInShardFile(vault.paths, rel), note).toEqual(rec);

    // Keys the shards do not hold: before the first, between two, after the last, and decoys.
    const absent = ["wiki/", "wiki/\u0000", "wiki/\uffff.md"];
    while (absent.length < 300) {
      const rel = r.int(3) === 0 ? decoy(r) : randomRel(r);
      if (!rels.has(rel)) absent.push(rel);
    }
    for (const rel of absent)
      expect(recordInShardFile(vault.paths, rel), `${note}: ${rel}`).toBeUndefined();
  });

  it("finds nothing in a shard file that is absent, empty or of another version", () => {
    const vault = makeTempVault();
    const rel = "wiki/concepts/rag.md";
    expect(recordInShardFile(vault.paths, rel)).toBeUndefined();
    const shards: ShardRecords[] = Array.from({ length: REGISTRY_SHARDS }, () => ({}));
    const r = new CorpusRandom(1);
    (shards[shardOf(rel)] as ShardRecords)[rel] = randomRecord(r, rel);
    const empty: CacheSnapshot = { shards: [], stamps: Array(REGISTRY_SHARDS).fill("") };
    saveCache(vault.paths, shards, [shardOf(rel)], empty, []);
    expect(recordInShardFile(vault.paths, rel)).toEqual(
      JSON.parse(JSON.stringify(shards[shardOf(rel)]?.[rel])),
    );
    const file = join(vault.paths.registryCache, `${String(shardOf(rel)).padStart(2, "0")}.json`);
    const text = readFileSync(file, "utf8");
    saveCache(
      vault.paths,
      Array.from({ length: REGISTRY_SHARDS }, () => ({})),
      [shardOf(rel)],
      empty,
      [],
    );
    expect(recordInShardFile(vault.paths, rel)).toBeUndefined();
    // The same bytes under another version's head are not read as this version's.
    const older = text.replace(/^\{"version":\d+/, '{"version":1');
    writeFileSync(file, older);
    expect(recordInShardFile(vault.paths, rel)).toBeUndefined();
  });
});
