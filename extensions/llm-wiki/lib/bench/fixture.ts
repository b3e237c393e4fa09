/**
 * The graded retrieval benchmark fixture: a committed vault plus a JSON file of
 * queries with relevance judgments. This module only types and validates that
 * file; scoring lives in `metrics.ts`.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";

/** Fixture schema version this loader understands. */
export const BENCHMARK_VERSION = 1;

/**
 * Every query category: the Phase 1 twelve, then issue 13's memory-bundle
 * categories (a superseded decision, a typed relation between cards).
 */
export const BENCHMARK_CATEGORIES = [
  "exact_lookup",
  "entity_alias",
  "paraphrase",
  "vague_recollection",
  "conceptual",
  "graph_scope",
  "evidence_request",
  "temporal",
  "contradiction",
  "conclusion",
  "synthesis",
  "negative",
  "superseded",
  "typed_relation",
] as const;

export type BenchmarkCategory = (typeof BENCHMARK_CATEGORIES)[number];
/** `canonical` pages answer; `evidence` pages back an answer up. */
export type BenchmarkRole = "canonical" | "evidence";
/** Later phases may tune on `train`; `heldout` is only ever measured. */
export type BenchmarkSplit = "train" | "heldout";
/** Whether automatic recall should inject something (`hit`) or stay silent (`none`). */
export type AutoExpectation = "hit" | "none";
/** 3 answers the query, 2 supports or is a secondary answer, 1 is relevant context. */
export type BenchmarkGrade = 1 | 2 | 3;

/** One graded page for one query. */
export interface BenchmarkJudgment {
  /** Page id: path under `wiki/` without `.md`, e.g. `concepts/rag`. */
  pageId: string;
  grade: BenchmarkGrade;
  role: BenchmarkRole;
  /**
   * A page a later claim supersedes: relevant (recall, nDCG) but never the
   * answer, so canonical@3 and canonical-first do not count it.
   */
  historical?: true;
}

/** One benchmark query and what a good retrieval returns for it. */
export interface BenchmarkQuery {
  id: string;
  text: string;
  category: BenchmarkCategory;
  split: BenchmarkSplit;
  judgments: BenchmarkJudgment[];
  autoExpectation: AutoExpectation;
  /** Pages holding conflicting claims that must all be retrieved together. */
  expectedConflicts?: string[];
}

/** A loaded, validated fixture. */
export interface BenchmarkFixture {
  version: typeof BENCHMARK_VERSION;
  /** Absolute path of the folder holding the fixture vault's `.llm-wiki/`. */
  vaultRoot: string;
  queries: BenchmarkQuery[];
}

const SPLITS: readonly string[] = ["train", "heldout"] satisfies BenchmarkSplit[];
const ROLES: readonly string[] = ["canonical", "evidence"] satisfies BenchmarkRole[];
const AUTO: readonly string[] = ["hit", "none"] satisfies AutoExpectation[];
const CATEGORIES: readonly string[] = BENCHMARK_CATEGORIES;
// A page id is a vault-relative `folder/slug` (slugs may be any script); anything
// else, such as a path with `.md` or `..`, could never equal a retrieved id.
const PAGE_ID = /^[^\s/.][^\s/]*(?:\/[^\s/.][^\s/]*)+$/u;

/**
 * The moment the benchmarks' recalls count "last week" or "in March" from:
 * fixed, so a run gives the same figures whatever day it is.
 */
export const BENCHMARK_NOW = new Date("2026-12-01T00:00:00.000Z");

/** Reads and validates a fixture file; `vault` inside it resolves against the file's folder. */
export function loadBenchmarkFixture(file: string): BenchmarkFixture {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw invalid(file, `cannot read benchmark fixture: ${errorMessage(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `benchmark fixture is not valid JSON: ${errorMessage(error)}`);
  }
  return parseBenchmarkFixture(value, file);
}

/**
 * Validates an already-parsed fixture. Fails with a `bench.fixture_invalid`
 * diagnostic naming the first offending field, e.g. `queries[3].judgments[0].grade`.
 */
export function parseBenchmarkFixture(value: unknown, file: string): BenchmarkFixture {
  const fail = (where: string, problem: string): never => {
    throw invalid(file, `invalid benchmark fixture at ${where}: ${problem}`);
  };
  const root = record(value, "(root)", fail);
  if (root.version !== BENCHMARK_VERSION) {
    fail("version", `expected ${BENCHMARK_VERSION}, got ${JSON.stringify(root.version)}`);
  }
  const vault = nonEmptyString(root.vault, "vault", fail);
  if (!Array.isArray(root.queries)) fail("queries", "expected an array");
  const queries = (root.queries as unknown[]).map((item, index) =>
    parseQuery(item, `queries[${index}]`, fail),
  );

  const seen = new Set<string>();
  queries.forEach((query, index) => {
    if (seen.has(query.id)) fail(`queries[${index}].id`, `duplicate query id "${query.id}"`);
    seen.add(query.id);
  });

  return {
    version: BENCHMARK_VERSION,
    vaultRoot: isAbsolute(vault) ? vault : resolve(dirname(file), vault),
    queries,
  };
}

type Fail = (where: string, problem: string) => never;

function parseQuery(value: unknown, where: string, fail: Fail): BenchmarkQuery {
  const item = record(value, where, fail);
  const id = nonEmptyString(item.id, `${where}.id`, fail);
  const text = nonEmptyString(item.text, `${where}.text`, fail);
  const category = oneOf(item.category, CATEGORIES, `${where}.category`, fail);
  const split = oneOf(item.split, SPLITS, `${where}.split`, fail);
  const autoExpectation = oneOf(item.autoExpectation, AUTO, `${where}.autoExpectation`, fail);
  if (!Array.isArray(item.judgments)) fail(`${where}.judgments`, "expected an array");
  const judgments = (item.judgments as unknown[]).map((entry, index) =>
    parseJudgment(entry, `${where}.judgments[${index}]`, fail),
  );
  // Two grades for one page would make nDCG's ideal ranking ambiguous.
  const pages = new Set<string>();
  judgments.forEach((judgment, index) => {
    if (pages.has(judgment.pageId)) {
      fail(`${where}.judgments[${index}].pageId`, `page "${judgment.pageId}" judged twice`);
    }
    pages.add(judgment.pageId);
  });

  const query: BenchmarkQuery = {
    id,
    text,
    category: category as BenchmarkCategory,
    split: split as BenchmarkSplit,
    judgments,
    autoExpectation: autoExpectation as AutoExpectation,
  };
  if (item.expectedConflicts !== undefined) {
    if (!Array.isArray(item.expectedConflicts)) {
      fail(`${where}.expectedConflicts`, "expected an array of page ids");
    }
    query.expectedConflicts = (item.expectedConflicts as unknown[]).map((pageId, index) =>
      pageIdOf(pageId, `${where}.expectedConflicts[${index}]`, fail),
    );
  }
  return query;
}

function parseJudgment(value: unknown, where: string, fail: Fail): BenchmarkJudgment {
  const item = record(value, where, fail);
  const pageId = pageIdOf(item.pageId, `${where}.pageId`, fail);
  const grade = item.grade;
  if (grade !== 1 && grade !== 2 && grade !== 3) {
    fail(`${where}.grade`, `expected 1, 2 or 3, got ${JSON.stringify(grade)}`);
  }
  const role = oneOf(item.role, ROLES, `${where}.role`, fail);
  const judgment: BenchmarkJudgment = {
    pageId,
    grade: grade as BenchmarkGrade,
    role: role as BenchmarkRole,
  };
  if (item.historical !== undefined) {
    if (item.historical !== true) fail(`${where}.historical`, "expected true when present");
    judgment.historical = true;
  }
  return judgment;
}

function record(value: unknown, where: string, fail: Fail): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(where, "expected an object");
  }
  return value as Record<string, unknown>;
}

function nonEmptyString(value: unknown, where: string, fail: Fail): string {
  if (typeof value !== "string" || value.trim() === "") fail(where, "expected a non-empty string");
  return value as string;
}

function oneOf(value: unknown, allowed: readonly string[], where: string, fail: Fail): string {
  if (typeof value !== "string" || !allowed.includes(value)) {
    fail(where, `expected one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
  }
  return value as string;
}

function pageIdOf(value: unknown, where: string, fail: Fail): string {
  if (typeof value !== "string" || !PAGE_ID.test(value) || value.endsWith(".md")) {
    fail(where, `expected a page id like "concepts/rag", got ${JSON.stringify(value)}`);
  }
  return value as string;
}

function invalid(file: string, message: string): WikiError {
  return new WikiError(diagnostic("bench.fixture_invalid", "error", message, { path: file }));
}
