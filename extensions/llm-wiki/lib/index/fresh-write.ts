/**
 * File writes into a folder this process has just created for itself and no
 * reader looks into yet (a rebuild's new generation, private until the
 * pointer swap). Each file is created exclusively (`wx`: O_CREAT|O_EXCL),
 * which never follows a symbolic link and never replaces anything, instead
 * of written to a temporary file and renamed over: no reader can see a
 * half-written file there, and a failed build removes the whole folder.
 *
 * The writes run in the background (libuv's threads) while the build goes
 * on parsing and indexing: at 100k pages creating the files was ~25 s of
 * waiting on the file system, most of which now overlaps other work.
 */
import { lstatSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { makeDirs, writeThroughLinkError } from "../vault/fs-safe.ts";

/** Writes new files in the background; `drain` waits for them and reports the first failure. */
export interface FreshFileWriter {
  write(path: string, content: string): void;
  /** Waits until at most `pending` writes are left running; throws the first write's failure. */
  drain(pending?: number): Promise<void>;
}

/** A writer of new files below folders it makes once each. */
export function freshFileWriter(): FreshFileWriter {
  const made = new Set<string>();
  let running = 0;
  // Drains wait on a count: racing every running write's promise at each
  // wake-up attached a reaction to each of them, hundreds per file at 100k
  // pages, which lived as long as the writes and were promoted to V8's old
  // space as garbage (~90% of what indexing promoted, and so of its peak).
  let waiters: Array<{ pending: number; wake: () => void }> = [];
  let failure: { error: unknown } | undefined;
  const settle = (): void => {
    running -= 1;
    if (waiters.some((w) => running <= w.pending)) {
      const ready = waiters.filter((w) => running <= w.pending);
      waiters = waiters.filter((w) => running > w.pending);
      for (const w of ready) w.wake();
    }
  };
  const start = async (path: string, content: string): Promise<void> => {
    try {
      await writeFile(path, content, { flag: "wx" });
    } catch (error) {
      // Something is there already: in a folder only this build wrote, a
      // planted link is refused as every write refuses one; anything else fails the build.
      const refused =
        (error as NodeJS.ErrnoException).code === "EEXIST" && isLink(path)
          ? writeThroughLinkError(path, path)
          : error;
      failure ??= { error: refused };
    } finally {
      settle();
    }
  };
  return {
    write(path, content) {
      if (failure) throw failure.error;
      const dir = dirname(path);
      if (!made.has(dir)) {
        makeDirs(dir);
        made.add(dir);
      }
      running += 1;
      void start(path, content);
    },
    async drain(pending = 0) {
      if (running > pending) await new Promise<void>((wake) => waiters.push({ pending, wake }));
      if (failure) throw failure.error;
    },
  };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
