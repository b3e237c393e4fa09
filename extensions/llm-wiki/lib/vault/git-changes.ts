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

/**
 * Absolute paths under `targets` that differ from the commit checked out
 * (modified, deleted, untracked or unmerged in the work tree or the git
 * index), or undefined when git cannot say. A file git itself just wrote
 * to match a commit (a pull, a checkout) is not among them.
 */
export function uncommittedUnder(
  repo: GitRepo,
  targets: readonly string[],
  run: GitRunner = runGit,
): string[] | undefined {
  const rels: string[] = [];
  for (const target of targets) {
    const rel = relative(repo.workTree, target);
    if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
    rels.push(rel === "" ? "." : rel.split(sep).join("/"));
  }
  const out = run(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...rels], {
    cwd: repo.workTree,
  });
  if (out === undefined) return undefined;
  const paths: string[] = [];
  const entries = out.split("\0");
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i] as string;
    if (entry.length < 4) continue;
    paths.push(join(repo.workTree, ...entry.slice(3).split("/")));
    // A rename or copy names its source next: not a path of its own here.
    if (entry[0] === "R" || entry[0] === "C") i += 1;
  }
  return paths;
}
