import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { detachedStrings } from "../extensions/llm-wiki/lib/vault/detached-strings.ts";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const PAGES = 200;
const BODY_BYTES = 40_000;

function writePages(wiki: string, seed: number): void {
  for (let i = 0; i < PAGES; i += 1) {
    // Distinct filler per page, so no two texts share storage.
    const filler = `${seed}-${i} lorem ipsum dolor sit amet `.repeat(BODY_BYTES / 30);
    const body = `Links to [[page-number-${(i + 1) % PAGES}]].\n${filler}\n`;
    writeFileSync(
      join(wiki, `page-number-${i}.md`),
      pageText(
        {
          type: "concept",
          title: `A long enough title for page number ${i}`,
          description: `A description long enough to be a view, page ${i}`,
          aliases: `[an alias of page number ${i}]`,
        },
        body,
      ),
    );
  }
}

describe("registry memory", () => {
  it("keeps no page's text alive through the strings of its record", () => {
    const warm = makeTempVault();
    writePages(warm.paths.wiki, 1);
    refreshRegistry(warm.paths, undefined, { readOnly: true }); // code compiled, caches filled
    const vault = makeTempVault();
    writePages(vault.paths.wiki, 2);
    const before = heapAfterGc();
    const registry: Registry = refreshRegistry(vault.paths, undefined, { readOnly: true });
    const held = heapAfterGc() - before;
    expect(registry.pages.size).toBe(PAGES);
    // The texts alone are PAGES × BODY_BYTES (8 MB); the records are a small part of that.
    expect(held).toBeLessThan((PAGES * BODY_BYTES) / 4);
  });

  it("copies values exactly: order, undefined values, nested arrays, other objects as they are", () => {
    const date = new Date(0);
    const text = `${"x".repeat(100)}a title in a long text${"y".repeat(100)}`;
    const value = {
      b: text.slice(100, 122),
      a: [text.slice(90, 130), 1, null, { c: undefined, d: true }],
      date,
      short: "abc",
    };
    const copy = detachedStrings(value);
    expect(copy).toStrictEqual(value);
    expect(Object.keys(copy)).toEqual(["b", "a", "date", "short"]);
    expect(Object.keys(copy.a[3] as object)).toEqual(["c", "d"]);
    expect(copy.date).toBe(date);
    expect(copy).not.toBe(value);
    expect(copy.a).not.toBe(value.a);
  });
});
