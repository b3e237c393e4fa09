/**
 * The files of a vault's `wiki/` two commits differ in: what a pull, a
 * checkout or a merge changed, so the index catches up from those pages
 * alone. The one git command the vault layer runs, through the project's
 * safe runner (code-refs/git-run.ts: fixed arguments, no shell, no hooks,
 * no configuration of the repository or the user that could run anything).
 */
import { isAbsolute, join, relative, sep } from "node:path";
import { type GitRunner, runGit } from "../code-refs/git-run.ts";
import type { GitRepo } from "./git-state.ts";

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * Absolute paths under `folder` that differ between commits `from` and
 * `to` (added, changed or removed), or undefined when git cannot say (an
 * old commit gone, git missing): the caller then walks every page.
 */
export function changedBetween(
  repo: GitRepo,
  from: string,
  to: string,
  folder: string,
  run: GitRunner = runGit,
): string[] | undefined {
  if (!OBJECT_ID.test(from) || !OBJECT_ID.test(to)) return undefined;
  const rel = relative(repo.workTree, folder);
  if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
  const out = run(
    [
      "diff",
      "--name-only",
      "-z",
      "--no-renames",
      "--no-ext-diff",
      "--no-textconv",
      from,
      to,
      "--",
      rel === "" ? "." : rel.split(sep).join("/"),
    ],
    { cwd: repo.workTree },
  );
  if (out === undefined) return undefined;
  return out
    .split("\0")
    .filter((p) => p !== "")
    .map((p) => join(repo.workTree, ...p.split("/")));
}
