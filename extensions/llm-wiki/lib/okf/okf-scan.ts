/**
 * Reads a directory as an OKF bundle, treating it as hostile: symlinks,
 * devices and other non-regular files are refused (never followed), files
 * are opened without following a link swapped in after the walk, and the
 * number of files, each file's size and the total read are capped. Hidden
 * entries (`.git`, an export's manifest) are not part of the bundle.
 * Written as sliced work (see sliced-work.ts): it yields between two files,
 * so an export or import run in slices hands the event loop back meanwhile.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
} from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { MAX_PAGE_BYTES } from "../vault/page.ts";
import { conceptPathProblem, isReservedConceptPath, MAX_CONCEPT_DEPTH } from "./okf-paths.ts";

/** Limits of one scan. */
export interface ScanLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

/** Default limits: a wiki page's size cap, 20,000 files, 512 MiB in all. */
export const DEFAULT_SCAN_LIMITS: Readonly<ScanLimits> = Object.freeze({
  maxFiles: 20_000,
  maxFileBytes: MAX_PAGE_BYTES,
  maxTotalBytes: 512 * 1024 * 1024,
});

/** One file read from the bundle. */
export interface ScannedFile {
  /** `/`-separated path relative to the scanned root. */
  rel: string;
  bytes: Buffer;
}

export interface ScanResult {
  /** False when a limit stopped the scan or the root cannot be read: nothing may be applied. */
  ok: boolean;
  /** Concept documents (Markdown, not reserved), in path order. */
  files: ScannedFile[];
  /** Reserved `index.md` / `log.md` files seen (not read). */
  reserved: string[];
  diagnostics: Diagnostic[];
}

export interface ScanOptions {
  /** Keep only `.md` concept documents (a bundle) or every regular file (raw packets). */
  markdownOnly: boolean;
  limits?: ScanLimits;
}

/** Reads at most `max + 1` bytes of the regular file at `abs`, never through a symlink. */
function readRegular(abs: string, max: number): Buffer | "not-regular" | "too-large" {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return "not-regular";
    if (st.size > max) return "too-large";
    const buf = Buffer.alloc(st.size);
    let at = 0;
    while (at < st.size) {
      const n = readSync(fd, buf, at, st.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return at === st.size ? buf : buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** Scans the bundle at `root` (an existing real directory) in one go. */
export function scanBundle(root: string, options: ScanOptions): ScanResult {
  return runWhole((clock) => scanBundleWork(root, options, clock));
}

/** `scanBundle` as sliced work: a turn may come between two entries. */
export function* scanBundleWork(
  root: string,
  options: ScanOptions,
  clock: SliceClock,
): Sliced<ScanResult> {
  const limits = options.limits ?? DEFAULT_SCAN_LIMITS;
  const result: ScanResult = { ok: true, files: [], reserved: [], diagnostics: [] };
  const refuse = (code: string, rel: string, why: string) =>
    result.diagnostics.push(
      diagnostic(code, "warning", `${rel}: ${why}; not imported`, { path: rel }),
    );
  let seen = 0;
  let total = 0;
  let other = 0;
  const stop = (code: string, message: string) => {
    result.ok = false;
    result.diagnostics.push(diagnostic(code, "error", message));
  };
  function* walk(dir: string, prefix: string, depth: number): Sliced<void> {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      stop("okf_scan_unreadable", `${prefix || "."}: cannot be read (${errorMessage(error)})`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!result.ok) return;
      if (clock.due()) yield;
      if (entry.name.startsWith(".")) continue;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      const abs = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        refuse("okf_path_symlink", rel, "is a symbolic link");
        continue;
      }
      if (entry.isDirectory()) {
        if (depth >= MAX_CONCEPT_DEPTH) {
          refuse("okf_limit_depth", rel, `is nested deeper than ${MAX_CONCEPT_DEPTH} folders`);
          continue;
        }
        yield* walk(abs, rel, depth + 1);
        continue;
      }
      if (!entry.isFile()) {
        refuse("okf_path_not_regular", rel, "is not a regular file");
        continue;
      }
      if (options.markdownOnly && !entry.name.toLowerCase().endsWith(".md")) {
        other += 1;
        continue;
      }
      if (options.markdownOnly && isReservedConceptPath(rel)) {
        result.reserved.push(rel);
        continue;
      }
      const problem = conceptPathProblem(options.markdownOnly ? rel : `${rel}.md`);
      if (problem !== undefined) {
        refuse("okf_path_unsafe", rel, problem);
        continue;
      }
      seen += 1;
      if (seen > limits.maxFiles) {
        stop(
          "okf_limit_file_count",
          `the bundle has more than ${limits.maxFiles} files; nothing imported`,
        );
        return;
      }
      let bytes: ReturnType<typeof readRegular>;
      try {
        bytes = readRegular(abs, limits.maxFileBytes);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ELOOP") refuse("okf_path_symlink", rel, "is a symbolic link");
        else refuse("okf_file_unreadable", rel, `cannot be read (${errorMessage(error)})`);
        continue;
      }
      if (bytes === "not-regular") {
        refuse("okf_path_not_regular", rel, "is not a regular file");
        continue;
      }
      if (bytes === "too-large") {
        refuse("okf_limit_file_size", rel, `is larger than ${limits.maxFileBytes} bytes`);
        continue;
      }
      total += bytes.byteLength;
      if (total > limits.maxTotalBytes) {
        stop(
          "okf_limit_total_bytes",
          `the bundle holds more than ${limits.maxTotalBytes} bytes; nothing imported`,
        );
        return;
      }
      result.files.push({ rel, bytes });
    }
  }
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(root);
  } catch (error) {
    stop("okf_bundle_missing", `${root}: cannot be read (${errorMessage(error)})`);
    return result;
  }
  if (!st.isDirectory()) {
    stop(
      "okf_bundle_not_directory",
      `${root} is not a directory (a symbolic link is not followed)`,
    );
    return result;
  }
  yield* walk(root, "", 0);
  if (other > 0) {
    result.diagnostics.push(
      diagnostic(
        "okf_skipped_other_files",
        "info",
        `${other} file(s) that are not Markdown were left out`,
      ),
    );
  }
  return result;
}
