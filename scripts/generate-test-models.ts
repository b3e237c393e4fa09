/**
 * Writes the tiny GGUF models the test suite points QMD at, so no test ever
 * needs a download: `embed.gguf` (bag-of-words embedder), `rerank.gguf`
 * (word-overlap reranker) and `generate.gguf` (query-expansion generator that
 * answers in two tokens). Output is byte-identical on every run.
 *
 *   node scripts/generate-test-models.ts [outDir]   (default: .cache/test-models)
 *
 * Point QMD at them with QMD_EMBED_MODEL, QMD_RERANK_MODEL and
 * QMD_GENERATE_MODEL (absolute paths). The environment variables matter even
 * when `config.models` is set: QMD tokenises for chunking with a process-wide
 * model that only reads QMD_EMBED_MODEL.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildEmbedModel, buildGenerateModel, buildRerankModel } from "./test-models/models.ts";

/** Absolute paths of the three generated models. */
export interface TestModelPaths {
  embed: string;
  rerank: string;
  generate: string;
}

/** Where the models go unless told otherwise: `<repo>/.cache/test-models`. */
export const DEFAULT_TEST_MODELS_DIR = join(import.meta.dirname, "..", ".cache", "test-models");

const MODELS = {
  embed: { file: "embed.gguf", build: buildEmbedModel },
  rerank: { file: "rerank.gguf", build: buildRerankModel },
  generate: { file: "generate.gguf", build: buildGenerateModel },
} as const;
type ModelName = keyof typeof MODELS;
const NAMES = Object.keys(MODELS) as ModelName[];

const MANIFEST = "manifest.json";
const SOURCES = [
  "generate-test-models.ts",
  "test-models/gguf-writer.ts",
  "test-models/vocab.ts",
  "test-models/models.ts",
];

interface Manifest {
  sourceHash: string;
  files: Record<ModelName, string>;
}

const sha256 = (data: Buffer | string): string => createHash("sha256").update(data).digest("hex");

/** Changes whenever the generator's code does, which is when the models may change. */
function sourceHash(): string {
  return sha256(SOURCES.map((f) => readFileSync(join(import.meta.dirname, f), "utf8")).join("\0"));
}

const fileHash = (path: string): string | null =>
  existsSync(path) ? sha256(readFileSync(path)) : null;

function readManifest(dir: string): Manifest | null {
  try {
    return JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Manifest;
  } catch {
    return null;
  }
}

/** Write-then-rename, so a concurrent reader never sees half a model. */
function writeAtomic(path: string, data: Buffer | string): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** What `ensureTestModels` did, for the CLI's report. */
export interface EnsureReport {
  paths: TestModelPaths;
  written: ModelName[];
}

/**
 * Makes sure the three models exist in `outDir` with the content this code
 * generates, and returns their paths and which files had to be (re)written.
 * When the manifest's source hash and every file's hash match, nothing is
 * built: the check reads ~5 MB and takes a few milliseconds.
 */
export function ensureTestModelsSync(outDir: string = DEFAULT_TEST_MODELS_DIR): EnsureReport {
  const dir = resolve(outDir);
  const paths = Object.fromEntries(
    NAMES.map((name) => [name, join(dir, MODELS[name].file)]),
  ) as unknown as TestModelPaths;
  const source = sourceHash();
  const manifest = readManifest(dir);
  if (
    manifest?.sourceHash === source &&
    NAMES.every((name) => fileHash(paths[name]) === manifest.files[name])
  ) {
    return { paths, written: [] };
  }

  mkdirSync(dir, { recursive: true });
  const written: ModelName[] = [];
  const files = {} as Record<ModelName, string>;
  for (const name of NAMES) {
    const data = MODELS[name].build();
    files[name] = sha256(data);
    if (fileHash(paths[name]) !== files[name]) {
      writeAtomic(paths[name], data);
      written.push(name);
    }
  }
  writeAtomic(join(dir, MANIFEST), `${JSON.stringify({ sourceHash: source, files }, null, 2)}\n`);
  return { paths, written };
}

/**
 * Generates the test models into `outDir` (default `.cache/test-models`) if
 * they are missing or stale, and returns their absolute paths.
 */
export async function ensureTestModels(outDir?: string): Promise<TestModelPaths> {
  return ensureTestModelsSync(outDir).paths;
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const started = performance.now();
  const { paths, written } = ensureTestModelsSync(process.argv[2]);
  const ms = Math.round(performance.now() - started);
  const summary = written.length > 0 ? `wrote ${written.join(", ")}` : "up to date";
  process.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
  process.stderr.write(`test models ${summary} in ${ms} ms\n`);
}
