/**
 * What the git repository holding a vault says, read as files: where its
 * git folder is, which commit is checked out, and the author identity its
 * configuration names. No git process runs and nothing the repository's
 * configuration names can execute (a hostile repository may set
 * `core.fsmonitor`, hooks or filters); `[include]` files are not followed.
 * The one git command the vault runs (the files two commits differ in) is
 * in `git-changes.ts`.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** A repository as its files show it. */
export interface GitRepo {
  /** The work tree's top folder (holding `.git`). */
  workTree: string;
  /** This work tree's git folder (`.git`, or a linked worktree's folder under it). */
  gitDir: string;
  /** The folder shared by every worktree: refs, objects, config. */
  commonDir: string;
}

/** Longest file read here: a HEAD, a ref, a config, `packed-refs`. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

function readSmall(path: string): string | undefined {
  try {
    if (statSync(path).size > MAX_READ_BYTES) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The repository whose work tree holds `start` (walking up), or undefined outside one. */
export function findGitRepo(start: string): GitRepo | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    let gitDir: string | undefined;
    if (isDir(dotGit)) gitDir = dotGit;
    else {
      const text = readSmall(dotGit);
      const m = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
      if (m?.[1]) gitDir = isAbsolute(m[1]) ? m[1] : resolve(dir, m[1]);
    }
    if (gitDir !== undefined && isDir(gitDir)) {
      const common = readSmall(join(gitDir, "commondir"))?.trim();
      const commonDir = common ? resolve(gitDir, common) : gitDir;
      return { workTree: dir, gitDir, commonDir };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The commit `ref` (`refs/heads/main`) names, from its loose file or `packed-refs`. */
function resolveRef(repo: GitRepo, ref: string): string | undefined {
  if (!/^refs\/[\w./-]+$/.test(ref) || ref.includes("..")) return undefined;
  for (const dir of [repo.gitDir, repo.commonDir]) {
    const loose = readSmall(join(dir, ref))?.trim();
    if (loose !== undefined && OBJECT_ID.test(loose)) return loose;
  }
  const packed = readSmall(join(repo.commonDir, "packed-refs")) ?? "";
  for (const line of packed.split("\n")) {
    const [id, name] = line.trim().split(" ");
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return undefined;
}

/**
 * The commit checked out (HEAD, following one symbolic ref), or undefined
 * when it cannot be read (an unborn branch, a repository mid-update).
 */
export function headCommit(repo: GitRepo): string | undefined {
  const head = readSmall(join(repo.gitDir, "HEAD"))?.trim();
  if (head === undefined) return undefined;
  if (OBJECT_ID.test(head)) return head;
  const m = /^ref:\s*(\S+)$/.exec(head);
  return m?.[1] ? resolveRef(repo, m[1]) : undefined;
}

/** `user.name` and `user.email` as one configuration file sets them (the last setting wins). */
export function parseGitUser(text: string): { name?: string; email?: string } {
  const out: { name?: string; email?: string } = {};
  let inUser = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\](.*)$/.exec(line);
    if (section) {
      inUser = section[1]?.toLowerCase() === "user";
      // `[user] name = x` on one line.
      const rest = section[2]?.trim() ?? "";
      if (!inUser || rest === "") continue;
      assign(out, rest);
      continue;
    }
    if (inUser) assign(out, line);
  }
  return out;
}

function assign(out: { name?: string; email?: string }, line: string): void {
  const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
  if (!m?.[1]) return;
  const key = m[1].toLowerCase();
  if (key !== "name" && key !== "email") return;
  const value = configValue(m[2] ?? "");
  if (value !== "") out[key] = value;
}

/** A configuration value: quotes removed, `\"` `\\` `\t` `\n` unescaped, an unquoted `#` or `;` starts a comment. */
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i] as string;
    if (c === "\\" && i + 1 < raw.length) {
      const next = raw[i + 1] as string;
      out += next === "t" ? "\t" : next === "n" ? "\n" : next;
      i += 1;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

/** Where git reads a user's own configuration: `~/.gitconfig`, then `$XDG_CONFIG_HOME/git/config`. */
function userConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME && env.HOME.trim() !== "" ? env.HOME : homedir();
  const xdg =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() !== ""
      ? env.XDG_CONFIG_HOME
      : join(home, ".config");
  return [join(home, ".gitconfig"), join(xdg, "git", "config")];
}

/**
 * The author git would record for a commit in `repo` (or outside any
 * repository, from the user's files alone): `GIT_AUTHOR_NAME` / `_EMAIL`,
 * else the repository's config (its worktree's first), else the user's
 * files. Each field separately, as git takes them.
 */
export function gitAuthor(
  repo: GitRepo | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { name?: string; email?: string } {
  const files = [
    ...(repo ? [join(repo.gitDir, "config.worktree"), join(repo.commonDir, "config")] : []),
    ...userConfigFiles(env),
  ];
  const found: { name?: string; email?: string } = {};
  for (const file of files) {
    const text = readSmall(file);
    if (text === undefined) continue;
    const user = parseGitUser(text);
    found.name ??= user.name;
    found.email ??= user.email;
  }
  const name = env.GIT_AUTHOR_NAME?.trim() || found.name;
  const email = env.GIT_AUTHOR_EMAIL?.trim() || found.email;
  return { ...(name ? { name } : {}), ...(email ? { email } : {}) };
}
