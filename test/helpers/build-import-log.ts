/**
 * Which llama.cpp builds a child process asks for: node-llama-cpp imports a
 * build's `@node-llama-cpp/*` package to load it or to probe it, and a Node
 * `--import` hook (passed in `NODE_OPTIONS`) writes each such specifier to
 * a log file as it is resolved.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export interface BuildImportLog {
  /** `NODE_OPTIONS` for the child. */
  nodeOptions: string;
  /** The `@node-llama-cpp/*` packages asked for so far, in order. */
  asked(): string[];
}

/** Writes the hook into `dir` with an empty log beside it. */
export function buildImportLog(dir: string): BuildImportLog {
  const log = join(dir, "llama-builds.log");
  const hooks = join(dir, "llama-build-hooks.mjs");
  const entry = join(dir, "llama-build-log.mjs");
  writeFileSync(log, "");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@node-llama-cpp/")) appendFileSync(${JSON.stringify(log)}, specifier + "\\n");
  return next(specifier, context);
}
`,
  );
  writeFileSync(
    entry,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return {
    nodeOptions: `--import ${JSON.stringify(entry)}`,
    asked: () => readFileSync(log, "utf8").split("\n").filter(Boolean),
  };
}
