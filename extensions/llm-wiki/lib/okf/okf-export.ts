/**
 * `llm-wiki export --okf DIR`: the vault's pages as a portable OKF v0.2
 * bundle. Each page the registry accepts is written at its concept path
 * (`wiki/concepts/rag.md` → `DIR/concepts/rag.md`) with its bytes as they
 * are, except that secrets are redacted on the way out; `index.md` files
 * are generated (the root one declares `okf_version: "0.2"`). Nothing under
 * `meta/` is exported, nor raw packets unless asked (`withRaw`: under the
 * hidden `DIR/.llm-wiki-raw/`, which OKF readers skip and `import --okf
 * --with-raw` restores). The vault is only read.
 *
 * DIR must be missing, empty, or a previous export still as it wrote it
 * (see okf-export-manifest.ts); anything else is refused, and no file the
 * export did not write is ever replaced or removed.
 *
 * It runs in slices (see sliced-work.ts), in three steps: everything is
 * read, redacted and hashed (nothing written); then staged in a hidden
 * folder of DIR (see okf-export-staging.ts); then committed, one rename per
 * file. A signal that aborts during the first two stops the export with
 * `operation_cancelled`, its staging folder (and a DIR it made) removed and
 * the previous export untouched; the commit, short, always runs to its end.
 */
import { existsSync, lstatSync, readFileSync, rmdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { countTotal, redactSecrets } from "../safety/redact.ts";
import { isCancelled, runSliced, type SliceClock, type Sliced } from "../sliced-work.ts";
import { readVaultConfig } from "../vault/config.ts";
import { isInside, isReallyInside, writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultHandle } from "../vault-handles.ts";
import { bundleIndexesWork, type IndexedConcept } from "./okf-bundle-index.ts";
import {
  checkDestination,
  type DestinationCheck,
  EXPORT_MANIFEST,
  type ExportManifest,
  newManifest,
  readManifest,
  sha256,
} from "./okf-export-manifest.ts";
import {
  leftoverStaging,
  makeDestination,
  makeStaging,
  moveStaged,
  removeMadeFolders,
  removeOurs,
  removeStaged,
  STAGING_DIR,
  writeStaged,
} from "./okf-export-staging.ts";
import { conceptPathProblem, isReservedConceptPath } from "./okf-paths.ts";
import { scanBundleWork } from "./okf-scan.ts";

/** Hidden folder of an export that holds the vault's raw packets (`--with-raw`). */
export const RAW_EXPORT_DIR = ".llm-wiki-raw";
/** Largest raw file carried by `--with-raw` (captures are capped well below). */
const MAX_RAW_FILE_BYTES = 64 * 1024 * 1024;

export interface OkfExportInput {
  /** Destination directory (absolute, or relative to the caller's working directory). */
  dir: string;
  /** Also carry `raw/` packets (under `.llm-wiki-raw/`). */
  withRaw?: boolean;
}

export interface OkfExportResult {
  ok: boolean;
  /** The destination, absolute. */
  dir?: string;
  /** Concept documents written (bundle paths), in order. */
  pages: string[];
  /** Generated `index.md` files. */
  indexes: string[];
  /** Raw packet files carried (paths under `raw/`). */
  raw: string[];
  /** Files of the previous export removed because their page is gone. */
  removed: string[];
  /** True when DIR held a previous export that this one replaced. */
  replacedPrevious: boolean;
  diagnostics: Diagnostic[];
}

/** The answer of an export that wrote nothing, for the one diagnostic that says why. */
function unwritten(why: Diagnostic, dir?: string): OkfExportResult {
  return {
    ok: false,
    ...(dir !== undefined ? { dir } : {}),
    pages: [],
    indexes: [],
    raw: [],
    removed: [],
    replacedPrevious: false,
    diagnostics: [why],
  };
}

function refused(code: string, message: string, path?: string): OkfExportResult {
  return unwritten(diagnostic(code, "error", message, path ? { path } : {}));
}

/** An export read, redacted and hashed, ready to be staged: nothing written yet. */
interface ExportPlan {
  dir: string;
  /** Bundle path → bytes, in the order they are written. */
  files: Map<string, Buffer>;
  hashes: Record<string, string>;
  previous: ExportManifest | undefined;
  /** Files of the staging folder an export killed outright left (ours, removed first). */
  leftover: string[] | undefined;
  /** The answer once the plan is committed. */
  result: OkfExportResult;
}

/**
 * Exports the vault of `handle` to `input.dir` (already resolved against
 * the caller's cwd), in slices; `signal` cancels it until its commit.
 */
export async function exportOkf(
  handle: VaultHandle,
  input: OkfExportInput,
  signal?: AbortSignal,
): Promise<OkfExportResult> {
  const what = "OKF export";
  let planned: ExportPlan | OkfExportResult;
  try {
    planned = await runSliced((clock) => planExport(handle, input, clock), what, signal);
  } catch (error) {
    if (isCancelled(error)) return unwritten(error.diagnostic, resolve(input.dir));
    throw error;
  }
  if (!("files" in planned)) return planned;
  const plan = planned;
  const { dir } = plan;
  const failed = (error: unknown) =>
    unwritten(
      diagnostic(
        "okf_export_write_failed",
        "error",
        `${dir}: the export could not be written (${errorMessage(error)}); run it again`,
      ),
      dir,
    );
  let made: string[] = [];
  let staging: string | undefined;
  try {
    await runSliced(
      function* stage(clock) {
        if (plan.leftover) removeStaged(join(dir, STAGING_DIR), plan.leftover);
        made = makeDestination(dir);
        staging = makeStaging(dir, plan.hashes);
        yield* writeStaged(staging, plan.files, clock);
      },
      what,
      signal,
    );
  } catch (error) {
    // Only a staging folder this export made is removed, and only the files it names.
    if (staging) removeStaged(staging, plan.files.keys());
    removeMadeFolders(made);
    return isCancelled(error) ? unwritten(error.diagnostic, dir) : failed(error);
  }
  try {
    // No signal: once begun, the commit (a rename per file) runs to its end.
    await runSliced((clock) => commitExport(plan, clock), what);
  } catch (error) {
    if (staging) removeStaged(staging, plan.files.keys());
    return failed(error);
  }
  return plan.result;
}

/**
 * Replaces the previous export by the staged one: the manifest lists both
 * while the files move (an export cut short is still recognised as ours),
 * then the previous export's files whose page is gone are removed, then the
 * manifest lists the new files only, then the empty staging folder goes.
 */
function* commitExport(plan: ExportPlan, clock: SliceClock): Sliced<void> {
  const { dir, hashes } = plan;
  writeFileAtomic(
    join(dir, EXPORT_MANIFEST),
    `${JSON.stringify(newManifest(plan.previous?.files ?? {}, hashes), null, 2)}\n`,
    dir,
  );
  yield* moveStaged(dir, plan.files.keys(), clock);
  for (const rel of plan.result.removed) {
    if (clock.due()) yield;
    removeOurs(dir, rel);
    removeEmptyParents(dir, dirname(join(dir, rel)));
  }
  writeFileAtomic(
    join(dir, EXPORT_MANIFEST),
    `${JSON.stringify(newManifest(hashes), null, 2)}\n`,
    dir,
  );
  removeStaged(join(dir, STAGING_DIR), []);
}

/**
 * Checks the destination, then reads, redacts and hashes every file of the
 * export: a refusal, or the plan to stage. Writes nothing; yields between
 * two pages (and two files of the destination's check and of `raw/`).
 */
function* planExport(
  handle: VaultHandle,
  input: OkfExportInput,
  clock: SliceClock,
): Sliced<ExportPlan | OkfExportResult> {
  const vault = handle.paths;
  const dir = resolve(input.dir);
  if (isInside(vault.dir, dir) || isInside(dir, vault.dir)) {
    return refused(
      "okf_export_overlaps_vault",
      `${dir} overlaps the vault's .llm-wiki folder; export to a directory outside it`,
    );
  }
  let exists = true;
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) {
      return refused(
        "okf_export_not_directory",
        `${dir} exists and is not a directory (a symbolic link is not followed)`,
      );
    }
  } catch {
    exists = false;
  }
  const previous = exists ? readManifest(dir) : undefined;
  const check: DestinationCheck = exists
    ? yield* checkDestination(dir, previous, clock, STAGING_DIR)
    : { empty: true, ours: [], foreign: [] };
  const leftover = exists ? yield* leftoverStaging(dir, clock) : { state: "none" as const };
  if (leftover.state === "foreign") {
    check.empty = false;
    check.foreign.push(...leftover.entries);
  }
  if (!check.empty && check.foreign.length > 0) {
    const shown = check.foreign.slice(0, 5).join(", ");
    return refused(
      "okf_export_target_not_empty",
      previous
        ? `${dir} holds a previous export, but ${check.foreign.length} file(s) there are not as it wrote them (${shown}); nothing written — export to a new directory`
        : `${dir} is not empty and holds no previous llm-wiki export (no ${EXPORT_MANIFEST}); nothing written — export to a new or empty directory`,
    );
  }

  const diagnostics: Diagnostic[] = [];
  const registry = handle.refresh();
  const files = new Map<string, Buffer>();
  const concepts: IndexedConcept[] = [];
  for (const page of registry.pages.values()) {
    if (clock.due()) yield;
    const rel = page.path.startsWith("wiki/") ? page.path.slice("wiki/".length) : undefined;
    const problem = rel === undefined ? "not under wiki/" : conceptPathProblem(rel);
    if (rel === undefined || problem !== undefined || isReservedConceptPath(rel)) {
      diagnostics.push(
        diagnostic(
          "okf_export_skipped",
          "warning",
          `${page.path}: ${problem ?? "a reserved name"}; not exported`,
          {
            path: page.path,
          },
        ),
      );
      continue;
    }
    const abs = join(vault.dir, page.path);
    let bytes: Buffer;
    try {
      if (!isReallyInside(vault.wiki, abs)) throw new Error("its real location is outside wiki/");
      bytes = readFileSync(abs);
    } catch (error) {
      diagnostics.push(
        diagnostic(
          "okf_export_skipped",
          "warning",
          `${page.path}: ${errorMessage(error)}; not exported`,
          {
            path: page.path,
          },
        ),
      );
      continue;
    }
    // A bundle leaves the machine: a secret never does. Other bytes stay as they are.
    const redacted = redactSecrets(bytes.toString("utf8"));
    if (countTotal(redacted.counts) > 0) {
      bytes = Buffer.from(redacted.text, "utf8");
      diagnostics.push(
        diagnostic(
          "okf_export_redacted",
          "warning",
          `${page.path}: secrets redacted in the exported copy`,
          {
            path: page.path,
          },
        ),
      );
    }
    files.set(rel, bytes);
    concepts.push({
      rel,
      title: page.title,
      ...(page.description ? { description: page.description } : {}),
    });
  }
  for (const d of registry.diagnostics) {
    if (d.severity === "error" && d.path) {
      diagnostics.push(
        diagnostic(
          "okf_export_skipped",
          "warning",
          `${d.path}: malformed (${d.code}); not exported`,
          { path: d.path },
        ),
      );
    }
  }
  const name = readVaultConfig(vault).config.name ?? "";
  const indexes = yield* bundleIndexesWork(typeof name === "string" ? name : "", concepts, clock);
  for (const [rel, text] of indexes) files.set(rel, Buffer.from(text, "utf8"));

  const raw: string[] = [];
  if (input.withRaw && existsSync(vault.raw)) {
    const scan = yield* scanBundleWork(
      vault.raw,
      {
        markdownOnly: false,
        limits: {
          maxFiles: 100_000,
          maxFileBytes: MAX_RAW_FILE_BYTES,
          maxTotalBytes: 8 * 1024 ** 3,
        },
      },
      clock,
    );
    diagnostics.push(
      ...scan.diagnostics.map((d) => ({
        ...d,
        severity: d.severity === "error" ? ("warning" as const) : d.severity,
      })),
    );
    for (const f of scan.files) {
      files.set(`${RAW_EXPORT_DIR}/${f.rel}`, f.bytes);
      raw.push(`raw/${f.rel}`);
    }
  }

  const hashes: Record<string, string> = {};
  for (const [rel, bytes] of files) {
    if (clock.due()) yield;
    hashes[rel] = sha256(bytes);
  }
  const removed = check.ours.filter((rel) => !files.has(rel));
  return {
    dir,
    files,
    hashes,
    previous,
    leftover: leftover.state === "ours" ? leftover.files : undefined,
    result: {
      ok: true,
      dir,
      pages: concepts.map((c) => c.rel),
      indexes: [...indexes.keys()].sort(),
      raw,
      removed,
      replacedPrevious: previous !== undefined && !check.empty,
      diagnostics,
    },
  };
}

/** Removes now-empty folders from `from` up to (not including) `root`. */
function removeEmptyParents(root: string, from: string): void {
  let at = from;
  while (isInside(root, at) && relative(root, at) !== "") {
    try {
      rmdirSync(at);
    } catch {
      return;
    }
    at = dirname(at);
  }
}
