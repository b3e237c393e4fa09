/**
 * Where this process appends events. A vault outside git, and a vault
 * `@zosmaai/pi-llm-wiki` keeps too (it reads and writes only that file),
 * have one log: `meta/events.jsonl`. A vault inside a git work tree has one
 * log per clone and commit, `meta/events/<clone>-<commit>.jsonl`:
 *
 * - `<clone>` is a random id kept in the clone's git folder (never in the
 *   work tree, so never committed), with the folder's path and the
 *   machine's name: a copy of the clone (`cp -r`, a disk image) finds
 *   another place and takes a new id, so two clones never share one.
 * - `<commit>` is the commit checked out when the event was appended. A
 *   commit moves HEAD, so once the log is committed the next event starts a
 *   new file: the file appended to between commits is never tracked, and a
 *   plain `git pull` (merge or `--rebase`) never meets a local change to a
 *   file of ours. A teammate's pull only adds other clones' files, so no
 *   log of ours is ever merged line by line.
 *
 * Readers take every file together (event-log-files.ts).
 */
import { randomBytes } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createFileExclusive, writeFileAtomic } from "./fs-safe.ts";
import { findGitRepo, type GitRepo, headCommit } from "./git-state.ts";
import { olderSystemKeepsVault } from "./older-system.ts";
import type { VaultPaths } from "./paths.ts";
import { fnv1a } from "./stable-hash.ts";

/** The folder of the per-clone logs, under `meta/`. */
export const CLONE_LOGS_DIR = "events";

/** The clone id's file, in the clone's own git folder (a linked worktree has its own). */
const ID_FILE = "llm-wiki-clone.json";

interface CloneIdRecord {
  id: string;
  gitDir: string;
  host: string;
}

const CLONE_ID = /^[0-9a-z]{8,16}$/;

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function readRecord(file: string): CloneIdRecord | undefined {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as Partial<CloneIdRecord>;
    if (
      typeof data.id === "string" &&
      CLONE_ID.test(data.id) &&
      typeof data.gitDir === "string" &&
      typeof data.host === "string"
    ) {
      return { id: data.id, gitDir: data.gitDir, host: data.host };
    }
  } catch {
    // Missing or unreadable: a new id is made.
  }
  return undefined;
}

/**
 * This clone's id: the one its git folder keeps, when it was made for this
 * folder on this machine; otherwise a new random one, kept there. When the
 * git folder cannot be written (read-only), an id derived from the folder's
 * path and the machine is used: stable across processes, and a copy
 * elsewhere still gets another.
 */
export function cloneId(repo: GitRepo): string {
  const gitDir = realPath(repo.gitDir);
  const host = hostname();
  const file = join(repo.gitDir, ID_FILE);
  const kept = readRecord(file);
  if (kept && kept.gitDir === gitDir && kept.host === host) return kept.id;
  const made: CloneIdRecord = { id: randomBytes(6).toString("hex"), gitDir, host };
  const text = `${JSON.stringify(made)}\n`;
  try {
    if (kept) {
      // A copy of another clone (or this one moved): its id is the original's.
      writeFileAtomic(file, text, repo.gitDir);
      return made.id;
    }
    if (createFileExclusive(file, text, repo.gitDir)) return made.id;
    // Another process made it first: take its id.
    const theirs = readRecord(file);
    if (theirs && theirs.gitDir === gitDir && theirs.host === host) return theirs.id;
  } catch {
    // A git folder that cannot be written: fall through to a derived id.
  }
  return `d${fnv1a(`${host}\0${gitDir}`).toString(36).padStart(7, "0")}`;
}

/**
 * The log file this process appends `paths`'s events to (absolute):
 * `meta/events.jsonl` outside git or where `@zosmaai/pi-llm-wiki` keeps the
 * vault, else this clone's log for the commit checked out.
 */
export function eventLogTarget(paths: VaultPaths): string {
  const repo = findGitRepo(paths.root);
  if (repo === undefined || olderSystemKeepsVault(paths)) return paths.events;
  return join(paths.meta, CLONE_LOGS_DIR, `${cloneId(repo)}-${commitMark(repo)}.jsonl`);
}

/**
 * What names the commit checked out: its first 12 characters; when HEAD
 * cannot be read as files (a ref only in a `packed-refs` too large to read),
 * the size of HEAD's reflog, which every commit, checkout and pull grows;
 * `unborn` before the first commit (the first commit moves on from it).
 */
function commitMark(repo: GitRepo): string {
  const commit = headCommit(repo);
  if (commit !== undefined) return commit.slice(0, 12);
  try {
    return `r${statSync(join(repo.gitDir, "logs", "HEAD")).size}`;
  } catch {
    return "unborn";
  }
}
