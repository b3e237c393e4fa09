/**
 * Where a vault's derived index lives, under `meta/qmd/`:
 *
 *   LIVE             name of the live generation (replaced atomically)
 *   gen-<stamp>/     one generation: index.sqlite (every page's text, once),
 *                    manifest.json (+ manifest.log, changes appended since), store.json
 *                    (its counts and vectors), COMPLETE; a generation of format 1 also has
 *                    documents/<collection>/<pageId>.md. A rebuild writes a new one beside
 *                    the live one, live once LIVE names it
 *   retired-<stamp>/ a generation a swap replaced, being removed in the background
 *   journal.json     present only while a swap is in progress
 *   state.json       last build outcome and last error
 *
 * Every path stored in these files is relative, so a vault copied or moved to
 * another folder keeps a ready index.
 *
 * The older system (`@zosmaai/pi-llm-wiki`) keeps its own index in the same
 * folder: `current/`, `previous/`, `documents/`, `manifest.json`,
 * `swap.json`, `last-error.json`, `index.lock/`, `staging-<uuid>/`. No name
 * here equals one of those in any case (a case-insensitive file system
 * would take one for the other), and only folders named as ours are ever
 * removed, so neither index breaks the other.
 */
import { existsSync, lstatSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { VaultPaths } from "../vault/paths.ts";

export interface IndexLayout {
  root: string;
  pointer: string;
  journal: string;
  state: string;
  lock: string;
}

/** The index layout of `vault`. */
export function indexLayout(vault: VaultPaths): IndexLayout {
  return {
    root: vault.qmd,
    pointer: join(vault.qmd, "LIVE"),
    journal: join(vault.qmd, "journal.json"),
    state: join(vault.qmd, "state.json"),
    lock: join(vault.meta, "index.lock"),
  };
}

/** Files of one generation folder. */
export interface GenerationPaths {
  name: string;
  dir: string;
  db: string;
  /** Mirror files of a format-1 generation (mirror.ts INDEX_FORMAT); none since. */
  documents: string;
  manifest: string;
  /** Manifest changes appended since `manifest` was last written whole (JSON lines). */
  manifestLog: string;
  /** Counts and vector model of this generation's store, so they swap with it. */
  store: string;
  /** Written last in a rebuild: a staging folder without it is incomplete. */
  complete: string;
}

/** Paths of the generation (or staging) folder `name`. */
export function generationPaths(layout: IndexLayout, name: string): GenerationPaths {
  const dir = join(layout.root, name);
  return {
    name,
    dir,
    db: join(dir, "index.sqlite"),
    documents: join(dir, "documents"),
    manifest: join(dir, "manifest.json"),
    manifestLog: join(dir, "manifest.log"),
    store: join(dir, "store.json"),
    complete: join(dir, "COMPLETE"),
  };
}

const GENERATION_NAME = /^(gen|staging)-[0-9a-z-]+$/;

/**
 * Where earlier versions kept the pointer: `CURRENT`, which a
 * case-insensitive file system takes for the older system's `current/`.
 */
const EARLIER_POINTER = "CURRENT";

/** Names the folders this index makes: `gen-`/`staging-`, a 17-digit stamp, the pid, 4 random characters. */
const OWN_GENERATION = /^(gen|staging)-\d{17}-[0-9a-z]+-[0-9a-z]{4}$/;

function readPointer(path: string): string | undefined {
  try {
    const name = readFileSync(path, "utf8").trim();
    return GENERATION_NAME.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The earlier pointer when it is a file of ours (never the older system's `current/` folder). */
function earlierPointer(layout: IndexLayout): string | undefined {
  const path = join(layout.root, EARLIER_POINTER);
  try {
    return lstatSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Name of the live generation, or undefined when there is none (or the pointer is invalid). */
export function readCurrent(layout: IndexLayout): string | undefined {
  const name = readPointer(layout.pointer);
  if (name !== undefined || existsSync(layout.pointer)) return name;
  // An index an earlier version built: live until the next swap writes `LIVE`.
  const earlier = earlierPointer(layout);
  return earlier === undefined ? undefined : readPointer(earlier);
}

/** Removes the earlier versions' pointer once `LIVE` is written (a file of ours only). */
export function dropEarlierPointer(layout: IndexLayout): void {
  const earlier = earlierPointer(layout);
  if (earlier !== undefined) rmSync(earlier, { force: true });
}

/** True for a generation or staging folder this index made (the older system's `staging-<uuid>` is not). */
export function isOwnGeneration(name: string): boolean {
  return OWN_GENERATION.test(name);
}

/** A new, sortable, unique folder name with `prefix` (`gen`, `staging`, or `retired`: see retired-generations.ts). */
export function newGenerationName(
  prefix: "gen" | "staging" | "retired",
  now: Date = new Date(),
): string {
  const stamp = now
    .toISOString()
    .replace(/[-:.TZ]/g, "")
    .toLowerCase();
  const rand = Math.floor(Math.random() * 36 ** 4)
    .toString(36)
    .padStart(4, "0");
  return `${prefix}-${stamp}-${process.pid.toString(36)}-${rand}`;
}

/** A generation a store may be opened on: complete, with its database still there. */
export function usable(gen: GenerationPaths): boolean {
  return existsSync(gen.complete) && existsSync(gen.db);
}
