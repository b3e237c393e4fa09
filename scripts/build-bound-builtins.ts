/**
 * An esbuild plugin for the bundled bins: Node's built-ins are bound through
 * `process.getBuiltinModule` instead of an ESM import. Node builds an ESM
 * import's namespace by reading every export of the built-in, getters
 * included: `node:http(s)`'s WebSocket, fetch and EventSource getters load
 * undici, HTTP/2 and TLS (~25 ms at every start of a bin: 40 ms imported,
 * 12.5 ms bound), and `node:fs`'s ReadStream/WriteStream getters load
 * Node's whole stream implementation (4–12 ms of every hook on this machine
 * under load), whether the program reads a stream or not. Only the plain
 * values are re-exported; a module importing a lazy getter fails the build
 * ("No matching export"), never the run. The built-ins that only some
 * commands use are not bound here but loaded on first call
 * (build-lazy-builtins.ts, which runs first).
 */
import { builtinModules } from "node:module";
import type { Plugin } from "esbuild";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/**
 * Built-ins whose exports the project imports as getters (`AsyncLocalStorage`)
 * keep their ESM import: binding them would fail the build.
 */
const KEEP_IMPORTED = new Set(["async_hooks"]);
/** Names of Node's built-ins bound here, with or without `node:`. */
const BUILTIN = new Set(
  builtinModules
    .filter((name) => !KEEP_IMPORTED.has(name))
    .flatMap((name) => [name, `node:${name}`]),
);

/** The module text binding `name`'s plain exports without touching its getters. */
function boundModule(name: string): string {
  const mod = process.getBuiltinModule(name) as Record<string, unknown>;
  const plain = Object.keys(mod).filter(
    (key) => IDENTIFIER.test(key) && Object.getOwnPropertyDescriptor(mod, key)?.get === undefined,
  );
  return [
    `const m = process.getBuiltinModule(${JSON.stringify(name)});`,
    ...plain.map((key) => `export const ${key} = m.${key};`),
    "export default m;",
    "",
  ].join("\n");
}

/** See the file's comment. */
export const boundBuiltins: Plugin = {
  name: "bound-builtins",
  setup(build) {
    // ESM imports only: a bundled CommonJS `require("fs")` reads no getter and stays as it is.
    build.onResolve({ filter: /^(node:)?[a-z_]+(\/[a-z_]+)?$/ }, (args) =>
      args.kind === "import-statement" && BUILTIN.has(args.path)
        ? {
            path: args.path.startsWith("node:") ? args.path : `node:${args.path}`,
            namespace: "bound-builtins",
          }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "bound-builtins" }, (args) => ({
      contents: boundModule(args.path),
      loader: "js",
    }));
  },
};
