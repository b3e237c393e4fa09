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
 */
import { existsSync, lstatSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { countTotal, redactSecrets } from "../safety/redact.ts";
import { readVaultConfig } from "../vault/config.ts";
import { isInside, isReallyInside, makeDirs, writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultHandle } from "../vault-handles.ts";
import { bundleIndexes, type IndexedConcept } from "./okf-bundle-index.ts";
import {
  checkDestination,
  EXPORT_MANIFEST,
  newManifest,
  readManifest,
  sha256,
} from "./okf-export-manifest.ts";
import { conceptPathProblem, isReservedConceptPath } from "./okf-paths.ts";
import { scanBundle } from "./okf-scan.ts";

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

function refused(code: string, message: string, path?: string): OkfExportResult {
  return {
    ok: false,
    pages: [],
    indexes: [],
    raw: [],
    removed: [],
    replacedPrevious: false,
    diagnostics: [diagnostic(code, "error", message, path ? { path } : {})],
  };
}

/** Exports the vault of `handle` to `input.dir` (already resolved against the caller's cwd). */
export function exportOkf(handle: VaultHandle, input: OkfExportInput): OkfExportResult {
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
  const check = exists ? checkDestination(dir, previous) : { empty: true, ours: [], foreign: [] };
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
  const indexes = bundleIndexes(typeof name === "string" ? name : "", concepts);
  for (const [rel, text] of indexes) files.set(rel, Buffer.from(text, "utf8"));

  const raw: string[] = [];
  if (input.withRaw && existsSync(vault.raw)) {
    const scan = scanBundle(vault.raw, {
      markdownOnly: false,
      limits: { maxFiles: 100_000, maxFileBytes: MAX_RAW_FILE_BYTES, maxTotalBytes: 8 * 1024 ** 3 },
    });
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
  for (const [rel, bytes] of files) hashes[rel] = sha256(bytes);
  const removed = check.ours.filter((rel) => !files.has(rel));
  try {
    makeDirs(dir);
    // Listed before it is written, so an export cut short is still recognised as ours.
    // Below the destination nothing is written through a link (a folder of a
    // previous export replaced by one would send pages where it points).
    writeFileAtomic(
      join(dir, EXPORT_MANIFEST),
      `${JSON.stringify(newManifest(previous?.files ?? {}, hashes), null, 2)}\n`,
      dir,
    );
    for (const [rel, bytes] of files) {
      const abs = join(dir, rel);
      if (!isInside(dir, abs)) throw new Error(`${rel} escapes the destination`);
      writeFileAtomic(abs, bytes, dir);
    }
    for (const rel of removed) {
      rmSync(join(dir, rel), { force: true });
      removeEmptyParents(dir, dirname(join(dir, rel)));
    }
    writeFileAtomic(
      join(dir, EXPORT_MANIFEST),
      `${JSON.stringify(newManifest(hashes), null, 2)}\n`,
      dir,
    );
  } catch (error) {
    return {
      ...refused(
        "okf_export_write_failed",
        `${dir}: the export could not be written (${errorMessage(error)}); run it again`,
      ),
      dir,
    };
  }
  const pages = concepts.map((c) => c.rel);
  return {
    ok: true,
    dir,
    pages,
    indexes: [...indexes.keys()].sort(),
    raw,
    removed,
    replacedPrevious: previous !== undefined && !check.empty,
    diagnostics,
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
