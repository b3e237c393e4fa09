/**
 * `pnpm build`: the published bins (`llm-wiki`, `llm-wiki-mcp`) as bundled
 * ESM under `dist/`. Loading ~1,500 separate modules (TypeBox alone is 664
 * files, the MCP SDK brings zod and ajv) was most of the MCP server's time
 * from spawn to first answer; one bundle per entry (with shared chunks, so
 * dynamic imports stay lazy) loads in a fraction of it. QMD and its native
 * parts stay external: they load their own binaries and models at run time.
 * `node:http(s)` are bound without an ESM import (see build-http-builtins.ts),
 * and the built-ins only some commands use load on first call
 * (build-lazy-builtins.ts).
 * The Pi extension is not bundled: Pi loads its TypeScript source. A
 * dynamic import of a CommonJS package fails the build unless reviewed
 * (build-dynamic-imports.ts): in a split bundle it loses its named exports.
 */
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { type BuildOptions, build, type Metafile } from "esbuild";
import { BUILD_INPUTS_FILE, type BuildInputs } from "../extensions/llm-wiki/lib/stale-build.ts";
import { checkDynamicImports } from "./build-dynamic-imports.ts";
import { httpBuiltins } from "./build-http-builtins.ts";
import { lazyBuiltins } from "./build-lazy-builtins.ts";

const root = join(import.meta.dirname, "..");
const outdir = join(root, "dist");

/** Where the bulk document load's worker module is written, under `dist/`. */
const WORKER_OUT = "chunks/document-load-worker";

/**
 * The worker is started by URL relative to the module that starts it
 * (document-load.ts): that module must have landed in the same folder as the
 * worker's entry, or every rebuild of the installed package would fail.
 */
export function checkWorkerBeside(metafile: Metafile, out: string): void {
  const starter = "extensions/llm-wiki/lib/index/document-load.ts";
  const holders = Object.entries(metafile.outputs)
    .filter(([, o]) => starter in o.inputs)
    .map(([file]) => file);
  const folder = relative(root, join(out, dirname(WORKER_OUT)));
  // Output paths are relative to the working directory, the checkout.
  const astray = holders.filter((file) => dirname(file) !== folder);
  if (holders.length === 0 || astray.length > 0)
    throw new Error(
      `the bundle's ${starter} must sit in ${folder}/ beside ${WORKER_OUT}.js; it is in ${holders.join(", ") || "no output"}`,
    );
}

/** The build of both bins into `out`, as esbuild takes it. */
export function binBuildOptions(out: string): BuildOptions & { metafile: true } {
  return {
    absWorkingDir: root,
    entryPoints: {
      "mcp/index": "mcp/index.ts",
      "cli/llm-wiki": "cli/llm-wiki.ts",
      // A worker thread's module, found beside the chunk that starts it (document-load.ts).
      [WORKER_OUT]: "extensions/llm-wiki/lib/index/document-load-worker.ts",
    },
    outdir: out,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    external: ["@tobilu/qmd", "better-sqlite3", "node-llama-cpp", "sqlite-vec"],
    // The project's own imports first: lazy, then any other of http(s) bound.
    plugins: [lazyBuiltins, httpBuiltins],
    // Bundled CommonJS (gray-matter, ajv) calls `require` for Node's own modules.
    banner: {
      js: 'import { createRequire as __llmWikiRequire } from "node:module"; const require = __llmWikiRequire(import.meta.url);',
    },
    chunkNames: "chunks/[name]-[hash]",
    legalComments: "none",
    // Without comments and indentation the bundles load ~30 ms faster (less
    // source to decode and scan); names stay as written, for readable traces.
    minifyWhitespace: true,
    metafile: true,
    logLevel: "warning",
  };
}

/** Builds both bins into `dist/`; returns the output files. */
export async function buildBins(out: string = outdir): Promise<string[]> {
  rmSync(out, { recursive: true, force: true });
  const builtAt = Date.now();
  const result = await build(binBuildOptions(out));
  checkDynamicImports(result.metafile);
  checkWorkerBeside(result.metafile, out);
  // What a checkout's bins compare against its sources (stale-build.ts).
  const record: BuildInputs = {
    builtAt,
    inputs: Object.keys(result.metafile.inputs).filter((f) => !f.includes("node_modules")),
  };
  writeFileSync(join(out, BUILD_INPUTS_FILE), `${JSON.stringify(record)}\n`);
  return Object.keys(result.metafile.outputs);
}

if (import.meta.main) {
  const files = await buildBins();
  process.stdout.write(`built ${files.length} files into dist/\n`);
}
