/**
 * A cache on disk is served to the next build that reads it: when the same
 * page derives a different record or different name keys, the cache's
 * version has changed too, or an upgraded install keeps the old reading
 * (an untyped note still rejected, "Redis (ElastiCache)" still not named
 * Redis, the index searching a page's old title) until each page happens to
 * be edited. The index's version is INDEX_FORMAT: a generation of an older
 * one answers until the next update rebuilds it. The record is rewritten with
 * `node scripts/derived-versions.ts`, after the version is raised.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DerivedRecord, derive, fixturePages } from "./helpers/derived-fingerprints.ts";

const REPO = join(import.meta.dirname, "..");
const recorded = JSON.parse(
  readFileSync(join(REPO, "test", "fixtures", "derived-versions.json"), "utf8"),
) as DerivedRecord;
const now = derive(fixturePages(join(REPO, "test", "fixtures")));

describe("the caches derived from pages are versioned by what they derive", () => {
  for (const cache of ["registryCache", "names", "index"] as const) {
    it(`${cache}: the same page derives the same, or the version moved on`, () => {
      const changed = Object.keys(recorded[cache].pages).filter(
        (key) => key in now[cache].pages && now[cache].pages[key] !== recorded[cache].pages[key],
      );
      if (now[cache].version === recorded[cache].version) {
        expect(
          changed.length,
          `${changed.length} page(s) derive differently under the same ${cache} version: raise it, then run node scripts/derived-versions.ts`,
        ).toBe(0);
      } else {
        expect(now[cache].version, "a version only moves forward").toBeGreaterThan(
          recorded[cache].version,
        );
      }
    });
  }

  it("the record covers the fixtures' pages and names the current versions", () => {
    expect(Object.keys(now.registryCache.pages).length).toBeGreaterThan(300);
    expect(recorded.registryCache.version, "run node scripts/derived-versions.ts").toBe(
      now.registryCache.version,
    );
    expect(recorded.names.version, "run node scripts/derived-versions.ts").toBe(now.names.version);
    expect(recorded.index.version, "run node scripts/derived-versions.ts").toBe(now.index.version);
  });
});
