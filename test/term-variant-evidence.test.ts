/**
 * A word's other spellings rank pages but are no evidence of the word:
 * "SwiftUI" is searched as itself, as its camelCase parts ("swift", "ui")
 * and joined with its neighbour, so a page that says "swift" still ranks;
 * but automatic recall's evidence counts only the word as written, so a
 * page about Swift bindings is no evidence of a SwiftUI question. Coined
 * words, drawn afresh on every run, on a real index.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const head = randomWord(6, 9);
const tail = randomWord(4, 6);
const word = `${head}${tail}`;
const camel = `${head[0]?.toUpperCase()}${head.slice(1)}${tail[0]?.toUpperCase()}${tail.slice(1)}`;
const context = `"${camel}" (parts ${head}, ${tail})`;
let service: WikiService;

beforeAll(async () => {
  const vault = makeTempVault({
    pages: {
      "entities/the-app": pageText(
        { type: "entity", title: "The app" },
        `The app's screens are written in ${camel}; every ${camel} view reads one store.`,
      ),
      "entities/the-core": pageText(
        { type: "entity", title: "The core library" },
        `The core library has ${head} bindings and a ${tail} layer for each platform.`,
      ),
      "concepts/other": pageText({ type: "concept", title: "Other" }, "Nothing of either here."),
    },
  });
  service = serviceFor(vault.root, {
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  expect((await service.reindex({ scope: "all" })).ok).toBe(true);
});

afterAll(async () => {
  await closeServices();
  removeTempDirs();
});

describe("a word's other spellings", () => {
  it("still find the page that holds only the word's parts", async () => {
    const r = await service.recall({ query: camel });
    expect(r.results.map((x) => x.id).sort(), context).toEqual([
      "entities/the-app",
      "entities/the-core",
    ]);
  });

  it("are no evidence of the word: only the page that holds it as written has any", async () => {
    const r = await service.recall({ query: `${camel} list view`, explain: true });
    const evidenceOf = (id: string) =>
      r.results.find((x) => x.id === id)?.why?.evidence?.terms.find((t) => t.term === word)
        ?.evidence;
    expect(evidenceOf("entities/the-app"), context).toBeGreaterThan(1);
    expect(evidenceOf("entities/the-core"), context).toBe(0);
  });
});
