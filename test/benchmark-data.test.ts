/**
 * Benchmark data for automatic-recall precision: ordinary coding prompts that
 * must inject nothing, questions about the example vault that must hit, and a
 * generated 1,000-page vault on an unrelated topic with its own questions.
 * These specs keep the data well-formed and reproducible; they measure nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BenchmarkQuery,
  loadBenchmarkFixture,
  parseBenchmarkFixture,
} from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { topicVaultQuestions, writeTopicVault } from "../scripts/bench/topic-vault.ts";

const FIXTURES = join(import.meta.dirname, "fixtures", "retrieval");
const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");

const PROMPT_CATEGORIES = [
  "build_tooling",
  "language",
  "refactor",
  "tests",
  "git",
  "ui",
  "ops",
  "data",
  "debugging",
  "docs",
  "dependencies",
  "chit_chat",
] as const;

interface OrdinaryPrompt {
  id: string;
  text: string;
  category: string;
  split: string;
}

function readPrompts(): { version: unknown; prompts: OrdinaryPrompt[] } {
  return JSON.parse(readFileSync(join(FIXTURES, "ordinary-prompts.json"), "utf8"));
}

function pagePath(vaultRoot: string, pageId: string): string {
  return join(vaultRoot, ".llm-wiki", "wiki", `${pageId}.md`);
}

function heldoutShare(items: readonly { split: string }[]): number {
  return items.filter((item) => item.split === "heldout").length / items.length;
}

/** The one page a question is about: its only grade-3 canonical judgment. */
function askedAbout(query: BenchmarkQuery): string[] {
  return query.judgments
    .filter((judgment) => judgment.grade === 3 && judgment.role === "canonical")
    .map((judgment) => judgment.pageId);
}

describe("ordinary coding prompts (automatic recall must stay silent)", () => {
  const file = readPrompts();

  it("is version 1 with at least 180 well-formed prompts", () => {
    expect(file.version).toBe(1);
    expect(file.prompts.length).toBeGreaterThanOrEqual(180);
    for (const prompt of file.prompts) {
      expect(Object.keys(prompt).sort()).toEqual(["category", "id", "split", "text"]);
      expect(prompt.text.trim()).not.toBe("");
      expect(PROMPT_CATEGORIES).toContain(prompt.category);
      expect(["train", "heldout"]).toContain(prompt.split);
    }
  });

  it.each(PROMPT_CATEGORIES)("has at least 10 prompts in %s, some held out", (category) => {
    const inCategory = file.prompts.filter((prompt) => prompt.category === category);
    expect(inCategory.length).toBeGreaterThanOrEqual(10);
    expect(inCategory.some((prompt) => prompt.split === "heldout")).toBe(true);
    expect(inCategory.some((prompt) => prompt.split === "train")).toBe(true);
  });

  it("holds out about a third", () => {
    const share = heldoutShare(file.prompts);
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.42);
  });

  it("has unique ids and no duplicated text", () => {
    const ids = file.prompts.map((prompt) => prompt.id);
    expect(new Set(ids).size).toBe(ids.length);
    const texts = file.prompts.map((prompt) =>
      prompt.text.trim().toLowerCase().replace(/\s+/g, " "),
    );
    expect(new Set(texts).size).toBe(texts.length);
  });
});

describe("questions about the example vault (automatic recall must hit)", () => {
  const fixture = loadBenchmarkFixture(join(FIXTURES, "acme-questions.json"));

  it("loads through the benchmark loader and points at examples/acme-notes", () => {
    expect(fixture.vaultRoot).toBe(EXAMPLE);
    expect(fixture.queries.length).toBeGreaterThanOrEqual(45);
  });

  it("asks about exactly one page per question and expects a hit", () => {
    for (const query of fixture.queries) {
      expect(query.category).not.toBe("negative");
      expect(query.autoExpectation).toBe("hit");
      expect(askedAbout(query), query.id).toHaveLength(1);
    }
  });

  it("judges only pages that exist in the example vault", () => {
    for (const query of fixture.queries) {
      const pages = [
        ...query.judgments.map((judgment) => judgment.pageId),
        ...(query.expectedConflicts ?? []),
      ];
      for (const pageId of pages) {
        expect(existsSync(pagePath(fixture.vaultRoot, pageId)), `${query.id}: ${pageId}`).toBe(
          true,
        );
      }
    }
  });

  it("holds out about a third", () => {
    const share = heldoutShare(fixture.queries);
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.42);
  });
});

describe("generated topic vault (1,000 pages)", () => {
  const PAGES = 1000;
  const dirs: string[] = [];
  let first = "";
  let second = "";

  function filesUnder(root: string): string[] {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
      .sort();
  }

  beforeAll(() => {
    first = mkdtempSync(join(tmpdir(), "llm-wiki-topic-a-"));
    second = mkdtempSync(join(tmpdir(), "llm-wiki-topic-b-"));
    dirs.push(first, second);
    writeTopicVault(first, PAGES);
    writeTopicVault(second, PAGES);
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("writes the same bytes every time", () => {
    const files = filesUnder(first);
    expect(files).toEqual(filesUnder(second));
    expect(files).toContain(join(".llm-wiki", "config.json"));
    expect(files.filter((file) => file.endsWith(".md"))).toHaveLength(PAGES);
    for (const file of files) {
      expect(readFileSync(join(second, file)).equals(readFileSync(join(first, file))), file).toBe(
        true,
      );
    }
  });

  it("writes readable pages with distinct titles and 150 to 400 words of body", () => {
    const wiki = join(first, ".llm-wiki", "wiki");
    const titles = new Set<string>();
    for (const file of filesUnder(wiki)) {
      const id = file.slice(0, -".md".length).split("\\").join("/");
      const parsed = parsePage(id, join(wiki, file), readFileSync(join(wiki, file)));
      if (!parsed.ok) throw new Error(`${file} did not parse`);
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.page.status).toBe("stable");
      titles.add(parsed.page.title.toLowerCase());
      const words = parsed.page.body.split(/\s+/).filter((word) => word !== "").length;
      expect(words, file).toBeGreaterThanOrEqual(150);
      expect(words, file).toBeLessThanOrEqual(400);
    }
    expect(titles.size).toBe(PAGES);
  });

  it("asks at least 60 deterministic questions, each about one existing page", () => {
    const queries = topicVaultQuestions(PAGES);
    expect(topicVaultQuestions(PAGES)).toEqual(queries);
    expect(queries.length).toBeGreaterThanOrEqual(60);
    const fixture = parseBenchmarkFixture(
      { version: 1, vault: first, queries },
      join(first, "topic-questions.json"),
    );
    for (const query of fixture.queries) {
      expect(query.autoExpectation).toBe("hit");
      const [pageId] = askedAbout(query);
      expect(askedAbout(query), query.id).toHaveLength(1);
      expect(existsSync(pagePath(first, pageId ?? "")), `${query.id}: ${pageId}`).toBe(true);
    }
    const share = heldoutShare(queries);
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.42);
    expect(new Set(queries.map((query) => query.text)).size).toBe(queries.length);
  });
});
