/**
 * The package's version, found by walking up from this module, so it
 * reads the same from the sources and from the built `dist/`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The npm package name (`llm-wiki` on npm is an unrelated package). */
export const PACKAGE_NAME = "llm-wiki-memory";

let cached: string | undefined;

export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === PACKAGE_NAME && pkg.version) {
        cached = pkg.version;
        return cached;
      }
    } catch {
      // Not here: keep walking up.
    }
    if (dirname(dir) === dir) return "unknown";
  }
}
