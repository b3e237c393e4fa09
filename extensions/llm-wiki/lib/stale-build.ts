/**
 * A bundle older than the sources it was built from: in a checkout, hooks
 * and the MCP server that `setup` points at run `dist/`, and a `git pull`
 * (or an edit) without `pnpm build` would leave them running yesterday's
 * code without a word. The build records when it started and which project
 * files it read (`dist/build-inputs.json`); a bin started from `dist/` in a
 * checkout compares their modification times and says so. Installed
 * packages (under `node_modules`, no sources beside them) are never checked.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { neutraliseLine } from "./safety/text.ts";

/** The file the build writes beside its bins. */
export const BUILD_INPUTS_FILE = "build-inputs.json";

/** What the build records: its start time and its project inputs, relative to the checkout (`dist/..`). */
export interface BuildInputs {
  builtAt: number;
  inputs: string[];
}

/**
 * One line saying the bundle in `distDir` (a `file:` URL or path) is older
 * than a source it was built from, or undefined: not a bundle, installed as
 * a package, unreadable record, or up to date.
 */
export function staleBuildNotice(distDir: string | URL): string | undefined {
  const dir = distDir instanceof URL ? fileURLToPath(distDir) : distDir;
  if (dir.split(/[\\/]/).includes("node_modules")) return undefined;
  let record: BuildInputs;
  try {
    record = JSON.parse(readFileSync(join(dir, BUILD_INPUTS_FILE), "utf8")) as BuildInputs;
  } catch {
    return undefined;
  }
  if (typeof record.builtAt !== "number" || !Array.isArray(record.inputs)) return undefined;
  const root = dirname(dir);
  const changed: string[] = [];
  for (const input of record.inputs) {
    try {
      if (statSync(join(root, input)).mtimeMs > record.builtAt) changed.push(input);
    } catch {
      // Not beside this bundle (a bundle built elsewhere, a file since removed): nothing to compare.
    }
  }
  if (changed.length === 0) return undefined;
  const more = changed.length > 1 ? ` and ${changed.length - 1} more` : "";
  // Paths are printed on a terminal: one plain line, whatever they hold.
  return neutraliseLine(
    `the bundle in ${dir} is older than its sources (${changed[0]}${more} changed since it was built); run \`pnpm build\` in the checkout`,
  );
}
