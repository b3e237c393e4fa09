/**
 * The second public collection: LoCoMo converted into the BEIR layout by
 * scripts/eval/convert-locomo.ts (run as a real process on a tiny fixture
 * in the original's two shapes), read back by the BEIR reader, run beside
 * plain SQLite FTS5 BM25, and skipped with a clear line where absent.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareWithFts5 } from "../extensions/llm-wiki/lib/bench/beir-compare.ts";
import {
  beirFiles,
  readCorpus,
  readQrels,
  readQueries,
} from "../extensions/llm-wiki/lib/bench/beir-reader.ts";
import {
  BASELINE_STOP_WORDS,
  fts5OrQuery,
} from "../extensions/llm-wiki/lib/bench/fts5-baseline.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { runCollections } from "../scripts/bench/beir-collections.ts";
import { readLocomo, writeBeirCollection } from "../scripts/eval/convert-locomo.ts";
import { canonicalDiaId, LocomoInputError, parseLocomo } from "../scripts/eval/locomo.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const root = join(import.meta.dirname, "..");
const fixtures = join(root, "test", "fixtures", "locomo");
const CONVERTER = join(root, "scripts", "eval", "convert-locomo.ts");

function convert(args: string[]) {
  return spawnSync(process.execPath, [CONVERTER, ...args], { encoding: "utf8" });
}

async function corpusOf(dir: string) {
  const docs = [];
  for await (const doc of readCorpus(beirFiles(dir).corpus)) docs.push(doc);
  return docs;
}

describe("converting LoCoMo into the BEIR layout", () => {
  it("makes each turn a document, each answerable question a query judged by its evidence turns", async () => {
    const out = join(makeTempDir("llm-wiki-locomo-"), "locomo");
    const run = convert([join(fixtures, "locomo10_v2"), "--out", out]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("6 turns of 1 conversations, 4 of 6 questions judged");
    expect(run.stdout).toContain("1 unanswerable, category 5; 1 with no evidence turn");

    const files = beirFiles(out);
    const docs = await corpusOf(out);
    expect(docs.map((d) => d.id)).toEqual([
      "7:D1:1",
      "7:D1:2",
      "7:D1:3",
      "7:D2:1",
      "7:D2:2",
      "7:D2:3",
    ]);
    expect(docs[0]?.title).toBe("Ada, 9:10 am on 3 March, 2023");
    expect(docs[3]?.title).toBe("Boris, 6:45 pm on 20 March, 2023");
    // The image a turn shares is part of what it says; the dataset's other fields are not.
    expect(docs[2]?.text).toBe(
      "Yes, a deep green. Here is a picture.\n[shared an image: a photo of a green sailboat on a trailer]",
    );
    expect(docs[1]?.text).toBe("That is great news. Did you repaint the hull?");

    const qrels = await readQrels(files.qrels);
    expect(Object.fromEntries([...qrels].map(([q, g]) => [q, Object.fromEntries(g)]))).toEqual({
      "7:q1": { "7:D1:3": 1 },
      // Evidence joined by "; " is two turns.
      "7:q2": { "7:D2:1": 1, "7:D2:3": 1 },
      // "D:2:03" is the dataset's slip for D2:3.
      "7:q3": { "7:D2:3": 1 },
      // q4 is adversarial (category 5) and q5's evidence names no turn: both left out.
      "7:q6": { "7:D1:1": 1, "7:D2:3": 1 },
    });
    const queries = await readQueries(files.queries, new Set(qrels.keys()));
    expect(queries.map((q) => q.text)).toEqual([
      "What colour did Ada paint the sailboat hull?",
      "Which instrument did Boris start learning?",
      "Who teaches Boris?",
      "What did Ada restore and who is Boris learning from?",
    ]);
    const readme = readFileSync(join(out, "README.md"), "utf8");
    expect(readme).toContain("CC BY-NC 4.0");
    expect(readme).toContain("1 adversarial questions (category 5");
  });

  it("reads locomo10.json's shape (an array of samples) alike, sessions in their numeric order", () => {
    const c = readLocomo(join(fixtures, "locomo10-sample.json"));
    expect(c.corpus.map((d) => d._id)).toEqual(["conv-7:D1:1", "conv-7:D2:1"]);
    expect(c.queries).toEqual([
      { _id: "conv-7:q1", text: "Which instrument did Boris start learning?" },
    ]);
    expect(c.qrels).toEqual([["conv-7:q1", "conv-7:D2:1", 1]]);
    expect(c.stats).toMatchObject({ questions: 2, judged: 1, leftOutUnanswerable: 1 });
  });

  it("reads every spelling of a dialog id the dataset slips into as the id it means", () => {
    for (let i = 0; i < 200; i += 1) {
      const session = 1 + Math.floor(Math.random() * 40);
      const turn = 1 + Math.floor(Math.random() * 60);
      const zeros = "0".repeat(Math.floor(Math.random() * 3));
      const colon = Math.random() < 0.5 ? ":" : "";
      const raw = ` D${colon}${session}:${zeros}${turn} `;
      expect(canonicalDiaId(raw), raw).toBe(`D${session}:${turn}`);
    }
    expect(canonicalDiaId("D")).toBe("D");
  });

  it("refuses input of another shape with the place named, and the script exits 1 saying so", () => {
    const bad: Array<[unknown, string]> = [
      [{ speaker_a: "A" }, "expected one conversation"],
      [{ qa: "no", session_1: [] }, '"qa" must be a list'],
      [{ qa: [], session_1: [{ speaker: "A", text: "hi" }] }, 'session_1[0]: "dia_id"'],
      [{ qa: [{ question: "q", evidence: [1], category: 1 }] }, "qa[0]"],
      [[{ sample_id: "s" }], "expected {sample_id, qa, conversation}"],
    ];
    for (const [value, words] of bad) {
      expect(() => parseLocomo(value, "x"), words).toThrow(LocomoInputError);
      expect(() => parseLocomo(value, "x"), words).toThrow(words);
    }
    const dir = makeTempDir("llm-wiki-locomo-bad-");
    writeFileSync(join(dir, "1.json"), "{ not json");
    const run = convert([dir, "--out", join(dir, "out")]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^convert-locomo: .*1\.json/);
  });
});

describe("a public collection beside plain SQLite FTS5 BM25", () => {
  it("runs the converted collection both ways on the same queries, paired per query", async () => {
    const base = makeTempDir("llm-wiki-locomo-run-");
    const out = join(base, "locomo");
    writeBeirCollection(out, readLocomo(join(fixtures, "locomo10_v2")));
    const workDir = join(base, "vault");
    mkdirSync(workDir);
    const c = await compareWithFts5({
      collection: out,
      workDir,
      mode: "lexical",
      settings: DEFAULT_SETTINGS,
    });
    expect(c.ours.queries.run).toBe(4);
    expect(c.fts5.queries).toBe(4);
    expect(c.fts5.documents).toBe(6);
    expect(c.delta.ndcg10.n).toBe(4);
    expect(c.delta.ndcg10.wins + c.delta.ndcg10.ties + c.delta.ndcg10.losses).toBe(4);
    // Every question shares a word with one of its evidence turns: both systems find some.
    expect(c.fts5.metrics.recall100).toBeGreaterThan(0);
    expect(c.ours.metrics.recall100).toBeGreaterThan(0);
    expect(c.delta.ndcg10.mean).toBeCloseTo(c.ours.metrics.ndcg10 - c.fts5.metrics.ndcg10, 5);
  }, 60_000);

  it("skips an absent collection with a line saying how to get it, and runs the ones present", async () => {
    const empty = makeTempDir("llm-wiki-eval-empty-");
    const none = await runCollections({ roots: [empty], write: false });
    expect(none.comparisons).toEqual([]);
    expect(none.skipped).toHaveLength(2);
    expect(none.lines.join("\n")).toContain(
      `locomo: skipped, not found under ${empty} (convert LoCoMo first: node scripts/eval/convert-locomo.ts`,
    );
    expect(none.lines.join("\n")).toContain("cranfield: skipped");

    const present = makeTempDir("llm-wiki-eval-");
    writeBeirCollection(join(present, "locomo"), readLocomo(join(fixtures, "locomo10_v2")));
    const one = await runCollections({ roots: [present], wanted: ["locomo"], write: false });
    expect(one.skipped).toEqual([]);
    expect(one.comparisons.map((c) => c.collection)).toEqual(["locomo"]);
    expect(one.lines.join("\n")).toMatch(/locomo\s+FTS5 BM25\s+6\s+4/);
  }, 60_000);

  it("asks FTS5 for the query's words only: any text gives quoted words joined by OR, stop words dropped", () => {
    const alphabet = [
      '"',
      "*",
      "(",
      ")",
      "-",
      "^",
      ":",
      "NEAR",
      "AND",
      "the",
      "é",
      "召",
      " ",
      "x1",
    ];
    for (let i = 0; i < 200; i += 1) {
      const text = Array.from(
        { length: Math.floor(Math.random() * 12) },
        () => alphabet[Math.floor(Math.random() * alphabet.length)] ?? "",
      ).join(Math.random() < 0.5 ? " " : "");
      const q = fts5OrQuery(text);
      if (q === "") continue;
      for (const term of q.split(" OR ")) {
        expect(term, text).toMatch(/^"[\p{L}\p{N}]+"$/u);
        expect(BASELINE_STOP_WORDS.has(term.slice(1, -1)), text).toBe(false);
      }
    }
  });
});
