/**
 * Runs a BEIR collection through the real indexing and retrieval path: each
 * document becomes a `source` page of a temporary vault, the vault is indexed
 * by the service's own `reindex`, and each judged query goes through
 * `retrieve()` with a ranking policy of depth 100 and no floor. Memory stays
 * flat in the corpus size on our side: documents are streamed to pages and
 * each query keeps only its scores (the index itself is the engine's).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { basename, join, resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { capabilities, retrievalVault } from "../recall/recall-vaults.ts";
import { reindexDiagnostics } from "../reindex-diagnostics.ts";
import { type RetrievalOutcome, type RetrievalPartName, retrieve } from "../retrieval.ts";
import type { RecallPolicy } from "../retrieval-policy.ts";
import type { RetrievalMode, WikiSettings } from "../settings.ts";
import { createWikiService } from "../wiki-service.ts";
import {
  BEIR_FILES,
  BeirInputError,
  type BeirQrels,
  type BeirQuery,
  beirFiles,
  countLines,
  judgedQueryIds,
  readCorpus,
  readQrels,
  readQueries,
} from "./beir-reader.ts";
import { ndcgAt, recallAt, reciprocalRank, roundMetric } from "./metrics.ts";
import { peakRssMb } from "./peak-rss.ts";
import { openRawFts } from "./raw-fts.ts";

/** Results scored per query: Recall@100 needs the first 100. */
export const BEIR_DEPTH = 100;

/** Every candidate to depth 100, whatever its confidence: the metrics judge the ranking. */
const RANKING_POLICY: Readonly<RecallPolicy> = Object.freeze({
  name: "explicit",
  includePersonal: false,
  minScore: 0,
  maxPerVault: BEIR_DEPTH,
  maxResults: BEIR_DEPTH,
});

/** Page folder of the documents; a page id is `sources/<page name>`. */
const FOLDER = "sources";
/** Title of a page whose document has none: no words, so nothing lands in BM25's title column. */
const UNTITLED = "—";
/** Room for `.md` and the temporary suffix of atomic writes inside a 255-byte file name. */
const MAX_NAME_CHARS = 200;
const PROGRESS_EVERY = 1_000;

/**
 * The page name of a document id: percent-encoding of everything but
 * `a-z 0-9 _ -`. Reversible (`docIdOf`), never starts with a dot (hidden
 * files are skipped by the vault), holds no `/`, and stays distinct on
 * case-insensitive file systems because capitals are encoded too.
 */
export function pageNameOf(docId: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(docId);
  } catch {
    throw new BeirInputError(`document id ${JSON.stringify(docId)} is not well-formed Unicode`);
  }
  // encodeURIComponent keeps these; escapes it wrote (`%2F`) pass through unchanged.
  return encoded.replace(/%[0-9A-F]{2}|[A-Z.!~*'()]/g, (m) =>
    m.startsWith("%") ? m : `%${m.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The document id of a page name made by `pageNameOf`. */
export function docIdOf(pageName: string): string {
  return decodeURIComponent(pageName);
}

/** The page text of a document: a `source` page whose body is the document text. */
export function pageTextOf(title: string, text: string): string {
  const oneLine = title.replace(/\s+/g, " ").trim();
  // JSON strings are valid YAML double-quoted scalars: any title survives the frontmatter.
  return `---\ntype: source\ntitle: ${JSON.stringify(oneLine || UNTITLED)}\n---\n${text}\n`;
}

/** What to run and where. */
export interface BeirRunOptions {
  /** Folder in the BEIR layout. */
  collection: string;
  /** An empty folder that becomes the temporary vault; the caller removes it. */
  workDir: string;
  mode: RetrievalMode;
  /** Host settings; only the models are used. */
  settings: WikiSettings;
  /** Run only the first N judged queries (file order). */
  limitQueries?: number;
  onProgress?: (event: { phase: string; current: number; total: number }) => void;
  /** Each query's scores as it is run (paired comparisons need them per query). */
  onQueryScored?: (queryId: string, scores: BeirMetrics) => void;
  /** Each query's whole answer in the first pass (hits, scores, excerpts): to check a change keeps them. */
  onQueryAnswered?: (queryId: string, outcome: RetrievalOutcome) => void;
}

/** Means over the queries run, rounded to 6 decimals. */
export interface BeirMetrics {
  /** nDCG@10 with exponential gains 2^grade − 1 (the project's metric). */
  ndcg10: number;
  /** nDCG@10 with linear gains, as trec_eval and BEIR's published figures compute it. */
  ndcg10Linear: number;
  recall100: number;
  mrr10: number;
}

/** What `runBeir` reports; small whatever the corpus size. */
export interface BeirReport {
  collection: string;
  mode: RetrievalMode;
  /** Modes retrieval actually used, counted over the queries (fallbacks show here). */
  modesUsed: Record<string, number>;
  depth: number;
  documents: { read: number; indexed: number };
  /** `judged`: queries with a relevant judgment; `run`: those run (after `--limit-queries`). */
  queries: { judged: number; run: number };
  metrics: BeirMetrics;
  /** Per-query wall time of `retrieve()`. */
  latencyMs: { p50: number; p95: number };
  /**
   * Per-query wall time of a plain SQLite FTS5 BM25 query (the query's terms
   * ORed, to the same depth) on the same index, query by query beside
   * `retrieve()` in this run: the engine's own cost.
   */
  rawFts5Ms: { p50: number; p95: number };
  /** `latencyMs` over `rawFts5Ms`, percentile by percentile: what recall's pipeline adds. */
  ratioToRawFts5: { p50: number; p95: number };
  /**
   * The same two in this process's CPU time: steadier than wall time on a
   * busy machine (other processes' turns are not counted).
   */
  cpuMs: {
    retrieve: { p50: number; p95: number };
    rawFts5: { p50: number; p95: number };
    ratio: { p50: number; p95: number };
  };
  /**
   * Every query asked again after the whole first pass, in the same order
   * and beside the same raw query: recall in a long-lived host (the Pi
   * extension, the MCP server), where each page was tokenized and each term
   * counted once already. The first pass's figures above include those
   * one-time costs. `changedAnswers` counts queries whose ranking differed
   * from the first pass's (kept state must never change an answer): 0.
   */
  warm: {
    latencyMs: { p50: number; p95: number };
    rawFts5Ms: { p50: number; p95: number };
    ratioToRawFts5: { p50: number; p95: number };
    changedAnswers: number;
  };
  /** Where `retrieve()`'s time went, per part (see `RetrievalPartName`). */
  partsMs: Partial<Record<RetrievalPartName, { p50: number; p95: number }>>;
  /** The machine the times were taken on: a loaded machine's figures are noisy. */
  machine: { cpus: number; loadAverage: [number, number, number] };
  durationMs: { pages: number; index: number; queries: number };
  /** Peak resident set of the whole process so far. */
  peakRssMb: number;
  diagnostics: Diagnostic[];
}

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 100) / 100;
}

/** Scores of one query against its judgments. */
export function scoreQuery(
  ranked: readonly string[],
  grades: ReadonlyMap<string, number>,
): BeirMetrics {
  const positive = new Map([...grades].filter(([, grade]) => grade > 0));
  const relevant = new Set(positive.keys());
  // ndcgAt's gain is 2^g − 1; a grade of log2(1 + g) makes it g, trec_eval's linear gain.
  const linear = new Map([...positive].map(([id, grade]) => [id, Math.log2(1 + grade)]));
  return {
    ndcg10: ndcgAt(ranked, positive, 10),
    ndcg10Linear: ndcgAt(ranked, linear, 10),
    recall100: recallAt(ranked, relevant, BEIR_DEPTH),
    mrr10: reciprocalRank(ranked.slice(0, 10), relevant),
  };
}

/** Writes one page per corpus document, streaming; returns how many were written. */
async function writePages(
  corpusPath: string,
  wikiDir: string,
  onProgress: BeirRunOptions["onProgress"],
): Promise<number> {
  const total = await countLines(corpusPath);
  const dir = join(wikiDir, FOLDER);
  let written = 0;
  for await (const doc of readCorpus(corpusPath)) {
    const name = pageNameOf(doc.id);
    if (name.length > MAX_NAME_CHARS)
      throw new BeirInputError(
        `${BEIR_FILES.corpus}: document id ${JSON.stringify(doc.id.slice(0, 60))}… is too long for a page name`,
      );
    try {
      // `wx`: a second document with the same id must not silently replace the first.
      writeFileSync(join(dir, `${name}.md`), pageTextOf(doc.title, doc.text), { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST")
        throw new BeirInputError(`${BEIR_FILES.corpus}: duplicate _id ${JSON.stringify(doc.id)}`);
      throw error;
    }
    written += 1;
    if (written % PROGRESS_EVERY === 0) onProgress?.({ phase: "pages", current: written, total });
  }
  onProgress?.({ phase: "pages", current: written, total: written });
  return written;
}

/** Reads the judged queries, or fails before any page is written. */
export async function readJudged(
  files: ReturnType<typeof beirFiles>,
  limit: number | undefined,
): Promise<{ qrels: BeirQrels; judged: number; queries: BeirQuery[] }> {
  const qrels = await readQrels(files.qrels);
  const judgedIds = judgedQueryIds(qrels);
  if (judgedIds.size === 0)
    throw new BeirInputError(`${BEIR_FILES.qrels}: no judgment with a score above 0`);
  const all = await readQueries(files.queries, judgedIds);
  // Only the judgments of the queries that run stay in memory.
  const queries = limit === undefined ? all : all.slice(0, limit);
  const kept = new Set(queries.map((q) => q.id));
  for (const id of [...qrels.keys()]) if (!kept.has(id)) qrels.delete(id);
  return { qrels, judged: judgedIds.size, queries };
}

/** Runs the collection in `options.workDir` and reports the metrics. */
export async function runBeir(options: BeirRunOptions): Promise<BeirReport> {
  const files = beirFiles(options.collection);
  const { qrels, judged, queries } = await readJudged(files, options.limitQueries);
  const diagnostics = new Map<string, Diagnostic>();
  const note = (d: Diagnostic) => diagnostics.set(`${d.code}\u0000${d.message}`, d);

  const service = createWikiService({
    cwd: options.workDir,
    vault: options.workDir,
    settings: options.settings,
  });
  try {
    const t0 = performance.now();
    const { vault: paths } = service.bootstrap({ name: "beir" });
    const read = await writePages(files.corpus, paths.wiki, options.onProgress);
    const t1 = performance.now();

    const vectors =
      options.mode !== "lexical" && service.handles.availability().embed.available === true;
    const indexed = await service.reindex({
      scope: "all",
      components: vectors ? ["lexical", "vectors"] : ["lexical"],
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const failure = reindexDiagnostics(indexed).find((d) => d.severity === "error");
    if (!indexed.ok || failure) throw new Error(failure?.message ?? "indexing failed");
    const t2 = performance.now();

    // One snapshot for every query: the vault does not change during the run.
    const vault = retrievalVault(service.handles.get(paths));
    if (vault.status.state !== "ready")
      throw new Error(
        `the index is ${vault.status.state} after indexing: ${vault.status.diagnostics[0]?.message ?? "no detail"}`,
      );
    const caps = capabilities(service.handles);
    const rejected = vault.status.documents < read;
    if (rejected) {
      const first = service.registry(paths).diagnostics.find((d) => d.severity === "error");
      note(
        diagnostic(
          "beir_documents_skipped",
          "warning",
          `${read - vault.status.documents} of ${read} documents were not indexed${first ? ` (first: ${first.message})` : ""}`,
        ),
      );
    }

    const ask = (text: string): Promise<RetrievalOutcome> =>
      retrieve([vault], {
        query: text,
        policy: RANKING_POLICY,
        mode: options.mode,
        capabilities: caps,
      });
    // One untimed query first: opening the store and loading a model are not per-query costs.
    if (queries[0]) await ask(queries[0].text);
    const raw = openRawFts(paths, BEIR_DEPTH);
    if (queries[0]) raw.search(queries[0].text);

    const prefix = `${FOLDER}/`;
    const sums: BeirMetrics = { ndcg10: 0, ndcg10Linear: 0, recall100: 0, mrr10: 0 };
    const latencies: number[] = [];
    const rawLatencies: number[] = [];
    const cpu: number[] = [];
    const rawCpu: number[] = [];
    const cpuSince = (from: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(from);
      return (used.user + used.system) / 1000;
    };
    const parts = new Map<RetrievalPartName, number[]>();
    const modesUsed: Record<string, number> = {};
    // A digest of each query's ranking, for the warm pass to compare with.
    const answers: string[] = [];
    const digest = (outcome: RetrievalOutcome) =>
      createHash("sha1")
        .update(outcome.hits.map((hit) => `${hit.id}\u0000${hit.score}`).join("\n"))
        .digest("base64");
    for (const [i, query] of queries.entries()) {
      const timeRaw = () => {
        const used = process.cpuUsage();
        const at = performance.now();
        raw.search(query.text);
        rawLatencies.push(performance.now() - at);
        rawCpu.push(cpuSince(used));
      };
      // Alternating which goes first, so a slow spell of the machine weighs on both alike.
      if (i % 2 === 0) timeRaw();
      const used = process.cpuUsage();
      const start = performance.now();
      const outcome = await ask(query.text);
      latencies.push(performance.now() - start);
      cpu.push(cpuSince(used));
      if (i % 2 === 1) timeRaw();
      for (const part of outcome.parts) {
        const list = parts.get(part.stage) ?? [];
        list.push(part.ms);
        parts.set(part.stage, list);
      }
      modesUsed[outcome.modeUsed] = (modesUsed[outcome.modeUsed] ?? 0) + 1;
      answers.push(digest(outcome));
      options.onQueryAnswered?.(query.id, outcome);
      for (const d of outcome.diagnostics) note(d);
      const ranked = outcome.hits.flatMap((hit) =>
        hit.id.startsWith(prefix) ? [docIdOf(hit.id.slice(prefix.length))] : [],
      );
      const scores = scoreQuery(ranked, qrels.get(query.id) ?? new Map());
      options.onQueryScored?.(query.id, scores);
      for (const key of Object.keys(sums) as Array<keyof BeirMetrics>) sums[key] += scores[key];
      if (latencies.length % 50 === 0 || latencies.length === queries.length)
        options.onProgress?.({
          phase: "queries",
          current: latencies.length,
          total: queries.length,
        });
    }
    const t3 = performance.now();
    const warmLatencies: number[] = [];
    const warmRaw: number[] = [];
    let changedAnswers = 0;
    for (const [i, query] of queries.entries()) {
      const timeRaw = () => {
        const at = performance.now();
        raw.search(query.text);
        warmRaw.push(performance.now() - at);
      };
      if (i % 2 === 0) timeRaw();
      const start = performance.now();
      const outcome = await ask(query.text);
      warmLatencies.push(performance.now() - start);
      if (i % 2 === 1) timeRaw();
      if (digest(outcome) !== answers[i]) changedAnswers += 1;
    }
    raw.close();

    latencies.sort((a, b) => a - b);
    rawLatencies.sort((a, b) => a - b);
    const latencyMs = { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) };
    const rawFts5Ms = { p50: percentile(rawLatencies, 0.5), p95: percentile(rawLatencies, 0.95) };
    const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
    const spread = (list: number[]) => {
      list.sort((a, b) => a - b);
      return { p50: percentile(list, 0.5), p95: percentile(list, 0.95) };
    };
    const cpuRetrieve = spread(cpu);
    const cpuRaw = spread(rawCpu);
    const partsMs: BeirReport["partsMs"] = {};
    for (const [stage, list] of parts) {
      list.sort((a, b) => a - b);
      partsMs[stage] = { p50: percentile(list, 0.5), p95: percentile(list, 0.95) };
    }
    const mean = (sum: number) => roundMetric(queries.length === 0 ? 0 : sum / queries.length);
    return {
      collection: basename(resolve(options.collection)),
      mode: options.mode,
      modesUsed,
      depth: BEIR_DEPTH,
      documents: { read, indexed: vault.status.documents },
      queries: { judged, run: queries.length },
      metrics: {
        ndcg10: mean(sums.ndcg10),
        ndcg10Linear: mean(sums.ndcg10Linear),
        recall100: mean(sums.recall100),
        mrr10: mean(sums.mrr10),
      },
      latencyMs,
      rawFts5Ms,
      ratioToRawFts5: {
        p50: ratio(latencyMs.p50, rawFts5Ms.p50),
        p95: ratio(latencyMs.p95, rawFts5Ms.p95),
      },
      cpuMs: {
        retrieve: cpuRetrieve,
        rawFts5: cpuRaw,
        ratio: {
          p50: ratio(cpuRetrieve.p50, cpuRaw.p50),
          p95: ratio(cpuRetrieve.p95, cpuRaw.p95),
        },
      },
      warm: (() => {
        const latency = spread(warmLatencies);
        const rawMs = spread(warmRaw);
        return {
          latencyMs: latency,
          rawFts5Ms: rawMs,
          ratioToRawFts5: {
            p50: ratio(latency.p50, rawMs.p50),
            p95: ratio(latency.p95, rawMs.p95),
          },
          changedAnswers,
        };
      })(),
      partsMs,
      machine: {
        cpus: cpus().length,
        loadAverage: loadavg().map((l) => Math.round(l * 100) / 100) as [number, number, number],
      },
      durationMs: {
        pages: Math.round(t1 - t0),
        index: Math.round(t2 - t1),
        queries: Math.round(t3 - t2),
      },
      peakRssMb: peakRssMb(),
      diagnostics: [...diagnostics.values()],
    };
  } finally {
    await service.close();
  }
}
