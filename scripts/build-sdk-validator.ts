/**
 * An esbuild plugin for the bundled bins: the MCP SDK's `Server` imports its
 * Ajv provider (Ajv, ajv-formats, fast-uri) only to check a client's answer
 * to an elicitation request against the schema it sent. llm-wiki-mcp sends
 * none and gives the server a validator of its own (mcp/server.ts), so the
 * provider is never constructed, yet evaluating those modules was ~15 ms of
 * every MCP server start (profiled). In the bundle the server's import is a
 * class that throws if it ever is constructed; nothing else is replaced.
 */
import type { Plugin } from "esbuild";

/** The provider as the SDK's server imports it. */
const PROVIDER = /[\\/]validation[\\/]ajv-provider\.js$|^\.\.\/validation\/ajv-provider\.js$/;
/** The SDK's server module. */
const SDK_SERVER =
  /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](esm|cjs)[\\/]server[\\/]index\.js$/;

const STUB = [
  "export class AjvJsonSchemaValidator {",
  "  constructor() {",
  '    throw new Error("the bundled MCP server has no Ajv: give Server a jsonSchemaValidator");',
  "  }",
  "}",
  "",
].join("\n");

/** See the file's comment. */
export const sdkWithoutAjv: Plugin = {
  name: "sdk-without-ajv",
  setup(build) {
    build.onResolve({ filter: PROVIDER }, (args) =>
      SDK_SERVER.test(args.importer)
        ? { path: "ajv-provider", namespace: "sdk-without-ajv" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "sdk-without-ajv" }, () => ({
      contents: STUB,
      loader: "js",
    }));
  },
};
