/**
 * Automatic-recall precision on one vault: the ordinary coding prompts
 * (test/fixtures/retrieval/ordinary-prompts.json) must inject nothing, the
 * positive questions must inject the page asked about, and explicit recall
 * must list it first. Runs the real service on a temporary copy (or a
 * generated vault), lexical mode, no model.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BENCHMARK_NOW,
  type BenchmarkQuery,
  type BenchmarkSplit,
} from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import { DEFAULT_SETTINGS } from "../../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";

export interface OrdinaryPrompt {
  id: string;
  text: string;
  category: string;
  split: BenchmarkSplit;
}

export function loadOrdinaryPrompts(file: string): OrdinaryPrompt[] {
  return (JSON.parse(readFileSync(file, "utf8")) as { prompts: OrdinaryPrompt[] }).prompts;
}

export interface SplitFigures {
  negatives: number;
  falsePositives: number;
  falsePositiveRate: number;
  positives: number;
  injected: number;
  injectedRate: number;
  first: number;
  firstRate: number;
}

export interface PrecisionReport {
  vault: string;
  pages: number;
  all: SplitFigures;
  train: SplitFigures;
  heldout: SplitFigures;
  /** Prompts that injected something, with what (for tuning on the train split). */
  falsePositives: Array<{ id: string; split: BenchmarkSplit; pages: string[] }>;
  /** Questions whose page was not injected. */
  missed: Array<{ id: string; split: BenchmarkSplit; expected: string; injected: string[] }>;
}

const rate = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 1e4) / 1e4);

/**
 * A lexical service over a vault put in `dir`: a copy of `source` (a folder
 * holding `.llm-wiki/`, without its `meta/`) or one `write` makes, indexed.
 */
export async function indexedBenchVault(
  name: string,
  vault: { source: string } | { write: (root: string) => void },
  dir: string,
): Promise<WikiService> {
  if ("source" in vault) {
    cpSync(vault.source, dir, {
      recursive: true,
      filter: (src) => !src.includes(join(".llm-wiki", "meta")),
    });
  } else vault.write(dir);
  const service = createWikiService({
    cwd: dir,
    vault: dir,
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  const indexed = await service.reindex({ scope: "all" });
  if (!indexed.ok)
    throw new Error(`indexing ${name} failed: ${JSON.stringify(indexed.diagnostics)}`);
  return service;
}

/**
 * Runs the prompts and questions on the vault at `source` (a folder holding
 * `.llm-wiki/`, copied without its `meta/`) or written by `write`.
 */
export async function runAutoPrecision(
  name: string,
  vault: { source: string } | { write: (root: string) => void },
  questions: readonly BenchmarkQuery[],
  prompts: readonly OrdinaryPrompt[],
): Promise<PrecisionReport> {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-precision-"));
  try {
    const service = await indexedBenchVault(name, vault, dir);
    const counts = {
      train: { neg: 0, fp: 0, pos: 0, inj: 0, first: 0 },
      heldout: { neg: 0, fp: 0, pos: 0, inj: 0, first: 0 },
    };
    const falsePositives: PrecisionReport["falsePositives"] = [];
    const missed: PrecisionReport["missed"] = [];
    for (const prompt of prompts) {
      const auto = await service.recall({
        query: prompt.text,
        policy: "automatic",
        now: BENCHMARK_NOW,
      });
      counts[prompt.split].neg += 1;
      if (auto.results.length > 0) {
        counts[prompt.split].fp += 1;
        falsePositives.push({
          id: prompt.id,
          split: prompt.split,
          pages: auto.results.map((r) => r.id),
        });
      }
    }
    for (const q of questions) {
      const asked = q.judgments.find((j) => j.grade === 3)?.pageId ?? "";
      const c = counts[q.split];
      c.pos += 1;
      const auto = await service.recall({ query: q.text, policy: "automatic", now: BENCHMARK_NOW });
      const ids = auto.results.map((r) => r.id);
      if (ids.includes(asked)) c.inj += 1;
      else missed.push({ id: q.id, split: q.split, expected: asked, injected: ids });
      const explicit = await service.recall({
        now: BENCHMARK_NOW,
        query: q.text,
        policy: "explicit",
        refreshIndex: false,
      });
      if (explicit.results[0]?.id === asked) c.first += 1;
    }
    const pages = service.status().vault?.pages ?? 0;
    await service.close();
    const figures = (parts: Array<(typeof counts)["train"]>): SplitFigures => {
      const sum = (k: keyof (typeof counts)["train"]) => parts.reduce((n, p) => n + p[k], 0);
      return {
        negatives: sum("neg"),
        falsePositives: sum("fp"),
        falsePositiveRate: rate(sum("fp"), sum("neg")),
        positives: sum("pos"),
        injected: sum("inj"),
        injectedRate: rate(sum("inj"), sum("pos")),
        first: sum("first"),
        firstRate: rate(sum("first"), sum("pos")),
      };
    };
    return {
      vault: name,
      pages,
      all: figures([counts.train, counts.heldout]),
      train: figures([counts.train]),
      heldout: figures([counts.heldout]),
      falsePositives,
      missed,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
