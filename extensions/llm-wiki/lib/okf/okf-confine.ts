/**
 * Where a model may point an OKF export or import. On the command line the
 * user names the folder, so any folder goes; through Pi or MCP a model names
 * it, and it must then lie inside the project (the project vault's folder,
 * or the working directory) with symlinks resolved — so a model can neither
 * write the vault out to an arbitrary folder (`~/.ssh`, a synced share) nor
 * pull a bundle in from somewhere the user never chose.
 */
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, parse, resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { isInside } from "../vault/fs-safe.ts";

/**
 * The real location of `path`: the nearest existing folder above it with
 * its symlinks resolved, and the missing rest appended (an export target
 * need not exist yet).
 */
function realLocation(path: string): string {
  let at = resolve(path);
  const rest: string[] = [];
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) break;
    rest.unshift(basename(at));
    at = up;
  }
  try {
    return join(realpathSync(at), ...rest);
  } catch {
    return resolve(path);
  }
}

/**
 * The folders a model-chosen bundle may lie in: the project vault's folder
 * (the one holding `.llm-wiki/`) and the working directory — unless the
 * working directory is the file system's root, the home folder or above it
 * (an MCP server a client started in `/` or `~` must not open everything).
 */
export function okfModelRoots(
  projectRoot: string | undefined,
  cwd: string,
  home: string = homedir(),
): string[] {
  const roots = projectRoot === undefined ? [] : [projectRoot];
  const work = realLocation(cwd);
  const broad = work === parse(work).root || isInside(work, realLocation(home));
  if (!broad && !roots.some((root) => realLocation(root) === work)) roots.push(cwd);
  return roots;
}

/**
 * `okf_dir_outside` when `dir` (absolute) does not really lie inside one of
 * `roots`; undefined when it does.
 */
export function okfDirOutside(
  dir: string,
  roots: readonly string[],
  operation: "export" | "import",
): Diagnostic | undefined {
  const real = realLocation(dir);
  const allowed = roots.map(realLocation);
  if (allowed.some((root) => isInside(root, real))) return undefined;
  const via = real === resolve(dir) ? "" : ` (really ${real})`;
  const where =
    allowed.length > 0 ? `inside the project (${allowed.join(", ")})` : "inside a project folder";
  return diagnostic(
    "okf_dir_outside",
    "error",
    `${dir}${via} is outside the project: a tool may only ${operation} a bundle ${where}; nothing done`,
    {
      path: dir,
      repair: `the user may run llm-wiki ${operation} --okf DIR, which takes any folder they name`,
    },
  );
}
