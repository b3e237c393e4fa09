/**
 * The public collections the retrieval benchmarks run, found under the
 * eval roots (`LLM_WIKI_EVAL_ROOTS`, else `.cache/eval` in the checkout and
 * `../shared/eval` beside it), each run through our lexical retrieval and
 * plain SQLite FTS5 BM25 in one go (lib/bench/beir-compare.ts). A known
 * collection that is absent is skipped with a line saying how to get it —
 * CI has none of them — and never fails the run.
 */
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import {
  type BeirComparison,
  compareWithFts5,
  renderComparisons,
  TARGET_MARGIN,
} from "../../extensions/llm-wiki/lib/bench/beir-compare.ts";
import { BEIR_FILES } from "../../extensions/llm-wiki/lib/bench/beir-reader.ts";
import { DEFAULT_SETTINGS } from "../../extensions/llm-wiki/lib/settings.ts";
import { formattedJson } from "./report-json.ts";

const root = join(import.meta.dirname, "..", "..");

/** Collections the project reports, and how to get each. */
export const KNOWN_COLLECTIONS: Readonly<Record<string, string>> = {
  cranfield: "Cranfield in the BEIR layout (contributors have it in ../shared/eval/cranfield)",
  locomo:
    "convert LoCoMo first: node scripts/eval/convert-locomo.ts <locomo checkout> (writes .cache/eval/locomo; CC BY-NC 4.0, never committed)",
};

/** Where collections are looked for, first match wins. */
export function evalRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = env.LLM_WIKI_EVAL_ROOTS?.split(delimiter).filter((p) => p !== "");
  if (listed && listed.length > 0) return listed.map((p) => resolve(p));
  return [join(root, ".cache", "eval"), resolve(root, "..", "shared", "eval")];
}

function isBeirFolder(dir: string): boolean {
  return Object.values(BEIR_FILES).every((f) => {
    try {
      return statSync(join(dir, f)).isFile();
    } catch {
      return false;
    }
  });
}

/** Every BEIR folder directly under the roots, by name (the first root holding a name wins). */
export function findCollections(roots: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const r of roots) {
    let names: string[] = [];
    try {
      names = readdirSync(r).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = join(r, name);
      if (!found.has(name) && isBeirFolder(dir)) found.set(name, dir);
    }
  }
  return found;
}

/** What a run of the collections gives. */
export interface CollectionsRun {
  comparisons: BeirComparison[];
  /** Lines of a report: the table, skipped collections and where reports were written. */
  lines: string[];
  /** Wanted collections not found, each with how to get it. */
  skipped: string[];
}

/** The report file of a collection. */
export function reportPath(name: string): string {
  return join(root, "benchmarks", `beir-${name}.json`);
}

/**
 * Runs `wanted` (default: every collection found, and the known ones
 * reported as skipped when absent) in lexical mode with FTS5 BM25 beside,
 * writing `benchmarks/beir-<name>.json` for each when `write`.
 */
export async function runCollections(options: {
  wanted?: readonly string[];
  write: boolean;
  roots?: readonly string[];
  log?: (line: string) => void;
}): Promise<CollectionsRun> {
  const roots = options.roots ?? evalRoots();
  const found = findCollections(roots);
  const wanted = options.wanted ?? [
    ...new Set([...Object.keys(KNOWN_COLLECTIONS), ...found.keys()]),
  ];
  const comparisons: BeirComparison[] = [];
  const skipped: string[] = [];
  const written: string[] = [];
  for (const name of wanted) {
    const dir = found.get(name);
    if (!dir) {
      skipped.push(
        `${name}: skipped, not found under ${roots.join(", ")} (${KNOWN_COLLECTIONS[name] ?? "a folder in the BEIR layout"})`,
      );
      continue;
    }
    const workDir = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-beir-")));
    try {
      options.log?.(`${name}: running ${dir}`);
      const comparison = await compareWithFts5({
        collection: dir,
        workDir,
        mode: "lexical",
        settings: DEFAULT_SETTINGS,
      });
      comparisons.push(comparison);
      if (options.write) {
        const path = reportPath(name);
        writeFileSync(path, formattedJson(reportOf(comparison)));
        written.push(path);
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }
  const lines = [
    `public collections, lexical mode beside plain SQLite FTS5 BM25 (target: nDCG@10 ≥ FTS5 + ${TARGET_MARGIN})`,
    ...(comparisons.length > 0 ? renderComparisons(comparisons) : ["(no collection found)"]),
    ...skipped,
    ...written.map((p) => `wrote ${p}`),
  ];
  return { comparisons, lines, skipped };
}

/** A collection's committed report: both systems, the paired difference, and the machine's state. */
export function reportOf(c: BeirComparison): object {
  return {
    benchmark: "beir",
    schema: 2,
    collection: c.collection,
    machine: {
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
    },
    ours: c.ours,
    fts5: c.fts5,
    delta: c.delta,
    targetMargin: TARGET_MARGIN,
    marginMet: c.delta.ndcg10.mean >= TARGET_MARGIN,
  };
}
