/**
 * The swap journal of a rebuild and the recovery that reads it: a rebuild
 * writes the journal before it moves the pointer, so a process killed
 * between the two leaves enough to finish (or undo) the swap, and folders
 * of builds that never finished are removed.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "../vault/fs-safe.ts";
import { removeTempLeftovers } from "./index-failure.ts";
import {
  dropEarlierPointer,
  generationPaths,
  type IndexLayout,
  isOwnGeneration,
  readCurrent,
} from "./layout.ts";
import type { GenerationRetirer } from "./retired-generations.ts";

/** The swap under way: the generation it replaces (if any) and the one it makes live. */
export interface Journal {
  from?: string;
  to: string;
}

/** The swap journal, if a readable one is there. */
export function readJournal(layout: IndexLayout): Journal | undefined {
  try {
    const data = JSON.parse(readFileSync(layout.journal, "utf8")) as Journal;
    return typeof data.to === "string" ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finishes or undoes an interrupted swap and removes abandoned generations.
 * Runs under the lock, so no other process is building a generation now.
 */
export function recover(layout: IndexLayout, retirer: GenerationRetirer): boolean {
  let recovered = false;
  if (existsSync(layout.journal)) {
    const journal = readJournal(layout);
    if (journal) {
      const current = readCurrent(layout);
      const target = generationPaths(layout, journal.to);
      if (current !== journal.to && existsSync(target.complete)) {
        writeFileAtomic(layout.pointer, `${journal.to}\n`);
        dropEarlierPointer(layout);
      }
    }
    rmSync(layout.journal, { force: true });
    recovered = true;
  }
  removeTempLeftovers(layout.root);
  const live = readCurrent(layout);
  let entries: string[] = [];
  try {
    entries = readdirSync(layout.root);
  } catch {
    return recovered;
  }
  for (const name of entries) {
    // Only folders named as ours: the older system's `staging-<uuid>` in the same folder is its own.
    if (isOwnGeneration(name) && name !== live) {
      // A crashed build's folder goes at once: the space is wanted by the build about to run.
      rmSync(generationPaths(layout, name).dir, { recursive: true, force: true });
      recovered = true;
    }
  }
  // Retired folders a process that exited first left: no interruption to report.
  retirer.sweep(entries);
  return recovered;
}
