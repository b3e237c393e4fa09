/**
 * `llm-wiki import --okf DIR`: an OKF v0.2 bundle brought into the vault
 * through a review step. By default nothing is written: the plan lists the
 * documents that would be created, those already present with the same
 * bytes (identical, skipped) and conflicts (same path, different bytes, or a
 * case-folded clash with an existing page). `apply` then creates only —
 * never overwrites, even a file that appears meanwhile — logs one
 * `okf_import` event and indexes what it created.
 *
 * Every document must read as a page (a `type`, valid front matter, the
 * size cap); unknown types and fields are welcome and kept byte for byte.
 * Reserved `index.md` / `log.md` are views of the source bundle and are not
 * imported. Secrets are redacted on the way in.
 *
 * It runs in slices (see sliced-work.ts): a turn between two files read,
 * planned or created. A signal that aborts during the review stops it with
 * `operation_cancelled` and nothing written; during an apply, between two
 * created files (each whole): what was created is logged, and indexed by
 * the next reindex.
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { countTotal, redactSecrets } from "../safety/redact.ts";
import { isCancelled, runSliced, type SliceClock, type Sliced } from "../sliced-work.ts";
import { appendEvent } from "../vault/events.ts";
import { createFileExclusive, isInside, vaultArea } from "../vault/fs-safe.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultHandle } from "../vault-handles.ts";
import { RAW_EXPORT_DIR } from "./okf-export.ts";
import { conceptId, foldedPath } from "./okf-paths.ts";
import { type ScannedFile, scanBundleWork } from "./okf-scan.ts";

export interface OkfImportInput {
  /** The bundle directory (absolute, or relative to the caller's working directory). */
  dir: string;
  /** Write the creates (default: a dry run that writes nothing). */
  apply?: boolean;
  /** Also restore raw packets from the bundle's `.llm-wiki-raw/` (create-only). */
  withRaw?: boolean;
}

/** One document of the plan. */
export interface ImportItem {
  /** Vault-relative target, e.g. `wiki/concepts/rag.md` or `raw/sources/…`. */
  path: string;
  /** Page id, for pages. */
  id?: string;
  /** Why it is a conflict. */
  reason?: string;
}

export interface OkfImportResult {
  ok: boolean;
  /** False for a dry run. */
  applied: boolean;
  dir?: string;
  /** Would be (dry run) or were (apply) created. */
  creates: ImportItem[];
  /** Already present with the same bytes: skipped. */
  identical: ImportItem[];
  /** Present with different bytes, or clashing by case: never overwritten. */
  conflicts: ImportItem[];
  /** Documents that cannot be pages (no type, bad front matter, …): not imported. */
  rejected: ImportItem[];
  /** Reserved bundle files seen and not imported. */
  reserved: string[];
  /** Whether the search index holds the created pages (apply only). */
  indexed?: boolean;
  diagnostics: Diagnostic[];
}

interface Candidate {
  item: ImportItem;
  bytes: Buffer;
}

/**
 * Whether the nearest existing folder above `abs` really lies inside `base`
 * (a folder of the vault swapped for a symlink must not carry a write out).
 */
function parentReallyInside(base: string, abs: string): boolean {
  let at = dirname(abs);
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) return false;
    at = up;
  }
  try {
    return isInside(realpathSync(base), realpathSync(at));
  } catch {
    return false;
  }
}

/** Where `abs` stands: "free", "identical", or why it is a conflict. */
function targetState(abs: string, bytes: Buffer, base: string): string {
  if (!parentReallyInside(base, abs)) return "a folder of its path leads outside the vault";
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "free";
    if (code === "ENOTDIR") return "a file stands where a folder of its path should be";
    return `cannot be checked (${errorMessage(error)})`;
  }
  if (st.isSymbolicLink()) return "the existing path is a symbolic link";
  if (!st.isFile()) return "the existing path is not a regular file";
  return readFileSync(abs).equals(bytes) ? "identical" : "an existing file has different bytes";
}

/**
 * Plans (and with `apply`, performs) the import of `input.dir` into the
 * vault of `handle`, in slices that `signal` can cancel.
 */
export async function importOkf(
  handle: VaultHandle,
  input: OkfImportInput,
  signal?: AbortSignal,
): Promise<OkfImportResult> {
  const what = "OKF import";
  let planned: { result: OkfImportResult; candidates: Candidate[] };
  try {
    planned = await runSliced((clock) => planImport(handle, input, clock), what, signal);
  } catch (error) {
    if (!isCancelled(error)) throw error;
    return { ...emptyResult(resolve(input.dir)), ok: false, diagnostics: [error.diagnostic] };
  }
  const { result, candidates } = planned;
  if (!input.apply || !result.ok) {
    result.creates = candidates.map((c) => c.item);
    return result;
  }
  const vault = handle.paths;
  result.applied = true;
  const written: string[] = [];
  let cancelled = false;
  try {
    await runSliced((clock) => createAll(handle, candidates, result, written, clock), what, signal);
  } catch (error) {
    if (!isCancelled(error)) throw error;
    // Each file created is whole; the ones not reached are simply not created.
    result.ok = false;
    result.diagnostics.push(error.diagnostic);
    cancelled = true;
  }
  appendEvent(vault, {
    kind: "okf_import",
    created: result.creates.length,
    identical: result.identical.length,
    conflicts: result.conflicts.length,
    rejected: result.rejected.length,
    pages: result.creates
      .filter((i) => i.id !== undefined)
      .slice(0, 200)
      .map((i) => i.id),
  });
  const pages = written.filter((p) => p.startsWith("wiki/"));
  if (pages.length > 0 && !cancelled) {
    result.indexed = await indexPages(handle, pages, result.diagnostics);
  }
  return result;
}

/** A result with nothing planned yet, for the bundle `dir`. */
function emptyResult(dir: string): OkfImportResult {
  return {
    ok: true,
    applied: false,
    dir,
    creates: [],
    identical: [],
    conflicts: [],
    rejected: [],
    reserved: [],
    diagnostics: [],
  };
}

/** Creates each candidate (never overwriting), recording it in `result`; yields between two files. */
function* createAll(
  handle: VaultHandle,
  candidates: readonly Candidate[],
  result: OkfImportResult,
  written: string[],
  clock: SliceClock,
): Sliced<void> {
  const vault = handle.paths;
  for (const c of candidates) {
    if (clock.due()) yield;
    try {
      if (createFileExclusive(join(vault.dir, c.item.path), c.bytes, vaultArea(vault))) {
        result.creates.push(c.item);
        written.push(c.item.path);
      } else
        result.conflicts.push({ ...c.item, reason: "a file appeared there during the import" });
    } catch (error) {
      result.ok = false;
      result.conflicts.push({ ...c.item, reason: `could not be written (${errorMessage(error)})` });
    }
  }
}

/**
 * Reads the bundle and plans each document (create, identical, conflict,
 * rejected) against the vault, writing nothing; yields between two files.
 * `result.ok` is false when the bundle could not be read as a whole.
 */
function* planImport(
  handle: VaultHandle,
  input: OkfImportInput,
  clock: SliceClock,
): Sliced<{ result: OkfImportResult; candidates: Candidate[] }> {
  const vault = handle.paths;
  const dir = resolve(input.dir);
  const result = emptyResult(dir);
  const candidates: Candidate[] = [];
  if (isInside(vault.dir, dir)) {
    result.ok = false;
    result.diagnostics.push(
      diagnostic(
        "okf_import_inside_vault",
        "error",
        `${dir} is inside the vault's .llm-wiki folder; import from a bundle outside it`,
      ),
    );
    return { result, candidates };
  }
  const scan = yield* scanBundleWork(dir, { markdownOnly: true }, clock);
  result.diagnostics.push(...scan.diagnostics);
  result.reserved = scan.reserved;
  if (!scan.ok) return { result: { ...result, ok: false }, candidates };

  const registry = handle.refresh();
  const existingByFold = new Map<string, string>();
  for (const page of registry.pages.values()) existingByFold.set(foldedPath(page.path), page.path);
  const seenFold = new Map<string, string>();

  const plan = (f: ScannedFile, path: string, id: string | undefined) => {
    const item: ImportItem = { path, ...(id ? { id } : {}) };
    let bytes = f.bytes;
    if (id !== undefined) {
      const parsed = parsePage(id, path, bytes);
      // A vault reads a hand-written note with no `type` by its folder; an
      // OKF document says its type, so one without is not a document.
      const untyped = parsed.ok
        ? parsed.diagnostics.filter((d) => d.code === "page_missing_type")
        : [];
      if (!parsed.ok || untyped.length > 0) {
        const said = parsed.ok ? untyped : parsed.diagnostics;
        result.rejected.push({ ...item, reason: said[0]?.message ?? "not a page" });
        result.diagnostics.push(...said.map((d) => ({ ...d, severity: "warning" as const })));
        return;
      }
      const redacted = redactSecrets(bytes.toString("utf8"));
      if (countTotal(redacted.counts) > 0) {
        bytes = Buffer.from(redacted.text, "utf8");
        result.diagnostics.push(
          diagnostic(
            "okf_import_redacted",
            "warning",
            `${path}: secrets redacted in the imported copy`,
            { path },
          ),
        );
      }
    }
    const fold = foldedPath(path);
    const twin = seenFold.get(fold);
    if (twin !== undefined) {
      result.conflicts.push({
        ...item,
        reason: `clashes by case or Unicode form with ${twin} of the same bundle`,
      });
      return;
    }
    seenFold.set(fold, path);
    const abs = join(vault.dir, path);
    const state = targetState(abs, bytes, vault.dir);
    if (state === "identical") result.identical.push(item);
    else if (state !== "free") result.conflicts.push({ ...item, reason: state });
    else {
      const clash = existingByFold.get(fold);
      if (clash !== undefined && clash !== path) {
        result.conflicts.push({
          ...item,
          reason: `clashes by case or Unicode form with the existing ${clash}`,
        });
      } else candidates.push({ item, bytes });
    }
  };
  for (const f of scan.files) {
    if (clock.due()) yield;
    plan(f, `wiki/${f.rel}`, conceptId(f.rel));
  }
  if (input.withRaw) {
    const rawScan = yield* scanBundleWork(
      join(dir, RAW_EXPORT_DIR),
      {
        markdownOnly: false,
        limits: { maxFiles: 100_000, maxFileBytes: 64 * 1024 * 1024, maxTotalBytes: 8 * 1024 ** 3 },
      },
      clock,
    );
    if (rawScan.ok) {
      for (const f of rawScan.files) {
        if (clock.due()) yield;
        plan(f, `raw/${f.rel}`, undefined);
      }
    } else result.diagnostics.push(...rawScan.diagnostics);
  }
  return { result, candidates };
}

/** Registers and indexes the created pages; a failure leaves them written and says how to repair. */
async function indexPages(
  handle: VaultHandle,
  paths: string[],
  diagnostics: Diagnostic[],
): Promise<boolean> {
  const stale = (reason: string) => {
    diagnostics.push(
      diagnostic(
        "index_stale",
        "warning",
        `imported pages are written, but the search index was not updated (${reason})`,
        {
          repair: "llm-wiki reindex",
        },
      ),
    );
    return false;
  };
  try {
    const registry = handle.refresh(paths);
    if (handle.index.status(registry).state === "missing") return false;
    const report = await handle.index.reindex(registry, {
      scope: "changed",
      components: ["lexical"],
    });
    const failed = report.diagnostics.find((d) => d.severity === "error");
    return failed ? stale(`${failed.code}: ${failed.message}`) : true;
  } catch (error) {
    return stale(errorMessage(error));
  }
}
