/**
 * Writes a set of files all or nothing, each keeping its mode and owner.
 * First every new content is written to a temporary file beside its target
 * (created folders noted), with the target's mode and, where the process
 * may, its owner; only when all are staged is each renamed over its target
 * (or the target removed). A failure while staging removes what was
 * staged; a failure while renaming puts back what was already replaced.
 * Either way no file is left changed, and the error says which file.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, resolve } from "node:path";

/** One file's change: its new text, or undefined to remove it; `before` is what it holds now. */
export interface FileChange {
  path: string;
  before: string | undefined;
  next: string | undefined;
}

/** Why a transaction stopped, naming the file; nothing was changed. */
export class TransactionError extends Error {
  readonly path: string;
  readonly code: string | undefined;
  constructor(path: string, error: unknown) {
    const code = (error as NodeJS.ErrnoException).code;
    super(`${path}: ${(error as Error).message}`);
    this.path = path;
    this.code = code;
  }
}

interface Staged {
  change: FileChange;
  tmp?: string;
  mode?: number;
  uid?: number;
  gid?: number;
}

/** The folders `mkdir -p dir` would create, outermost first. */
function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    try {
      statSync(at);
      break;
    } catch {
      missing.unshift(at);
      if (dirname(at) === at) break;
    }
  }
  return missing;
}

/** Writes `text` to a new file `tmp` with `mode`, flushed to disk. */
function writeNew(tmp: string, text: string, mode: number): void {
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // The umask may have narrowed the mode given at creation.
  chmodSync(tmp, mode);
}

/** Applies every change, or none; throws `TransactionError` naming the file that failed. */
export function commitFiles(changes: readonly FileChange[], newFileMode = 0o644): void {
  const staged: Staged[] = [];
  const createdDirs: string[] = [];
  const undoStaging = () => {
    for (const s of staged) if (s.tmp) rmSync(s.tmp, { force: true });
    for (const dir of [...createdDirs].reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        // Not empty (something else was put there meanwhile): left.
      }
    }
  };
  for (const change of changes) {
    const entry: Staged = { change };
    staged.push(entry);
    try {
      let st: Stats | undefined;
      try {
        st = lstatSync(change.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      if (st) {
        entry.mode = st.mode & 0o7777;
        entry.uid = st.uid;
        entry.gid = st.gid;
      }
      if (change.next === undefined) continue;
      const dirs = missingDirs(dirname(change.path));
      for (const dir of dirs) {
        mkdirSync(dir);
        createdDirs.push(dir);
      }
      const tmp = `${change.path}.llm-wiki-setup-${process.pid}-${randomBytes(4).toString("hex")}`;
      entry.tmp = tmp;
      writeNew(tmp, change.next, entry.mode ?? newFileMode);
      if (entry.uid !== undefined && entry.gid !== undefined) {
        const mine = lstatSync(tmp);
        if (mine.uid !== entry.uid || mine.gid !== entry.gid) {
          try {
            chownSync(tmp, entry.uid, entry.gid);
          } catch {
            // Only a privileged process may give a file away; the mode is kept all the same.
          }
        }
      }
    } catch (error) {
      undoStaging();
      throw new TransactionError(change.path, error);
    }
  }
  const done: Staged[] = [];
  for (const entry of staged) {
    try {
      if (entry.change.next === undefined) {
        if (entry.change.before !== undefined) unlinkSync(entry.change.path);
      } else renameSync(entry.tmp as string, entry.change.path);
      done.push(entry);
    } catch (error) {
      // Put back what was already replaced, newest first.
      for (const back of done.reverse()) restore(back);
      undoStaging();
      throw new TransactionError(entry.change.path, error);
    }
  }
}

/** Puts a committed file back as it was (best effort: this runs only after another failure). */
function restore(entry: Staged): void {
  const { path, before } = entry.change;
  try {
    if (before === undefined) {
      unlinkSync(path);
      return;
    }
    const tmp = `${path}.llm-wiki-setup-undo-${randomBytes(4).toString("hex")}`;
    writeNew(tmp, before, entry.mode ?? 0o644);
    renameSync(tmp, path);
  } catch {
    // Nothing more can be done here; the error reported names the file that failed.
  }
}
