import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BENCHMARK_CATEGORIES,
  BENCHMARK_NOW,
  BENCHMARK_VERSION,
  type BenchmarkQuery,
  loadBenchmarkFixture,
  parseBenchmarkFixture,
} from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { inWindow, parseTimeWindow } from "../extensions/llm-wiki/lib/temporal/time-window.ts";
import { extractLinks, LinkResolver } from "../extensions/llm-wiki/lib/vault/links.ts";
import { type Page, parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { judgeRelations } from "../extensions/llm-wiki/lib/vault/relation-graph.ts";

const fixtureDir = join(import.meta.dirname, "fixtures", "retrieval");
const fixtureFile = join(fixtureDir, "queries.json");
const fixture = loadBenchmarkFixture(fixtureFile);
const dotWiki = join(fixture.vaultRoot, ".llm-wiki");
const wikiDir = join(dotWiki, "wiki");

/** Page ids of every Markdown file under `wiki/`, as retrieval would report them. */
function pageIdsOnDisk(): string[] {
  return readdirSync(wikiDir, { recursive: true, encoding: "utf8" })
    .map((path) => path.replaceAll("\\", "/"))
    .filter((path) => path.endsWith(".md"))
    .map((path) => path.slice(0, -".md".length))
    .sort();
}

const pageIds = new Set(pageIdsOnDisk());
const queries = fixture.queries;

function pageFile(pageId: string): string {
  return join(wikiDir, `${pageId}.md`);
}

/** Query group: the id without its `-N` suffix (five phrasings of one need). */
function groupOf(query: BenchmarkQuery): string {
  return query.id.replace(/-\d+$/, "");
}

function readPage(pageId: string): Page {
  const parsed = parsePage(pageId, `wiki/${pageId}.md`, readFileSync(pageFile(pageId)));
  if (!parsed.ok) throw new Error(`${pageId} does not parse`);
  return parsed.page;
}

const resolver = new LinkResolver(pageIds);
/** Relation edges of the vault as recall's graph would make them: `from type to`. */
const edges = new Set(
  [...pageIds].flatMap((id) => {
    const page = readPage(id);
    const links = extractLinks(id, page.body).flatMap((link) => {
      const r = resolver.resolve(link.target);
      return r.status === "resolved" ? [r.id] : [];
    });
    return judgeRelations(page, (target) => pageIds.has(target), links).flatMap((judged) =>
      judged.edge ? [`${judged.edge.from} ${judged.edge.type} ${judged.edge.to}`] : [],
    );
  }),
);
const related = (a: string, type: string, b: string) =>
  edges.has(`${a} ${type} ${b}`) || edges.has(`${b} ${type} ${a}`);

describe("retrieval benchmark fixture", () => {
  it("contains the approved versioned 150-query train/held-out corpus over 46 pages", () => {
    expect(fixture.version).toBe(BENCHMARK_VERSION);
    expect(BENCHMARK_VERSION).toBe(1);
    expect(pageIds.size).toBe(46);
    expect(queries).toHaveLength(150);
    expect(queries.filter((query) => query.split === "train")).toHaveLength(105);
    expect(queries.filter((query) => query.split === "heldout")).toHaveLength(45);
  });

  it("is a real vault: a config.json with a name beside the wiki pages", () => {
    const config = JSON.parse(readFileSync(join(dotWiki, "config.json"), "utf8")) as {
      name?: unknown;
    };
    expect(config.name).toBe("Retrieval Benchmark");
  });

  it("covers every query category in groups of five phrasings", () => {
    expect(new Set(queries.map((query) => query.category))).toEqual(new Set(BENCHMARK_CATEGORIES));
    expect(BENCHMARK_CATEGORIES).toHaveLength(14);
    const groupsPer: Record<string, number> = {
      contradiction: 3,
      evidence_request: 4,
      synthesis: 3,
      superseded: 3,
      temporal: 7,
      typed_relation: 2,
    };
    for (const category of BENCHMARK_CATEGORIES) {
      expect(
        queries.filter((query) => query.category === category),
        category,
      ).toHaveLength(5 * (groupsPer[category] ?? 1));
    }
  });

  it("uses unique stable ids and judgments that reference fixture page files", () => {
    const queryIds = queries.map((query) => query.id);
    expect(new Set(queryIds).size).toBe(queryIds.length);
    for (const query of queries) {
      expect(query.id).toMatch(/^[a-z0-9-]+-[1-5]$/);
      expect(query.judgments.length > 0 || query.autoExpectation === "none", query.id).toBe(true);
      for (const judgment of query.judgments) {
        expect(existsSync(pageFile(judgment.pageId)), `${query.id} → ${judgment.pageId}`).toBe(
          true,
        );
      }
      for (const pageId of query.expectedConflicts ?? []) {
        expect(existsSync(pageFile(pageId)), `${query.id} → ${pageId}`).toBe(true);
      }
    }
  });

  it("has pages the project's page parser accepts without diagnostics, typed by their folder", () => {
    const typeOfFolder: Record<string, string> = {
      entities: "entity",
      concepts: "concept",
      syntheses: "synthesis",
      analyses: "analysis",
      sources: "source",
    };
    for (const id of pageIds) {
      const result = parsePage(id, `wiki/${id}.md`, readFileSync(pageFile(id)));
      expect(result.ok, id).toBe(true);
      expect(result.diagnostics, id).toEqual([]);
      if (!result.ok) continue;
      expect(result.page.type, id).toBe(typeOfFolder[id.split("/")[0] ?? ""]);
      expect(result.page.title.length, id).toBeGreaterThan(0);
      expect(result.page.body.trim().length, id).toBeGreaterThan(0);
    }
  });

  it("judges each page in the role its type gives it", () => {
    for (const query of queries) {
      for (const judgment of query.judgments) {
        const parsed = parsePage(
          judgment.pageId,
          `wiki/${judgment.pageId}.md`,
          readFileSync(pageFile(judgment.pageId)),
        );
        expect(parsed.ok && parsed.page.role, `${query.id} → ${judgment.pageId}`).toBe(
          judgment.role,
        );
      }
    }
  });

  it("makes exactly the negative queries expect automatic recall to stay silent", () => {
    for (const query of queries) {
      const negative = query.category === "negative";
      expect(query.autoExpectation, query.id).toBe(negative ? "none" : "hit");
      if (negative) expect(query.judgments, query.id).toEqual([]);
      else
        expect(
          query.judgments.some((judgment) => judgment.grade === 3),
          query.id,
        ).toBe(true);
    }
  });

  it("lists at least two judged conflicting claims on every contradiction query, and only there", () => {
    for (const query of queries) {
      const conflicts = query.expectedConflicts ?? [];
      if (query.category !== "contradiction") {
        expect(conflicts, query.id).toEqual([]);
        continue;
      }
      expect(conflicts.length, query.id).toBeGreaterThanOrEqual(2);
      const judged = new Set(query.judgments.map((judgment) => judgment.pageId));
      for (const pageId of conflicts)
        expect(judged.has(pageId), `${query.id} → ${pageId}`).toBe(true);
    }
  });

  it("keeps each query group wholly in one split so tuning never sees a held-out need", () => {
    const splitOfGroup = new Map<string, Set<string>>();
    for (const query of queries) {
      const splits = splitOfGroup.get(groupOf(query)) ?? new Set<string>();
      splits.add(query.split);
      splitOfGroup.set(groupOf(query), splits);
    }
    expect(splitOfGroup.size).toBe(30);
    for (const [group, splits] of splitOfGroup) expect(splits.size, group).toBe(1);
  });

  it("holds out every third query group in file order, the negative group excepted", () => {
    const groups = [...new Set(queries.map(groupOf))];
    groups.forEach((group, index) => {
      const query = queries.find((q) => groupOf(q) === group) as BenchmarkQuery;
      const heldout = (index + 1) % 3 === 0 && query.category !== "negative";
      expect(query.split, group).toBe(heldout ? "heldout" : "train");
    });
  });

  it("declares typed relations that recall can follow: a known type and a body link to the target", () => {
    let declared = 0;
    for (const id of pageIds) {
      const page = readPage(id);
      const links = extractLinks(id, page.body).map((link) => resolver.resolve(link.target));
      for (const relation of page.relations ?? []) {
        declared += 1;
        expect(pageIds.has(relation.target), `${id} → ${relation.target}`).toBe(true);
        expect(
          links.some((r) => r.status === "resolved" && r.id === relation.target),
          `${id} links ${relation.target} in its body`,
        ).toBe(true);
      }
    }
    expect(edges.size).toBe(declared);
    for (const type of [
      "supports",
      "contradicts",
      "qualifies",
      "supersedes",
      "applies_under",
      "derived_from",
    ])
      expect(
        [...edges].some((edge) => edge.split(" ")[1] === type),
        type,
      ).toBe(true);
  });

  it("judges a superseded page historical and relevant, its successor canonical", () => {
    const superseded = queries.filter((query) => query.category === "superseded");
    expect(superseded.length).toBeGreaterThan(0);
    for (const query of superseded) {
      const old = query.judgments.filter((judgment) => judgment.historical);
      const current = query.judgments.filter(
        (judgment) => judgment.grade === 3 && judgment.role === "canonical" && !judgment.historical,
      );
      expect(old.length, query.id).toBeGreaterThan(0);
      expect(current.length, query.id).toBeGreaterThan(0);
      for (const o of old)
        expect(
          current.some((c) => edges.has(`${c.pageId} supersedes ${o.pageId}`)),
          `${query.id}: a successor supersedes ${o.pageId}`,
        ).toBe(true);
    }
    for (const query of queries)
      for (const judgment of query.judgments)
        if (judgment.historical) expect(judgment.role, query.id).toBe("canonical");
  });

  it("declares every judged conflict with `contradicts`", () => {
    for (const query of queries) {
      const [a, b, ...rest] = query.expectedConflicts ?? [];
      if (a === undefined || b === undefined) continue;
      expect(rest, query.id).toEqual([]);
      expect(related(a, "contradicts", b), `${query.id}: ${a} contradicts ${b}`).toBe(true);
    }
  });

  it("links every judged evidence page of an evidence request or a conflict to a judged card by supports or derived_from", () => {
    // A card reaches its evidence only through a declared relation: a conflict
    // judged as a card's evidence that no relation connects could never come
    // with that card, whatever the ranking does.
    const withEvidence = new Set(["evidence_request", "contradiction"]);
    for (const query of queries.filter((q) => withEvidence.has(q.category))) {
      const cards = query.judgments.filter((j) => j.role === "canonical").map((j) => j.pageId);
      for (const evidence of query.judgments.filter((j) => j.role === "evidence")) {
        expect(
          cards.some(
            (card) =>
              related(card, "supports", evidence.pageId) ||
              related(card, "derived_from", evidence.pageId),
          ),
          `${query.id}: ${evidence.pageId}`,
        ).toBe(true);
      }
    }
  });

  it("dates every page in 2026 before the benchmark's now, as front matter says", () => {
    for (const id of pageIds) {
      const page = readPage(id);
      const date = page.updated ?? page.created;
      expect(date, id).toMatch(/^2026-\d{2}-\d{2}$/);
      expect(new Date(`${date}T00:00:00Z`).getTime(), id).toBeLessThan(BENCHMARK_NOW.getTime());
      if (page.updated !== undefined && page.created !== undefined)
        expect(page.created <= page.updated, id).toBe(true);
    }
  });

  it("names a time window in each new temporal query, judged by the pages dated inside it, with a same-topic page outside it", () => {
    const titles = new Map(
      [...pageIds].flatMap((id) => {
        const page = readPage(id);
        const date = page.updated ?? page.created ?? "";
        return [page.title, ...page.aliases].map((name) => [name.toLowerCase(), { id, date }]);
      }),
    );
    const anchor = (name: string) => {
      const hit = titles.get(name.toLowerCase());
      return hit ? { date: hit.date, pageId: hit.id } : undefined;
    };
    const windowed = queries.filter(
      (query) => query.category === "temporal" && !query.id.startsWith("node-temporal-"),
    );
    expect(windowed).toHaveLength(30);
    for (const query of windowed) {
      const { window } = parseTimeWindow(query.text, { now: BENCHMARK_NOW, anchor });
      expect(window, query.id).toBeDefined();
      if (!window) continue;
      for (const judgment of query.judgments) {
        const page = readPage(judgment.pageId);
        expect(inWindow(page.updated ?? page.created ?? "", window), query.id).toBe(true);
      }
      // The distractor: another page of the same group's topic, dated outside the window.
      const outside = [...pageIds].filter((id) => {
        const page = readPage(id);
        return (
          id.split("/")[0] === query.judgments[0]?.pageId.split("/")[0] &&
          id.split("/")[1]?.split("-")[0] ===
            query.judgments[0]?.pageId.split("/")[1]?.split("-")[0] &&
          !inWindow(page.updated ?? page.created ?? "", window)
        );
      });
      expect(outside.length, query.id).toBeGreaterThan(0);
    }
    // No query outside the temporal category names a window.
    for (const query of queries.filter((q) => q.category !== "temporal"))
      expect(parseTimeWindow(query.text, { now: BENCHMARK_NOW, anchor }).window, query.id).toBe(
        undefined,
      );
  });

  it("includes Chinese and mixed-language queries", () => {
    const cjk = /\p{Script=Han}/u;
    const latin = /[A-Za-z]/;
    const withHan = queries.filter((query) => cjk.test(query.text));
    expect(withHan.some((query) => !latin.test(query.text))).toBe(true);
    expect(withHan.some((query) => latin.test(query.text))).toBe(true);
  });

  it("contains no raw home paths, email addresses, or token-shaped secrets", () => {
    const files = readdirSync(fixtureDir, { recursive: true, encoding: "utf8" })
      .map((path) => join(fixtureDir, path))
      .filter((path) => path.endsWith(".md") || path.endsWith(".json"));
    // The vault, its queries, the ordinary prompts, the example vault's questions and the frozen pre-13 fixture.
    expect(files.length).toBe(75);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(/\/home\//i);
      expect(text, file).not.toMatch(/\/Users\/|[A-Z]:\\+Users\\/i);
      expect(text, file).not.toMatch(/[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}/i);
      expect(text, file).not.toMatch(/\b(?:sk|ghp|github_pat)_[A-Za-z0-9_-]{16,}\b/);
      expect(text, file).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    }
  });
});

describe("benchmark fixture loader", () => {
  const tempDir = mkdtempSync(join(tmpdir(), "llm-wiki-bench-fixture-"));
  afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

  const validQuery = {
    id: "q-1",
    text: "what is rrf",
    category: "conceptual",
    split: "train",
    judgments: [{ pageId: "concepts/rrf", grade: 3, role: "canonical" }],
    autoExpectation: "hit",
  };

  function invalidMessage(value: unknown): string {
    try {
      parseBenchmarkFixture(value, "bench.json");
    } catch (error) {
      expect(error).toBeInstanceOf(WikiError);
      const { diagnostic } = error as WikiError;
      expect(diagnostic.code).toBe("bench.fixture_invalid");
      expect(diagnostic.path).toBe("bench.json");
      return diagnostic.message;
    }
    throw new Error("expected the fixture to be rejected");
  }

  it("resolves the vault folder against the fixture file's folder", () => {
    const file = join(tempDir, "ok.json");
    writeFileSync(file, JSON.stringify({ version: 1, vault: "v", queries: [validQuery] }));
    const loaded = loadBenchmarkFixture(file);
    expect(loaded.vaultRoot).toBe(join(tempDir, "v"));
    expect(loaded.queries).toEqual([validQuery]);
  });

  it("keeps only the known fields of a query", () => {
    const parsed = parseBenchmarkFixture(
      { version: 1, vault: "v", queries: [{ ...validQuery, extra: true }] },
      "bench.json",
    );
    expect(parsed.queries[0]).toEqual(validQuery);
    expect(parsed.queries[0]).not.toHaveProperty("expectedConflicts");
  });

  it("reports an unreadable file and a file that is not JSON", () => {
    expect(() => loadBenchmarkFixture(join(tempDir, "missing.json"))).toThrow(
      /cannot read benchmark fixture/,
    );
    const file = join(tempDir, "broken.json");
    writeFileSync(file, "{ not json");
    expect(() => loadBenchmarkFixture(file)).toThrow(/not valid JSON/);
  });

  it("names the offending field of a malformed fixture", () => {
    expect(invalidMessage([])).toMatch(/at \(root\): expected an object/);
    expect(invalidMessage({ version: 2, vault: "v", queries: [] })).toMatch(
      /at version: expected 1, got 2/,
    );
    expect(invalidMessage({ version: 1, vault: "", queries: [] })).toMatch(/at vault:/);
    expect(invalidMessage({ version: 1, vault: "v", queries: {} })).toMatch(
      /at queries: expected an array/,
    );
    expect(
      invalidMessage({ version: 1, vault: "v", queries: [{ ...validQuery, category: "fuzzy" }] }),
    ).toMatch(/at queries\[0\]\.category: expected one of exact_lookup, .*got "fuzzy"/);
    expect(
      invalidMessage({ version: 1, vault: "v", queries: [{ ...validQuery, split: "test" }] }),
    ).toMatch(/at queries\[0\]\.split:/);
    expect(
      invalidMessage({
        version: 1,
        vault: "v",
        queries: [
          { ...validQuery, judgments: [{ pageId: "concepts/rrf", grade: 4, role: "canonical" }] },
        ],
      }),
    ).toMatch(/at queries\[0\]\.judgments\[0\]\.grade: expected 1, 2 or 3, got 4/);
    expect(
      invalidMessage({
        version: 1,
        vault: "v",
        queries: [
          { ...validQuery, judgments: [{ pageId: "concepts/rrf", grade: 3, role: "answer" }] },
        ],
      }),
    ).toMatch(/at queries\[0\]\.judgments\[0\]\.role:/);
  });

  it("keeps `historical: true` on a judgment and rejects any other value", () => {
    const judgment = { pageId: "concepts/old", grade: 2, role: "canonical", historical: true };
    const parsed = parseBenchmarkFixture(
      { version: 1, vault: "v", queries: [{ ...validQuery, judgments: [judgment] }] },
      "bench.json",
    );
    expect(parsed.queries[0]?.judgments[0]).toEqual(judgment);
    expect(
      invalidMessage({
        version: 1,
        vault: "v",
        queries: [{ ...validQuery, judgments: [{ ...judgment, historical: false }] }],
      }),
    ).toMatch(/judgments\[0\]\.historical: expected true when present/);
  });

  it("rejects page ids that could never equal a retrieved page id", () => {
    for (const pageId of [
      "concepts/rrf.md",
      "rrf",
      "/concepts/rrf",
      "concepts/../secret",
      "a b/c",
    ]) {
      expect(
        invalidMessage({
          version: 1,
          vault: "v",
          queries: [{ ...validQuery, judgments: [{ pageId, grade: 3, role: "canonical" }] }],
        }),
        pageId,
      ).toMatch(/judgments\[0\]\.pageId: expected a page id/);
    }
    expect(
      invalidMessage({
        version: 1,
        vault: "v",
        queries: [{ ...validQuery, expectedConflicts: ["sources/x", 3] }],
      }),
    ).toMatch(/expectedConflicts\[1\]: expected a page id/);
  });

  it("accepts page ids whose slug is in a non-Latin script", () => {
    const parsed = parseBenchmarkFixture(
      {
        version: 1,
        vault: "v",
        queries: [
          {
            ...validQuery,
            judgments: [{ pageId: "concepts/卡片盒", grade: 3, role: "canonical" }],
          },
        ],
      },
      "bench.json",
    );
    expect(parsed.queries[0]?.judgments[0]?.pageId).toBe("concepts/卡片盒");
  });

  it("rejects duplicate query ids and a page judged twice for one query", () => {
    expect(invalidMessage({ version: 1, vault: "v", queries: [validQuery, validQuery] })).toMatch(
      /at queries\[1\]\.id: duplicate query id "q-1"/,
    );
    expect(
      invalidMessage({
        version: 1,
        vault: "v",
        queries: [{ ...validQuery, judgments: [...validQuery.judgments, ...validQuery.judgments] }],
      }),
    ).toMatch(/at queries\[0\]\.judgments\[1\]\.pageId: page "concepts\/rrf" judged twice/);
  });
});
