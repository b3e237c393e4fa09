/**
 * One index lock per vault (`meta/index.lock`), shared by every process that
 * writes the index: Pi, the MCP server and the CLI. A lock whose holder died
 * is taken over; a live holder makes the caller wait within a bound, then
 * get a clear "busy" diagnostic.
 */

import { readFileSync, renameSync, unlinkSync } from "node:fs";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { createFileExclusive } from "../vault/fs-safe.ts";

interface LockOwner {
  pid: number;
  host: string;
  op: string;
  startedAt: string;
}

export interface LockHandle {
  release(): void;
}

export interface LockOptions {
  /** What the holder is doing, shown to whoever waits. */
  op: string;
  /** How long to wait for a live holder before giving up. */
  waitMs?: number;
  pollMs?: number;
}

/** Locks held elsewhere on another machine are only taken over after this long. */
const FOREIGN_STALE_MS = 60 * 60 * 1000;

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, "utf8")) as LockOwner;
    return typeof owner.pid === "number" ? owner : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(owner: LockOwner | undefined): boolean {
  // Unreadable content: a holder died between create and write, or wrote garbage.
  if (owner === undefined) return true;
  if (owner.host !== hostname()) {
    return Date.now() - Date.parse(owner.startedAt) > FOREIGN_STALE_MS;
  }
  return !alive(owner.pid);
}

/**
 * Moves a stale lock aside. Renaming is atomic, so of two processes taking
 * over the same dead lock only one succeeds; if what was moved turns out to be
 * a fresh lock (another process won the race), it is put back.
 */
function takeOver(path: string, seen: string): void {
  const aside = `${path}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  let moved = "";
  try {
    moved = readFileSync(aside, "utf8");
  } catch {
    // Nothing readable: treat as the stale lock.
  }
  if (moved !== seen && !isStale(readOwner(aside))) {
    try {
      createFileExclusive(path, moved);
    } catch {
      // The lock was re-taken meanwhile; the other holder stays authoritative.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

/** Takes the vault's index lock, waiting up to `waitMs` for a live holder. */
export async function acquireLock(path: string, options: LockOptions): Promise<LockHandle> {
  const waitMs = options.waitMs ?? 10_000;
  const pollMs = options.pollMs ?? 50;
  const deadline = Date.now() + waitMs;
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    op: options.op,
    startedAt: new Date().toISOString(),
  };
  const content = `${JSON.stringify(me)}\n`;
  for (;;) {
    if (createFileExclusive(path, content)) {
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          // Only remove the lock if it is still ours.
          try {
            if (readFileSync(path, "utf8") === content) unlinkSync(path);
          } catch {
            // Already gone.
          }
        },
      };
    }
    let seen = "";
    try {
      seen = readFileSync(path, "utf8");
    } catch (error) {
      // Released between our attempt and the read: try again at once.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      // A folder or an unreadable file in the lock's place would never go away by waiting.
      throw new WikiError(
        diagnostic(
          "index_lock_unusable",
          "error",
          `cannot use the index lock ${path}: ${errorMessage(error)}`,
          {
            repair: `remove ${path} (no llm-wiki process should be running), then run the command again`,
          },
        ),
      );
    }
    const owner = readOwner(path);
    if (isStale(owner)) {
      takeOver(path, seen);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new WikiError(
        diagnostic(
          "index_busy",
          "error",
          `the index is busy: process ${owner?.pid} is running "${owner?.op}" since ${owner?.startedAt}`,
          { repair: "wait for it to finish, then run the command again" },
        ),
      );
    }
    await sleep(pollMs);
  }
}

/** True when a live process holds the lock at `path` (a short-lived hook asks before starting a build). */
export function lockHeld(path: string): boolean {
  try {
    return !isStale(readOwner(path)) && readFileSync(path, "utf8") !== "";
  } catch {
    return false;
  }
}
