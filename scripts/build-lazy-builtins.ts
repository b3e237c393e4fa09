/**
 * An esbuild plugin for the bundled bins: the project's own imports of
 * Node built-ins that only some commands use (`child_process` for git,
 * `crypto` for hashes and temp names when writing, `http`/`https`/`dns` for
 * capturing a URL, `zlib` for a compressed page or PDF) load the built-in
 * on first call instead of at start. An ESM import loads a built-in, and
 * what it requires, before any code runs: these cost every start of a bin
 * ~35–50 ms on this machine under load, although a recall uses none of them. Each imported function becomes a
 * wrapper that fetches the built-in through `process.getBuiltinModule` when
 * called. Only functions are offered: importing a value (`constants`) or a
 * class fails the build ("No matching export"), never the run. Packages'
 * own imports are left as they are.
 */
import type { Plugin } from "esbuild";

const LAZY = /^(node:)?(child_process|crypto|http|https|dns\/promises|zlib)$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The module text offering `name`'s functions, each loading the built-in on first call. */
function lazyModule(name: string): string {
  const mod = process.getBuiltinModule(name) as Record<string, unknown>;
  const functions = Object.keys(mod).filter(
    (key) =>
      IDENTIFIER.test(key) &&
      Object.getOwnPropertyDescriptor(mod, key)?.get === undefined &&
      typeof mod[key] === "function" &&
      // A class is built with `new`, which a wrapper cannot pass on.
      !/^[A-Z]/.test(key),
  );
  return [
    "let builtin;",
    `const load = () => (builtin ??= process.getBuiltinModule(${JSON.stringify(name)}));`,
    ...functions.map((key) => `export function ${key}(...a) { return load().${key}(...a); }`),
    "",
  ].join("\n");
}

/** Whether `importer` is the project's own source, not a package's. */
function ownSource(importer: string): boolean {
  return !importer.split(/[\\/]/).includes("node_modules");
}

/** See the file's comment. */
export const lazyBuiltins: Plugin = {
  name: "lazy-builtins",
  setup(build) {
    build.onResolve({ filter: LAZY }, (args) =>
      args.kind === "import-statement" && ownSource(args.importer)
        ? {
            path: args.path.startsWith("node:") ? args.path : `node:${args.path}`,
            namespace: "lazy-builtins",
          }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-builtins" }, (args) => ({
      contents: lazyModule(args.path),
      loader: "js",
    }));
  },
};
