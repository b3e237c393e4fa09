/**
 * An esbuild plugin for the bundled bins: `node:http` and `node:https` are
 * bound through `process.getBuiltinModule` instead of an ESM import. Node
 * builds an ESM import's namespace by reading every export of the built-in,
 * and the WebSocket, fetch and EventSource getters of these two then load
 * undici, HTTP/2 and TLS: ~25 ms at every start of a bin, whether it fetches
 * anything or not (measured here: 40 ms imported, 12.5 ms bound). Only the
 * plain values are re-exported; a module importing a lazy getter fails the
 * build ("No matching export"), never the run.
 */
import type { Plugin } from "esbuild";

const HTTP_BUILTINS = /^(node:)?https?$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

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
export const httpBuiltins: Plugin = {
  name: "http-builtins",
  setup(build) {
    // ESM imports only: a bundled CommonJS `require("http")` reads no getter and stays as it is.
    build.onResolve({ filter: HTTP_BUILTINS }, (args) =>
      args.kind === "import-statement"
        ? {
            path: args.path.startsWith("node:") ? args.path : `node:${args.path}`,
            namespace: "http-builtins",
          }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "http-builtins" }, (args) => ({
      contents: boundModule(args.path),
      loader: "js",
    }));
  },
};
