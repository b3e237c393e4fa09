/**
 * Code-aware query words, on real indexes of real temp vaults: a camelCase
 * identifier in a question finds the page that says its words apart, words
 * said apart find the page that names the identifier, and a source path
 * finds the page that names it ahead of pages holding its parts alone.
 * Words are random on every run, so no spec passes on one lucky string.
 */
import { afterEach, describe, expect, it } from "vitest";
import { camelHumps, joinedRuns } from "../extensions/llm-wiki/lib/index/code-tokens.ts";
import { buildLexQuery, STOP_WORDS } from "../extensions/llm-wiki/lib/index/lex-query.ts";
import { matchNames } from "../extensions/llm-wiki/lib/name-match.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
const page = (title: string, body: string) =>
  `---\ntitle: ${title}\ntype: concept\n---\n# ${title}\n\n${body}\n`;

/** Recall's page ids for `query` on a fresh index of `pages`. */
async function recallIds(pages: Record<string, string>, queries: string[]): Promise<string[][]> {
  const vault = makeTempVault({ pages });
  const service = createWikiService({
    cwd: vault.root,
    vault: vault.root,
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  try {
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    const out: string[][] = [];
    for (const query of queries) {
      const result = await service.recall({ query, refreshIndex: false, maxResults: 10 });
      out.push(result.results.map((r) => r.id));
    }
    return out;
  } finally {
    await service.close();
  }
}

describe("code-aware query words", () => {
  it("finds words said apart from a camelCase name, and the name from words said apart", async () => {
    const [a, b, c] = [randomWord(5, 9), randomWord(5, 9), randomWord(5, 9)];
    const name = `${a}${cap(b)}${cap(c)}`;
    const seed = `words ${a} ${b} ${c}`;
    const [byName, byWords] = await recallIds(
      {
        "concepts/prose": page("Transient failures", `When the upstream fails we ${a} ${b} ${c}.`),
        "concepts/code": page("Network calls", `Every call goes through \`${name}(fn)\`.`),
        "concepts/only-first": page("Unrelated", `A ${a} alone, twice: ${a}.`),
        "concepts/filler": page("Lunch", "Soup, bread and a salad with olives."),
      },
      [name, `how do we ${a} ${b} ${c}`],
    );
    expect(byName?.[0], seed).toBe("concepts/prose");
    expect(byName, seed).toContain("concepts/code");
    expect(byWords, seed).toContain("concepts/code");
    // A page holding one of the words, without the name, does not outrank the one naming it.
    const below = byWords?.indexOf("concepts/only-first") ?? -1;
    if (below >= 0) expect(byWords?.indexOf("concepts/code"), seed).toBeLessThan(below);
  });

  it("puts the page naming a source path ahead of pages holding its parts", async () => {
    const [dir, file] = [randomWord(5, 9), randomWord(5, 9)];
    const path = `src/${dir}/${file}.ts`;
    const [hits] = await recallIds(
      {
        "concepts/named": page("Merge rules", `The rules live in \`${path}\`.`),
        "concepts/dir-only": page("Folder", `The ${dir} folder holds ${dir} code, ${dir} tests.`),
        "concepts/file-only": page("File", `A ${file} is a ${file}; see ${file} docs in src.`),
      },
      [path],
    );
    expect(hits?.[0], path).toBe("concepts/named");
  });

  it("finds the noun of a phrasal verb: a question to roll out or set up finds the rollout or the setup", async () => {
    const verb = randomWord(5, 8);
    for (const particle of ["out", "up", "down", "off"]) {
      const noun = `${verb}${particle}`;
      const [ids] = await recallIds(
        {
          "concepts/noun": page(
            `${cap(noun)} runbook`,
            `Every ${noun} goes through two reviewers.`,
          ),
          "concepts/verb-only": page("Other", `We ${verb} things now and then, and ${verb} again.`),
          "concepts/filler": page("Lunch", "Soup, bread and a salad with olives."),
        },
        [`how do we ${verb} ${particle} the release`],
      );
      expect(ids?.[0], noun).toBe("concepts/noun");
    }
    // Only right after its verb: "roll the … out" is not a rollout.
    const stop = (w: string) => ["out", "the", "up"].includes(w);
    expect(joinedRuns(["roll", "out"], stop)).toEqual([
      { words: [0], joined: "rollout", particle: "out" },
    ]);
    expect(joinedRuns(["roll", "the", "out"], stop)).toEqual([]);
    // The verb means its phrase ("set up" is no question about SQL's SET)…
    expect(buildLexQuery("set up the runner")?.terms[0]?.fts).toEqual(['"set up"', '"setup"']);
    // …but "in" and "over" are prepositions more often than particles.
    expect(buildLexQuery("a point in time")?.terms.map((t) => t.fts[0])).toEqual([
      '"point"',
      '"time"',
    ]);
    expect(buildLexQuery("kafka over rabbitmq")?.terms[0]?.fts[0]).toBe('"kafka"');
  });

  it("searches no negated auxiliary: a page saying can't is no closer to a question that does", () => {
    let subject = randomWord(6, 9);
    while (STOP_WORDS.has(subject)) subject = randomWord(6, 9);
    for (const neg of ["can't", "don't", "doesn't", "didn't", "won't", "isn't", "cannot"]) {
      const q = buildLexQuery(`why ${neg} the ${subject} restart`);
      expect(q?.terms.map((t) => t.text)).toEqual([subject, "restart"]);
    }
  });

  it("finds a numbered record however its number is padded: adr 9, adr-9 and ADR-009 alike", async () => {
    // A label is a name, never a stop word ("the 9" names nothing).
    let label = randomWord(3, 4);
    while (STOP_WORDS.has(label)) label = randomWord(3, 4);
    const n = 1 + Math.floor(Math.random() * 9);
    const padded = String(n).padStart(3, "0");
    const queries = [`${label} ${n}`, `${label}-${n}`, `what did ${label} ${n} say`];
    const answers = await recallIds(
      {
        "syntheses/record": page(
          `${label.toUpperCase()}-${padded} Queue first`,
          "We put the queue first and the cache second.",
        ),
        // Other records, and pages that are no record.
        ...Object.fromEntries(
          Array.from({ length: 3 }, (_, i) => [
            `syntheses/other-${i}`,
            page(
              `${label.toUpperCase()}-${String(10 + i).padStart(3, "0")} Other ${i}`,
              `Another record, number ${10 + i}.`,
            ),
          ]),
        ),
        ...Object.fromEntries(
          Array.from({ length: 5 }, (_, i) => [
            `concepts/plain-${i}`,
            page(`Plain ${i}`, `Soup, bread and salad number ${n}, then ${n} olives.`),
          ]),
        ),
      },
      queries,
    );
    for (const [i, ids] of answers.entries())
      expect(ids[0], `${queries[i]} (${label}-${padded})`).toBe("syntheses/record");
    // Other paddings are alternatives of the label's term, never a number alone nor a new term.
    const q = buildLexQuery(`${label} ${n}`);
    expect(q?.terms.map((t) => t.text)).toEqual([label]);
    expect(q?.terms[0]?.fts).toEqual(
      [label, `${label} 0${n}`, `${label} 00${n}`].map((p) => `"${p}"`),
    );
    // Typed word for word, the record's alias is its name: "adr 9" is "ADR-009".
    const named = new Map([
      ["syntheses/record", { title: "Queue first", aliases: [`${label.toUpperCase()}-${padded}`] }],
    ]) as unknown as Parameters<typeof matchNames>[0];
    expect([...matchNames(named, `${label} ${n}`).exact]).toEqual(["syntheses/record"]);
    expect([...matchNames(named, `what did ${label} ${n} say`).contained]).toEqual([
      "syntheses/record",
    ]);
    // "still 10 minutes" is no record: the number as typed adds nothing.
    expect(buildLexQuery("still 10 minutes")?.match).not.toContain('"still 10"');
  });

  it("splits camelCase humps (acronyms too) and joins runs of two or three words", () => {
    expect([...camelHumps("call retryWithBackoff and HTTPServer, not NASA or plain")]).toEqual([
      ["retrywithbackoff", ["retry", "with", "backoff"]],
      ["httpserver", ["http", "server"]],
    ]);
    const stop = (w: string) => w === "with" || w === "the";
    expect(joinedRuns(["retry", "with", "backoff", null, "the", "cache"], stop)).toEqual([
      { words: [0, 2], joined: "retrywithbackoff" },
    ]);
    // A pasted prompt's words are not joined: every pair would be noise.
    const long = Array.from({ length: 30 }, () => randomWord(6, 8));
    expect(joinedRuns(long, stop)).toEqual([]);
    // The name searches for itself first, then its humps; the joined form is one more way to find each word.
    expect(buildLexQuery("retryWithBackoff")?.match).toBe(
      '"retrywithbackoff" OR "retry" OR "backoff"',
    );
    expect(buildLexQuery("retry with backoff")?.terms.map((t) => t.fts)).toEqual([
      ['"retry"', '"retrywithbackoff"'],
      ['"backoff"', '"retrywithbackoff"'],
    ]);
  });
});
