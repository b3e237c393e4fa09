/**
 * A new vault is small: an agent writes two or three notes, then asks about
 * them. In a vault that small a topical word is on most pages, so the
 * vault's own IDF calls it common; below MIN_IDF_PAGES pages the pages the
 * vault lacks are taken to hold a word at its share in general text. Then a
 * question about the vault's topic reaches its notes under automatic recall
 * (before, nothing did below a dozen pages), while ordinary prompts still
 * get nothing, and from MIN_IDF_PAGES pages on nothing changes.
 */
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { idf, MIN_IDF_PAGES } from "../extensions/llm-wiki/lib/lexical/bm25.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const ORDINARY = [
  "write a haiku about autumn leaves",
  "tell me a joke",
  "fix the failing parser test in module foo",
  "add a button to the settings page",
  "rename this variable to camelCase and run the tests",
];

/**
 * A vault of `size` notes, `held` of them about `topic` (up to three: in a
 * new vault a topic is on most of its pages) and the others about words of
 * their own.
 */
function topicVault(topic: string, size: number, held: number) {
  const pages: Record<string, string> = {};
  for (let i = 0; i < size; i++) {
    const own = randomWord(6, 9);
    const about = i < held ? topic : randomWord(7, 10);
    pages[`concepts/${about}-${own}`] = pageText(
      { type: "concept", title: `${about} ${own}`, status: "stable" },
      `What the team agreed about ${about}: ${own} is reviewed by its owner every quarter.\n`,
    );
  }
  return makeTempVault({ pages });
}

describe("IDF in a small vault", () => {
  it("pads a vault under MIN_IDF_PAGES pages with pages holding the word at its general share", () => {
    // A word rare in general text, on both pages of a two-page vault, tells the vault apart.
    expect(idf(2, 2)).toBeLessThan(0.2);
    expect(idf(2, 2, 0.0003)).toBeGreaterThan(1);
    // A word common in general text stays common.
    expect(idf(2, 2, 0.5)).toBeLessThan(1);
  });

  it("leaves a vault of MIN_IDF_PAGES pages or more to its own counts", () => {
    const pages = MIN_IDF_PAGES + randomInt(0, 500);
    const df = randomInt(0, pages + 1);
    expect(idf(pages, df, Math.random())).toBe(idf(pages, df));
  });
});

describe("automatic recall in a small vault", () => {
  const seed = randomInt(1, 2 ** 31);
  const size = 1 + (seed % (MIN_IDF_PAGES - 1));
  const held = Math.min(size, 1 + (seed % 3));
  const topic = randomWord(7, 10);

  it(`answers a question about the topic its notes hold (${held} of ${size} pages, topic ${topic})`, async () => {
    const vault = topicVault(topic, size, held);
    const service = serviceFor(vault.root);
    expect((await service.reindex({})).ok).toBe(true);
    const result = await service.recall({
      // Every word of it is in the notes: a word none holds would weigh against them all.
      query: `how is ${topic} reviewed`,
      policy: "automatic",
    });
    expect(result.results.length).toBeGreaterThan(0);
    expect(result.rendered).toContain(topic);
    for (const prompt of ORDINARY) {
      const ordinary = await service.recall({ query: prompt, policy: "automatic" });
      expect(ordinary.results, prompt).toEqual([]);
    }
  });

  it("shows two freshly written notes that contradict each other as one conflict", async () => {
    const vault = makeTempVault({
      pages: {
        "decisions/backup-schedule": pageText(
          { type: "decision", title: "Backup schedule", status: "draft" },
          "We back up the production database nightly to S3 at 02:00 UTC.\n",
        ),
        "decisions/backup-snapshots": pageText(
          { type: "decision", title: "Backup snapshots", status: "draft" },
          "We take hourly snapshots of the database to GCS.\n\n> Contradiction: the schedule says nightly, see [[backup-schedule]]\n",
        ),
      },
    });
    const service = serviceFor(vault.root);
    expect((await service.reindex({})).ok).toBe(true);
    const result = await service.recall({ query: "database backups", policy: "automatic" });
    expect(result.results.map((r) => r.id).sort()).toEqual([
      "decisions/backup-schedule",
      "decisions/backup-snapshots",
    ]);
    expect(result.conflicts).toHaveLength(1);
  });
});
