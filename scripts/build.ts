/**
 * `pnpm build`: the published bins (`llm-wiki`, `llm-wiki-mcp`) as bundled
 * ESM under `dist/`. Loading ~1,500 separate modules (TypeBox alone is 664
 * files, the MCP SDK brings zod and ajv) was most of the MCP server's time
 * from spawn to first answer; one bundle per entry (with shared chunks, so
 * dynamic imports stay lazy) loads in a fraction of it. QMD and its native
 * parts stay external: they load their own binaries and models at run time.
 * Node's built-ins are bound without an ESM import, whose namespace would
 * run every getter (see build-bound-builtins.ts), and the built-ins only
 * some commands use load on first call (build-lazy-builtins.ts).
 * The Pi extension is not bundled: Pi loads its TypeScript source. A
 * dynamic import of a CommonJS package fails the build unless reviewed
 * (build-dynamic-imports.ts): in a split bundle it loses its named exports.
 *
 * The entry files clients run (`dist/cli/llm-wiki.js`, `dist/mcp/index.js`,
 * named by `setup` and the README) are small plain-JavaScript launchers
 * (DIST_ENTRIES): they check the Node version as the bins under `bin/` do,
 * with a copy of `bin/node-check.js`, and only then import the bundle. A
 * bundle cannot check for itself: its imports (`enableCompileCache`…) fail to
 * link on an older Node, with a stack trace, before any of its code runs.
 */
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { type BuildOptions, build, type Metafile } from "esbuild";
import { BUILD_INPUTS_FILE, type BuildInputs } from "../extensions/llm-wiki/lib/stale-build.ts";
import { boundBuiltins } from "./build-bound-builtins.ts";
import { checkDynamicImports } from "./build-dynamic-imports.ts";
import { lazyBuiltins } from "./build-lazy-builtins.ts";
import { sdkWithoutAjv } from "./build-sdk-validator.ts";

const root = join(import.meta.dirname, "..");
const outdir = join(root, "dist");

/** Where the bulk document load's worker module is written, under `dist/`. */
const WORKER_OUT = "chunks/document-load-worker";

/** The version check every launcher imports, copied as it is beside the bundles (`dist/node-check.js`). */
const NODE_CHECK = "bin/node-check.js";
/** The hooks' thin client of the warm process and what it shares with it, copied beside them too. */
const HOOK_CLIENT = ["bin/hook-client.js", "bin/hook-socket.js"];
/** The hooks' in-process entry (`runHookProcess`), which the cli launcher loads when no warm process answered. */
const HOOK_ENTRY = { entry: "cli/hook", source: "cli/hook-main.ts" };
/** The warm hook process's git reader, a process of its own (cli/hook-git.ts finds it by this name). */
const HOOK_GIT_ENTRY = { entry: "cli/hook-git", source: "cli/hook-git-helper.ts" };

/** A launcher: the entry clients run, under `dist/`, and the bin name its version message gives. */
interface DistEntry {
  /** The entry's path under `dist/` without `.js`; its bundle is `<entry>.bundle.js`. */
  entry: string;
  /** The entry's source, bundled. */
  source: string;
  /** The JavaScript that checks the Node version (`requireSupportedNode` is in scope). */
  check: string;
  /** The JavaScript that runs the bundle, when not a plain import of it. */
  run?: string;
}

/** The two bins' launchers, with the same checks as `bin/llm-wiki.js` and `bin/llm-wiki-mcp.js`. */
export const DIST_ENTRIES: readonly DistEntry[] = [
  { entry: "mcp/index", source: "mcp/index.ts", check: 'requireSupportedNode("llm-wiki-mcp");' },
  {
    entry: "cli/llm-wiki",
    source: "cli/llm-wiki.ts",
    // An agent's hook never fails the user's prompt: exit 0 (Claude Code blocks a prompt on exit 2).
    check: [
      'const hook = process.argv[2] === "hook";',
      'requireSupportedNode(hook ? "llm-wiki hook" : "llm-wiki", hook ? 0 : 2, hook ? process.argv[3] : undefined);',
    ].join("\n"),
    // Priming and recall hooks ask the warm process first (bin/hook-client.js),
    // before any bundle is loaded, and run in-process when it does not answer.
    run: [
      "const args = process.argv.slice(3);",
      'if (hook && ["session-start", "user-prompt"].includes(args[0]) && !args.some((a) => a === "--help" || a === "-h")) {',
      "  let warm = { done: false };",
      "  try {",
      '    const { answerWarm } = await import("../hook-client.js");',
      "    warm = await answerWarm(import.meta.url, args);",
      "  } catch {",
      "    // The hook answers in-process.",
      "  }",
      "  if (!warm.done) {",
      '    const { runHookProcess } = await import("./hook.bundle.js");',
      "    await runHookProcess(args, warm.stdin);",
      "  }",
      '} else await import("./llm-wiki.bundle.js");',
    ].join("\n"),
  },
];

/** The text of `entry`'s launcher: plain JavaScript that any Node parses and links. */
export function launcherText(entry: DistEntry): string {
  const name = entry.entry.split("/").pop() ?? entry.entry;
  const up = "../".repeat(entry.entry.split("/").length - 1);
  return [
    "#!/usr/bin/env node",
    "// Written by scripts/build.ts: checks the Node version before the bundle is loaded,",
    "// whose imports an older Node cannot link (a stack trace instead of one line).",
    `import { requireSupportedNode } from "${up || "./"}node-check.js";`,
    "",
    entry.check,
    entry.run ?? `await import("./${name}.bundle.js");`,
    "",
  ].join("\n");
}

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
      // The bundles; the entries clients run are their launchers (DIST_ENTRIES).
      ...Object.fromEntries(DIST_ENTRIES.map((e) => [`${e.entry}.bundle`, e.source])),
      [`${HOOK_ENTRY.entry}.bundle`]: HOOK_ENTRY.source,
      [`${HOOK_GIT_ENTRY.entry}.bundle`]: HOOK_GIT_ENTRY.source,
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
    // The project's own imports of rarely used built-ins first: lazy; every other built-in bound.
    // The SDK server's Ajv provider is never used (see build-sdk-validator.ts).
    plugins: [lazyBuiltins, boundBuiltins, sdkWithoutAjv],
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
  copyFileSync(join(root, NODE_CHECK), join(out, "node-check.js"));
  for (const file of HOOK_CLIENT) copyFileSync(join(root, file), join(out, basename(file)));
  const launchers: string[] = [];
  for (const entry of DIST_ENTRIES) {
    const file = join(out, `${entry.entry}.js`);
    writeFileSync(file, launcherText(entry), { mode: 0o755 });
    launchers.push(file);
  }
  // What a checkout's bins compare against its sources (stale-build.ts).
  const record: BuildInputs = {
    builtAt,
    inputs: [
      ...Object.keys(result.metafile.inputs).filter((f) => !f.includes("node_modules")),
      NODE_CHECK,
      ...HOOK_CLIENT,
    ],
  };
  writeFileSync(join(out, BUILD_INPUTS_FILE), `${JSON.stringify(record)}\n`);
  const written = [
    join(out, "node-check.js"),
    ...HOOK_CLIENT.map((f) => join(out, basename(f))),
    ...launchers,
  ].map((f) => relative(root, f));
  return [...Object.keys(result.metafile.outputs), ...written];
}

if (import.meta.main) {
  const files = await buildBins();
  process.stdout.write(`built ${files.length} files into dist/\n`);
}
