/** Test helper: the files under a folder, recursively, whose names end with `ext`. */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file below `dir` (at any depth) whose name ends with `ext`. */
export function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, ext));
    else if (name.endsWith(ext)) out.push(path);
  }
  return out;
}
