/**
 * The generation a swap replaced leaves the index in one rename and is
 * removed in the background. At 100k pages a generation holds 100k mirror
 * files, and removing them one by one took 20–24 s of a rebuild whose new
 * index was already live. A `retired-…` folder is never live, so whatever a
 * process that exited first left of one, recovery removes. (A failed or
 * crashed build's own folder is still removed at once: the space it holds
 * is wanted now.)
 */
import { renameSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { type IndexLayout, newGenerationName } from "./layout.ts";

const RETIRED = /^retired-/;

/** Whether folder `name` of the index root is a retired generation. */
export function isRetired(name: string): boolean {
  return RETIRED.test(name);
}

/** One vault index's retirements, and the removals it has under way. */
export interface GenerationRetirer {
  /**
   * Takes generation `name` out of the index at once and removes it in the
   * background; the promise settles when it is gone (or the removal gave
   * up, leaving it to a later sweep). A folder that cannot be renamed is
   * removed in place.
   */
  retire(name: string): Promise<void>;
  /**
   * Starts removing the retired folders among `names` (the index root's
   * entries) that no removal of this retirer is already working on: every
   * reindex recovers, and a long-lived host reindexes again while a
   * removal of 100k files is still running. Returns how many it started.
   */
  sweep(names: readonly string[]): number;
}

/** The retirer of the index at `layout`. */
export function generationRetirer(layout: IndexLayout): GenerationRetirer {
  const removing = new Set<string>();
  const removeLater = (name: string): Promise<void> => {
    removing.add(name);
    return rm(join(layout.root, name), { recursive: true, force: true, maxRetries: 2 })
      .catch(() => undefined)
      .finally(() => removing.delete(name));
  };
  return {
    retire(name) {
      const retired = newGenerationName("retired");
      try {
        renameSync(join(layout.root, name), join(layout.root, retired));
      } catch {
        rmSync(join(layout.root, name), { recursive: true, force: true });
        return Promise.resolve();
      }
      return removeLater(retired);
    },
    sweep(names) {
      let started = 0;
      for (const name of names) {
        if (!isRetired(name) || removing.has(name)) continue;
        void removeLater(name);
        started += 1;
      }
      return started;
    },
  };
}
