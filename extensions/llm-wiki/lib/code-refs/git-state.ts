/**
 * Where the repository around a vault is and which commit its HEAD names,
 * read from files only (`.git/HEAD`, loose refs, `packed-refs`): telling
 * whether the per-commit cache still holds costs a few small reads, never a
 * git process.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** The repository a vault sits in. */
export interface RepoState {
  /** The work tree's root folder (absolute). */
  root: string;
  /** The git directory (absolute; a worktree's own, for HEAD). */
  gitDir: string;
  /** Full sha HEAD points at; undefined on a branch without commits. */
  head?: string;
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The git directory `.git` at `dir` stands for: a folder, or a `gitdir:` file (worktrees, submodules). */
function gitDirAt(dir: string): string | undefined {
  const dotGit = join(dir, ".git");
  let isDir: boolean;
  try {
    isDir = statSync(dotGit).isDirectory();
  } catch {
    return undefined;
  }
  if (isDir) return dotGit;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "");
  if (!m?.[1]) return undefined;
  return isAbsolute(m[1]) ? m[1] : resolve(dir, m[1]);
}

/** The folder holding refs shared by every worktree (`commondir`), else the git directory itself. */
function commonDir(gitDir: string): string {
  const common = readText(join(gitDir, "commondir"))?.trim();
  if (!common) return gitDir;
  return isAbsolute(common) ? common : resolve(gitDir, common);
}

/** The sha a full ref name (`refs/heads/main`) points at, following symbolic refs a few steps. */
function resolveRef(gitDir: string, ref: string, depth = 0): string | undefined {
  if (depth > 5 || !/^refs\/[A-Za-z0-9._/-]+$/.test(ref) || ref.includes("..")) return undefined;
  for (const base of [gitDir, commonDir(gitDir)]) {
    const loose = readText(join(base, ref))?.trim();
    if (loose === undefined) continue;
    if (SHA.test(loose)) return loose;
    const sym = /^ref:\s*(\S+)$/.exec(loose);
    if (sym?.[1]) return resolveRef(gitDir, sym[1], depth + 1);
  }
  const packed = readText(join(commonDir(gitDir), "packed-refs")) ?? "";
  for (const line of packed.split("\n")) {
    const [sha, name] = line.trim().split(" ");
    if (name === ref && sha && SHA.test(sha)) return sha;
  }
  return undefined;
}

/** The sha HEAD names in `gitDir`, or undefined (no commits yet, unreadable). */
export function readHead(gitDir: string): string | undefined {
  const head = readText(join(gitDir, "HEAD"))?.trim();
  if (head === undefined) return undefined;
  if (SHA.test(head)) return head;
  const m = /^ref:\s*(\S+)$/.exec(head);
  return m?.[1] ? resolveRef(gitDir, m[1]) : undefined;
}

/** The repository holding `dir` (searching upwards), or undefined outside one. */
export function findRepo(dir: string): RepoState | undefined {
  let current = resolve(dir);
  for (;;) {
    const gitDir = gitDirAt(current);
    if (gitDir !== undefined) {
      const head = readHead(gitDir);
      return head === undefined ? { root: current, gitDir } : { root: current, gitDir, head };
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
