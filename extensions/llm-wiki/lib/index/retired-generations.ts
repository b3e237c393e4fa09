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

/** Removes a retired folder without blocking; a failure leaves it to the next recovery. */
function removeLater(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
}

/**
 * Takes folder `name` of the index root out of the index and removes it in
 * the background; the returned promise settles when it is gone (or the
 * removal gave up). A folder that cannot be renamed is removed in place.
 */
export function retireGeneration(layout: IndexLayout, name: string): Promise<void> {
  const dir = join(layout.root, name);
  if (isRetired(name)) return removeLater(dir);
  const retired = join(layout.root, newGenerationName("retired"));
  try {
    renameSync(dir, retired);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return Promise.resolve();
  }
  return removeLater(retired);
}
