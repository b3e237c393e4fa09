/**
 * The manifest an OKF export leaves in its directory
 * (`.llm-wiki-export.json`, hidden, so OKF readers skip it): every file the
 * export wrote, with its sha256. It is how a later export recognises a
 * directory as its own: a non-empty directory is written to only when each
 * of its files is listed there with the same hash. A file someone added or
 * edited since makes the directory someone else's, and it is left alone.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SliceClock, Sliced } from "../sliced-work.ts";

/** File name of the manifest, at the export's root. */
export const EXPORT_MANIFEST = ".llm-wiki-export.json";
const FORMAT = "llm-wiki-okf-export";

export interface ExportManifest {
  format: typeof FORMAT;
  version: 1;
  /** Bundle-relative path → sha256 of the bytes written. */
  files: Record<string, string>;
  /** Written during an export in progress: also ours, in case it was cut short. */
  pending?: Record<string, string>;
}

/** A new manifest over `files`. */
export function newManifest(
  files: Record<string, string>,
  pending?: Record<string, string>,
): ExportManifest {
  return { format: FORMAT, version: 1, files, ...(pending ? { pending } : {}) };
}

/** sha256 hex of `bytes`. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function hashMap(value: unknown): Record<string, string> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, hash] of Object.entries(value)) {
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) return undefined;
    out[key] = hash;
  }
  return out;
}

/** The manifest in `dir`, or undefined when there is none or it is not one of ours. */
export function readManifest(dir: string): ExportManifest | undefined {
  try {
    const st = lstatSync(join(dir, EXPORT_MANIFEST));
    if (!st.isFile() || st.size > 64 * 1024 * 1024) return undefined;
    const data = JSON.parse(readFileSync(join(dir, EXPORT_MANIFEST), "utf8")) as unknown;
    if (data === null || typeof data !== "object") return undefined;
    const record = data as Record<string, unknown>;
    if (record.format !== FORMAT || record.version !== 1) return undefined;
    const files = hashMap(record.files);
    const pending = record.pending === undefined ? {} : hashMap(record.pending);
    if (!files || !pending) return undefined;
    return newManifest(files, Object.keys(pending).length > 0 ? pending : undefined);
  } catch {
    return undefined;
  }
}

/** What a destination directory holds, as the export judges it. */
export interface DestinationCheck {
  /** True when the directory has no entries at all. */
  empty: boolean;
  /** Files the previous export wrote and that are still as written (relative paths). */
  ours: string[];
  /** Entries that are not (any longer) the previous export's: the directory must be left alone. */
  foreign: string[];
}

/**
 * Walks `dir` (never following a symlink) and sorts its files into those a
 * previous export wrote (`manifest`, hash unchanged) and anything else.
 * Only walked files are ever candidates for removal, so a hostile manifest
 * naming `../x` can make nothing outside `dir` ours. The entry `exempt` at
 * the top (the export's staging folder, judged on its own) is passed over.
 * Sliced work: it may yield between two entries (each file is hashed).
 */
export function* checkDestination(
  dir: string,
  manifest: ExportManifest | undefined,
  clock: SliceClock,
  exempt?: string,
): Sliced<DestinationCheck> {
  const check: DestinationCheck = { empty: true, ours: [], foreign: [] };
  function* walk(abs: string, prefix: string): Sliced<void> {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (clock.due()) yield;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (rel === exempt) continue;
      check.empty = false;
      if (rel === EXPORT_MANIFEST && manifest) continue;
      if (entry.isDirectory()) {
        yield* walk(join(abs, entry.name), rel);
        continue;
      }
      if (!entry.isFile() || !manifest) {
        check.foreign.push(rel);
        continue;
      }
      const expected = [manifest.files[rel], manifest.pending?.[rel]];
      const hash = sha256(readFileSync(join(abs, entry.name)));
      if (Object.hasOwn(manifest.files, rel) || Object.hasOwn(manifest.pending ?? {}, rel)) {
        if (expected.includes(hash)) check.ours.push(rel);
        else check.foreign.push(rel);
      } else check.foreign.push(rel);
    }
  }
  yield* walk(dir, "");
  return check;
}
