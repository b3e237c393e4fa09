/**
 * Where an OKF export is written before it replaces the previous one: a
 * hidden folder inside the destination (`.llm-wiki-export-staging/`; OKF
 * readers skip hidden entries, and a rename within one folder never crosses
 * a file system). The pages are read, redacted and written there in slices,
 * so a cancelled export removes that folder and leaves the destination
 * exactly as it was; only the short commit that follows — one rename per
 * file — touches the previous export.
 *
 * The staging folder holds a manifest of its own (the same format as an
 * export's, its files as `pending`), written before any file: an export
 * killed outright leaves a folder the next one can recognise as its own and
 * remove, file by listed file, instead of refusing the destination forever.
 */
import {
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { SliceClock, Sliced } from "../sliced-work.ts";
import {
  isInside,
  linkOnTheWay,
  makeDirs,
  refuseLinkOnTheWay,
  writeFileAtomic,
} from "../vault/fs-safe.ts";
import {
  checkDestination,
  EXPORT_MANIFEST,
  newManifest,
  readManifest,
} from "./okf-export-manifest.ts";

/** Name of the staging folder, at the destination's root. */
export const STAGING_DIR = ".llm-wiki-export-staging";

/** A staging folder an earlier export left: none, one of ours (its files listed), or not ours. */
export type LeftoverStaging =
  | { state: "none" }
  | { state: "ours"; files: string[] }
  | { state: "foreign"; entries: string[] };

/**
 * Judges the staging folder an export killed outright may have left in
 * `dir`: ours when it is a real folder whose every file its own manifest
 * lists with the same hash (or an empty one, killed right after its mkdir).
 */
export function* leftoverStaging(dir: string, clock: SliceClock): Sliced<LeftoverStaging> {
  const staging = join(dir, STAGING_DIR);
  try {
    if (!lstatSync(staging).isDirectory()) return { state: "foreign", entries: [STAGING_DIR] };
  } catch {
    return { state: "none" };
  }
  const manifest = readManifest(staging);
  const check = yield* checkDestination(staging, manifest, clock);
  if (check.foreign.length > 0 || (!manifest && !check.empty)) {
    const entries = check.foreign.length > 0 ? check.foreign : [""];
    return { state: "foreign", entries: entries.map((rel) => `${STAGING_DIR}/${rel}`) };
  }
  return { state: "ours", files: check.ours };
}

/**
 * Removes the files `rels` below `root` that are still there, never through
 * a link (a folder swapped for one meanwhile keeps what it leads to), then
 * `root`'s manifest when `manifest`, then every folder left empty, `root`
 * included. A file nobody named is never removed: its folder stays.
 */
export function removeStaged(root: string, rels: Iterable<string>, manifest = true): void {
  for (const rel of rels) removeOurs(root, rel);
  if (manifest) removeOurs(root, EXPORT_MANIFEST);
  removeEmptyFolders(root);
}

/** Removes `root/rel` unless a link lies on the way (or is the file itself). */
export function removeOurs(root: string, rel: string): void {
  const abs = join(root, rel);
  if (!isInside(root, abs) || linkOnTheWay(abs, root) !== undefined) return;
  rmSync(abs, { force: true });
}

/** Removes `at` and the folders below it that hold nothing (links are not followed). */
function removeEmptyFolders(at: string): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(at, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) if (entry.isDirectory()) removeEmptyFolders(join(at, entry.name));
  try {
    rmdirSync(at);
  } catch {
    // Not empty: something in it is not ours to remove.
  }
}

/**
 * Makes the destination `dir` and any missing parent; returns the folders it
 * made, outermost first, so a cancelled export can leave nothing behind.
 */
export function makeDestination(dir: string): string[] {
  const made: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    try {
      statSync(at);
      break;
    } catch {
      made.unshift(at);
      if (dirname(at) === at) break;
    }
  }
  makeDirs(dir);
  return made;
}

/** Removes the folders `makeDestination` made, innermost first, each only if empty. */
export function removeMadeFolders(made: readonly string[]): void {
  for (const at of [...made].reverse()) {
    try {
      rmdirSync(at);
    } catch {
      return;
    }
  }
}

/**
 * Makes the staging folder of `dir` (which must not exist yet: never one
 * someone else made) and writes its manifest, listing `hashes` before any
 * file is staged; returns its path.
 */
export function makeStaging(dir: string, hashes: Record<string, string>): string {
  const staging = join(dir, STAGING_DIR);
  refuseLinkOnTheWay(staging, dir);
  mkdirSync(staging);
  writeFileAtomic(
    join(staging, EXPORT_MANIFEST),
    `${JSON.stringify(newManifest({}, hashes), null, 2)}\n`,
    staging,
  );
  return staging;
}

/** Writes `files` into the staging folder `staging`, never through a link; yields between two files. */
export function* writeStaged(
  staging: string,
  files: ReadonlyMap<string, Uint8Array>,
  clock: SliceClock,
): Sliced<void> {
  for (const [rel, bytes] of files) {
    if (clock.due()) yield;
    const abs = join(staging, rel);
    if (!isInside(staging, abs)) throw new Error(`${rel} escapes the destination`);
    writeFileAtomic(abs, bytes, staging);
  }
}

/**
 * Moves each staged file `rels` to its place in `dir`, replacing the
 * previous export's file there (never through a link below `dir`, nor a
 * link at the place itself); yields between two files.
 */
export function* moveStaged(dir: string, rels: Iterable<string>, clock: SliceClock): Sliced<void> {
  const staging = join(dir, STAGING_DIR);
  for (const rel of rels) {
    if (clock.due()) yield;
    const target = join(dir, rel);
    if (!isInside(dir, target)) throw new Error(`${rel} escapes the destination`);
    refuseLinkOnTheWay(target, dir);
    makeDirs(dirname(target), dir);
    renameSync(join(staging, rel), target);
  }
}
