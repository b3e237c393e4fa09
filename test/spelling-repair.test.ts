/**
 * A typo in a question still finds the page: a word on no page and not an
 * ordinary word is read as the vault's own word one edit away. Ordinary
 * words are never bent into vault words, and a word the vault holds is
 * never changed. Each run draws its own vocabulary and typos; the seed is
 * printed on failure.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backgroundCount } from "../extensions/llm-wiki/lib/lexical/background.ts";
import { isEnglishStem } from "../extensions/llm-wiki/lib/lexical/english-words.ts";
import { ftsTokens } from "../extensions/llm-wiki/lib/lexical/fts-tokens.ts";
import {
  oneEditAway,
  repairable,
  spellingRepairs,
} from "../extensions/llm-wiki/lib/lexical/spelling.ts";
import { repairedNames } from "../extensions/llm-wiki/lib/name-typos.ts";
import { renderRecallResult } from "../extensions/llm-wiki/lib/render-text.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { renderStems } from "../scripts/build-english-stems.ts";
import { renderSoftwareStems } from "../scripts/build-software-names.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const seed = Math.floor(Math.random() * 2 ** 31);
function rng(start: number): () => number {
  let s = start >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}
const random = rng(seed);
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const letter = () => LETTERS[Math.floor(random() * LETTERS.length)] ?? "a";

/** One random edit of `word`: a letter dropped, added, changed, or two swapped. */
function typoOf(word: string): string {
  for (;;) {
    const at = Math.floor(random() * (word.length - 1)) + 1;
    const kind = Math.floor(random() * 4);
    const typo =
      kind === 0
        ? word.slice(0, at) + word.slice(at + 1)
        : kind === 1
          ? word.slice(0, at) + letter() + word.slice(at)
          : kind === 2
            ? word.slice(0, at) + letter() + word.slice(at + 1)
            : word.slice(0, at - 1) + word[at] + word[at - 1] + word.slice(at + 1);
    const [stem] = ftsTokens(typo);
    if (typo !== word && stem !== ftsTokens(word)[0] && backgroundCount(stem ?? "") === 0)
      return typo;
  }
}

/** Words no ordinary text uses, so the background model lists none of them. */
function coinedWord(): string {
  for (;;) {
    const word = randomWord(7, 10);
    const [stem = ""] = ftsTokens(word);
    if (backgroundCount(stem) === 0 && !isEnglishStem(stem)) return word;
  }
}

describe("spellings one edit away", () => {
  it("covers a dropped, added, changed and swapped letter, and not the word itself", () => {
    const word = coinedWord();
    const near = new Set(oneEditAway(word));
    expect(near.has(word)).toBe(false);
    expect(near.has(word.slice(1))).toBe(true);
    expect(near.has(`${word}s`)).toBe(true);
    expect(near.has(`${word[1]}${word[0]}${word.slice(2)}`) || word[0] === word[1]).toBe(true);
    expect(near.has(`z${word.slice(1)}`) || word[0] === "z").toBe(true);
  });

  it("repairs only a typed word that no page holds and ordinary writing does not use", () => {
    const word = coinedWord();
    expect(repairable(word, 0)).toBe(true);
    expect(repairable(word, 3)).toBe(false);
    // Ordinary words the vault lacks stay as typed: "keyboard" is not a typo of a vault word.
    for (const ordinary of ["keyboard", "recommend", "mechanical", "deploy"])
      expect(repairable(ordinary, 0), ordinary).toBe(false);
    expect(repairable(word.slice(0, 4), 0), "too short to guess").toBe(false);
    expect(repairable(`${word}_x`, 0), "identifiers are not typed words").toBe(false);
  });

  it("never reads an English word as a typo, however rare in software English", () => {
    const root = join(import.meta.dirname, "..");
    const words = readFileSync(join(root, "node_modules", "dictionary-en", "index.dic"), "utf8")
      .split("\n")
      .map((line) => line.split("/")[0] ?? "")
      .filter((w) => /^[a-z]{5,24}$/.test(w));
    const next = rng(seed);
    const drawn = Array.from({ length: 300 }, () => words[Math.floor(next() * words.length)] ?? "");
    // The words software English lacks, which spelling repair once bent into a vault's words.
    for (const word of [...drawn, "senior", "salary", "lunch", "cafeteria"])
      expect(repairable(word, 0), `${word} (seed ${seed})`).toBe(false);
    // The generated list is the dictionary's, byte for byte.
    const committed = readFileSync(
      join(root, "extensions", "llm-wiki", "lib", "lexical", "english-stems.ts"),
      "utf8",
    );
    expect(renderStems()).toBe(committed);
  });

  it("never reads a software name as a typo, though software English lacks it", () => {
    const root = join(import.meta.dirname, "..");
    const names = readFileSync(
      join(root, "node_modules", "@cspell", "dict-software-terms", "dict", "software-tools.txt"),
      "utf8",
    )
      .split("\n")
      .map((line) => line.trim().toLowerCase())
      .filter((w) => /^[a-z]{5,24}$/.test(w));
    const next = rng(seed);
    const drawn = Array.from({ length: 100 }, () => names[Math.floor(next() * names.length)] ?? "");
    // "mongo", asked of a vault that says "ongoing", was read as a typo of it.
    for (const word of [...drawn, "mongo", "mongodb", "kafka", "terraform", "kubectl", "grafana"])
      expect(repairable(word, 0), `${word} (seed ${seed})`).toBe(false);
    const committed = readFileSync(
      join(root, "extensions", "llm-wiki", "lib", "lexical", "software-stems.ts"),
      "utf8",
    );
    expect(renderSoftwareStems()).toBe(committed);
  });

  it("takes the spelling most pages hold, and nothing when none holds one", () => {
    const word = coinedWord();
    const rival = `${word.slice(0, -1)}${word.at(-1) === "q" ? "x" : "q"}`;
    const typo = word.slice(0, -1);
    const counts = (held: Record<string, number>) => (spellings: readonly string[]) =>
      new Map(spellings.map((s) => [s, held[s] ?? 0]));
    expect(
      spellingRepairs([{ word: typo, pages: 0 }], counts({ [word]: 2, [rival]: 5 })),
      `seed ${seed}`,
    ).toEqual([{ from: typo, to: rival }]);
    expect(spellingRepairs([{ word: typo, pages: 0 }], counts({}))).toEqual([]);
  });

  it("shows the shortest spelling of the word it searched, of those that stem alike", () => {
    // "postgrness" is one edit from "postgress" and stems as "postgres" does.
    expect(ftsTokens("postgrness")).toEqual(ftsTokens("postgres"));
    const held = (spellings: readonly string[]) =>
      new Map(spellings.map((s) => [s, ftsTokens(s)[0] === ftsTokens("postgres")[0] ? 4 : 0]));
    expect(spellingRepairs([{ word: "postgress", pages: 0 }], held)).toEqual([
      { from: "postgress", to: "postgres" },
    ]);
  });
});

describe("recall with a typo, on a real index", () => {
  const subjects = Array.from({ length: 6 }, coinedWord);
  let service: WikiService;

  beforeAll(async () => {
    const filler = ["deploy", "service", "team", "config", "release", "ongoing"];
    const pages: Record<string, string> = {};
    subjects.forEach((subject, i) => {
      const others = filler.join(" ");
      pages[`concepts/${subject}`] =
        `---\ntitle: The ${subject} subsystem\ntype: concept\n---\n# The ${subject} subsystem\n\n` +
        `The ${subject} subsystem handles part ${i} of the ${others}. We tuned ${subject} twice.\n`;
    });
    const vault = makeTempVault({ pages });
    service = createWikiService({
      cwd: vault.root,
      vault: vault.root,
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
  });

  afterAll(async () => {
    await service.close();
    removeTempDirs();
  });

  it("finds the page whose name was mistyped, explicitly and automatically", async () => {
    for (const subject of subjects) {
      const typo = typoOf(subject);
      const context = `seed ${seed}: "${typo}" for "${subject}"`;
      const asked = await service.recall({ query: `what is the ${typo} subsystem`, maxResults: 3 });
      expect(asked.results[0]?.id, context).toBe(`concepts/${subject}`);
      expect(asked.results[0]?.weak, context).toBeFalsy();
      // What was searched is said: the typed word, and a spelling of the page's word.
      expect(asked.respelled, context).toHaveLength(1);
      expect(asked.respelled?.[0]?.from, context).toBe(typo);
      expect(ftsTokens(asked.respelled?.[0]?.to ?? ""), context).toEqual(ftsTokens(subject));
      expect(renderRecallResult(asked).split("\n")[0], context).toContain(
        `read "${typo}" as "${asked.respelled?.[0]?.to}"`,
      );
      const auto = await service.recall({
        query: `why did we tune ${typo} twice`,
        policy: "automatic",
      });
      expect(
        auto.results.map((r) => r.id),
        context,
      ).toContain(`concepts/${subject}`);
    }
  });

  it("leaves ordinary words alone: a question the vault cannot answer finds nothing", async () => {
    const auto = await service.recall({
      query: "recommend a mechanical keyboard",
      policy: "automatic",
    });
    expect(auto.results).toEqual([]);
    const asked = await service.recall({ query: "recommend a mechanical keyboard" });
    expect(asked.results).toEqual([]);
    expect(asked.respelled).toBeUndefined();
    const spelled = await service.recall({ query: `the ${subjects[0]} subsystem` });
    expect(spelled.respelled).toBeUndefined();
    // A software name the vault lacks is not a typo of the word it holds one edit away.
    const named = await service.recall({
      query: "mongo aggregation to count documents per status",
      policy: "automatic",
    });
    expect(named.respelled).toBeUndefined();
    expect(named.results).toEqual([]);
  });
});

describe("a two-word name typed with one slip", () => {
  /** Short ordinary words a team names things with; the slip of one is on no line of the background. */
  const FIRST = ["warm", "cold", "blue", "dark", "fast", "slow", "hot", "red"];
  const SECOND = ["pool", "lane", "gate", "queue", "ring", "shard", "vault", "lease"];
  const pick = (list: readonly string[]) => list[Math.floor(random() * list.length)] as string;
  const first = pick(FIRST);
  const second = pick(SECOND);
  const slip = typoOf(second);
  const name = `${first} ${ftsTokens(second)[0]}`;
  const context = `seed ${seed}: "${first} ${slip}" for "${first} ${second}"`;
  const stem = (w: string) => ftsTokens(w).join(" ");

  it("is read as the name only beside its other word, and only to a name the vault holds", () => {
    const has = (key: string) => key === name;
    expect(
      repairedNames(["how", "big", "is", "the", first, slip], stem, has).map((r) => r.key),
      context,
    ).toEqual([name]);
    // Alone, or beside another word, the slip is not guessed at.
    expect(repairedNames([slip, "size"], stem, has), context).toEqual([]);
    expect(repairedNames(["the", slip], stem, has), context).toEqual([]);
    // No name to complete: nothing.
    expect(
      repairedNames([first, slip], stem, () => false),
      context,
    ).toEqual([]);
    // An ordinary word is never bent into a name: "warm pod" is not "warm pool".
    expect(repairedNames([first, "pod"], stem, (k) => k === `${first} pool`)).toEqual([]);
  });

  it("finds the named page on a real index, where the slip alone finds nothing", async () => {
    const title = `${cap(first)} ${second}s`;
    const vault = makeTempVault({
      pages: {
        [`concepts/${first}-${second}s`]: `---\ntitle: ${title}\ntype: concept\n---\n# ${title}\n\nThe ${first} ${second}s keep instances ready; size is set per region.\n`,
        "sources/tuning-notes": `---\ntitle: Tuning notes\ntype: source\n---\n# Tuning notes\n\nThe size of each batch and the config of every consumer, tuned in March.\nSize, size, config.\n`,
        "concepts/other": `---\ntitle: Other things\ntype: concept\n---\n# Other things\n\nNothing ${first} here but the config.\n`,
      },
    });
    const service = createWikiService({
      cwd: vault.root,
      vault: vault.root,
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    try {
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
      const asked = await service.recall({ query: `${first} ${slip} size config`, maxResults: 3 });
      expect(asked.results[0]?.id, context).toBe(`concepts/${first}-${second}s`);
      expect(
        asked.respelled?.map((r) => r.from),
        context,
      ).toEqual([slip]);
      expect(ftsTokens(asked.respelled?.[0]?.to ?? ""), context).toEqual(ftsTokens(second));
    } finally {
      await service.close();
    }
  });
});

function cap(word: string): string {
  return `${word[0]?.toUpperCase()}${word.slice(1)}`;
}
