/**
 * Where a model may ask `wiki_bootstrap` to create a vault (the older
 * tool's `root`): only where the tool would create it anyway or the
 * project's own folder — never an arbitrary folder on disk.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `bootstrap_root_outside` when `root` is none of `allowed` (symlinks resolved). */
export function bootstrapRootOutside(
  root: string,
  allowed: readonly (string | undefined)[],
): Diagnostic | undefined {
  const target = real(root);
  const places = allowed.filter((p): p is string => p !== undefined);
  if (places.some((p) => real(p) === target)) return undefined;
  return diagnostic(
    "bootstrap_root_outside",
    "error",
    `root ${JSON.stringify(root)} is neither the working directory nor the project's folder; nothing was created`,
    {
      repair:
        "wiki_bootstrap without root (the working directory), or llm-wiki init in that folder",
    },
  );
}
