/**
 * Lexical ranking and automatic recall's evidence gate, on a real index of
 * a copy of the example vault: BM25 with an IDF that never reaches zero, a
 * page the question names first, shown scores in the shown order, ordinary
 * coding prompts kept out, and the tokenizer and background model they rest on.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backgroundShare } from "../extensions/llm-wiki/lib/lexical/background.ts";
import {
  BACKGROUND_PASSAGES,
  BACKGROUND_TERMS,
} from "../extensions/llm-wiki/lib/lexical/background-terms.ts";
import { idf } from "../extensions/llm-wiki/lib/lexical/bm25.ts";
import { ftsTokens } from "../extensions/llm-wiki/lib/lexical/fts-tokens.ts";
import { poissonSurprise, termEvidence } from "../extensions/llm-wiki/lib/recall-evidence.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { buildModel, pinnedPackages, renderModel } from "../scripts/build-background-model.ts";
import { openQmdSqlite } from "./helpers/qmd-sqlite.ts";

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "llm-wiki-lexical-ranking-"));
let service: WikiService;

beforeAll(async () => {
  cpSync(join(root, "examples", "acme-notes"), dir, {
    recursive: true,
    filter: (src) => !src.includes(join(".llm-wiki", "meta")),
  });
  service = createWikiService({
    cwd: dir,
    vault: dir,
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  expect((await service.reindex({ scope: "all" })).ok).toBe(true);
});

afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const explicit = (query: string) => service.recall({ query, refreshIndex: false, maxResults: 10 });
const automatic = (query: string) => service.recall({ query, policy: "automatic" });

describe("explicit ranking", () => {
  it("puts the page a question names first, even when its words are on most pages", async () => {
    const result = await explicit("how do version vectors work");
    expect(result.results[0]?.id).toBe("concepts/version-vectors");
  });

  it("reads a name the way the index reads words: stems for several words, plurals for one", async () => {
    // "Idempotency keys" said as "Idempotency-Key"; alias "reconnect storm" said as "reconnects storm".
    expect(
      (await explicit("what happens to a retried push with an Idempotency-Key it has seen"))
        .results[0]?.id,
    ).toBe("concepts/idempotency-keys");
    expect((await explicit("why did reconnects storm in March")).results[0]?.id).toBe(
      "analyses/incident-2026-03-reconnect-storm",
    );
    expect((await explicit("when is a tombstone collected")).results[0]?.id).toBe(
      "concepts/tombstones",
    );
    // One word is not stemmed: "stored" does not name the page whose alias is "store".
    const stored = await service.recall({
      query: "where do attachments get stored",
      refreshIndex: false,
      explain: true,
    });
    const storage = stored.results.find((r) => r.id === "entities/storage-layer");
    expect(storage?.why?.name).toBeUndefined();
  });

  it("when a question names several pages, puts the longer (more specific) name first", async () => {
    // "rate limits" names Rate limiting; "gateway" is an alias of API gateway.
    const ids = (await explicit("what are the per-device rate limits on the gateway")).results.map(
      (r) => r.id,
    );
    expect(ids.slice(0, 2)).toEqual(["concepts/rate-limiting", "entities/api-gateway"]);
  });

  it("shows scores in the order it lists the pages", async () => {
    for (const query of [
      "how do version vectors work",
      "why did reconnects storm in March",
      "cache invalidation",
      "what is our sync latency SLO and who owns the sync engine",
      "tombstones garbage collection",
    ]) {
      const scores = (await explicit(query)).results.map((r) => r.score);
      expect(scores.length, query).toBeGreaterThan(0);
      expect(
        [...scores].sort((a, b) => b - a),
        query,
      ).toEqual(scores);
    }
  });

  it("explains each page: matched terms with their counts, contribution and evidence", async () => {
    const result = await service.recall({
      query: "tombstones garbage collection",
      refreshIndex: false,
      explain: true,
    });
    const first = result.results[0];
    expect(first?.id).toBe("concepts/tombstones");
    const terms = first?.why?.evidence?.terms ?? [];
    expect(terms.map((t) => t.term)).toContain("tombstones");
    for (const t of terms) {
      expect(t.score).toBeGreaterThan(0);
      expect(t.counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(t.evidence).toBeGreaterThanOrEqual(0);
      expect(t.evidence).toBeLessThanOrEqual(1.5);
    }
    expect(first?.why?.name).toBe("contained");
    // Without the flag no explanation travels.
    expect((await explicit("tombstones garbage collection")).results[0]?.why).toBeUndefined();
  });

  it("prints the explanation from the command line: `recall --auto --explain`", () => {
    const run = spawnSync(
      process.execPath,
      [
        join(root, "bin", "llm-wiki.js"),
        "recall",
        "--vault",
        dir,
        "--auto",
        "--explain",
        "how do version vectors work",
      ],
      { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("1. concepts/version-vectors");
    expect(run.stdout).toContain("the query contains its name");
    expect(run.stdout).toMatch(
      /vectors {2}×\d+\/\d+\/\d+ {2}\+\d+\.\d\d {2}evidence \d\.\d\d \(vault \d+%, background [\d.]+%\)/,
    );
  });
});

describe("automatic recall", () => {
  it("stays silent on ordinary coding prompts that share generic words with the vault", async () => {
    for (const prompt of [
      "explain what a closure is",
      "fix the failing test in parser.ts",
      "bump the version to 2.3.1",
      "rename this variable to something clearer",
      "looks good, commit it",
      "yes",
      "center this div horizontally",
    ]) {
      expect((await automatic(prompt)).results, prompt).toEqual([]);
    }
  });

  it("injects the page a question about the vault asks for", async () => {
    expect((await automatic("how do version vectors work")).results[0]?.id).toBe(
      "concepts/version-vectors",
    );
    const storm = (await automatic("why did the reconnect storm happen in March")).results;
    expect(storm.map((r) => r.id)).toContain("analyses/incident-2026-03-reconnect-storm");
  });
});

describe("scoring parts", () => {
  it("gives a term on most pages a small but positive IDF, below a rare term's", () => {
    expect(idf(36, 30)).toBeGreaterThan(0);
    expect(idf(36, 36)).toBeGreaterThan(0);
    expect(idf(36, 1)).toBeGreaterThan(idf(36, 18));
    expect(idf(36, 18)).toBeGreaterThan(idf(36, 30));
  });

  it("weighs a generic word as no evidence and a vault's own word fully", () => {
    const generic = termEvidence({
      term: "test",
      stems: ["test"],
      df: 10,
      documents: 36,
      idf: idf(36, 10),
      counts: [0, 0, 2],
      score: idf(36, 10),
    });
    const own = termEvidence({
      term: "tombstones",
      stems: ["tombston"],
      df: 6,
      documents: 36,
      idf: idf(36, 6),
      counts: [0, 1, 4],
      score: 2 * idf(36, 6),
    });
    // "test" is only a few times more common here than in any project's text.
    expect(generic.evidence).toBeLessThan(0.5);
    expect(own.evidence).toBeGreaterThanOrEqual(1);
    expect(poissonSurprise(5, 0.1)).toBeGreaterThan(poissonSurprise(1, 0.1));
    expect(poissonSurprise(1, 0.1)).toBeGreaterThan(poissonSurprise(1, 2));
    expect(Number.isFinite(poissonSurprise(200, 0.001))).toBe(true);
  });

  it("weighs a number with a unit as no evidence, and a bare number as a name", () => {
    const n = 100 + Math.floor(Math.random() * 9000);
    const match = (term: string, stem: string) =>
      termEvidence({
        term,
        stems: [stem],
        df: 4,
        documents: 36,
        idf: idf(36, 4),
        counts: [0, 1, 2],
        score: 2 * idf(36, 4),
      });
    // "retrying on 400s": HTTP errors to the prompt, a timeout of 400 s to the vault.
    for (const unit of ["s", "ms", "k", "xx"])
      expect(match(`${n}${unit}`, `${n}`).evidence, `${n}${unit}`).toBe(0);
    // "port 8089" names this vault's service.
    expect(match(`${n}`, `${n}`).evidence).toBeGreaterThanOrEqual(1);
  });

  it("tokenizes as the index does (SQLite's porter unicode61) on every word of the vault", () => {
    const db = openQmdSqlite<{
      exec(sql: string): void;
      prepare(sql: string): {
        run(...a: unknown[]): void;
        all(...a: unknown[]): Array<{ term: string }>;
      };
      close(): void;
    }>();
    db.exec(
      "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61'); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');",
    );
    const text = readFileSync(
      join(root, "examples", "acme-notes", ".llm-wiki", "wiki", "concepts", "crdt-merge.md"),
      "utf8",
    );
    // QMD spaces CJK characters apart before indexing; both sides get it spaced.
    db.prepare("INSERT INTO t(x) VALUES (?)").run(`${text} Café naïve Ärger 召 回 v1.0.21`);
    const sqlite = db
      .prepare("SELECT term FROM v")
      .all()
      .map((r) => r.term)
      .sort();
    db.close();
    const ours = [...new Set(ftsTokens(`${text} Café naïve Ärger 召 回 v1.0.21`))].sort();
    expect(ours).toEqual(sqlite);
  });

  it("reads a word's background count as the model's line says, and an absent word as zero", () => {
    const lines = BACKGROUND_TERMS.split("\n");
    const share = (count: number) => (count + 0.5) / (BACKGROUND_PASSAGES + 1);
    // The first and last lines, and a fresh random sample of the rest.
    const sample = [
      0,
      lines.length - 1,
      ...Array.from({ length: 200 }, () => Math.floor(Math.random() * lines.length)),
    ];
    for (const i of sample) {
      const [term = "", count = "0"] = (lines[i] ?? "").split(" ");
      expect(backgroundShare([term]), term).toBeCloseTo(share(Number(count)), 12);
    }
    // Not in the model: a suffix or prefix of a listed term is its own word.
    const [listed = ""] = (lines[Math.floor(lines.length / 2)] ?? "").split(" ");
    for (const absent of [`${listed}zzq`, `q${listed}`, "", "a b", `${listed}\n`]) {
      const expected = lines.some((l) => l.startsWith(`${absent} `)) ? undefined : share(0);
      if (expected !== undefined)
        expect(backgroundShare([absent]), absent).toBeCloseTo(expected, 12);
    }
  });

  it("rebuilds the committed background model byte for byte from the installed packages", () => {
    const committed = readFileSync(
      join(root, "extensions", "llm-wiki", "lib", "lexical", "background-terms.ts"),
      "utf8",
    );
    expect(renderModel(buildModel())).toBe(committed);
  });

  it("refuses to build from a pin list naming a package that is not installed", () => {
    const ghost = `ghost-package-${Math.random().toString(36).slice(2)}@1.0.0`;
    const pins = new Set([...pinnedPackages(), ghost]);
    expect(() => buildModel(pins)).toThrow(ghost);
  });
});
