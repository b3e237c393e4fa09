/**
 * `rebuildMeta`: regenerates every readable view a vault derives from its
 * pages and its event log — `meta/index.md`, `meta/log.md`,
 * `meta/lint-report.md`, and in OKF mode `wiki/index.md` (plus an
 * `index.md` per page folder) and `wiki/log.md` — and brings the search
 * index up to date with the pages first. Views are computed in memory,
 * redacted, and each written atomically only when its bytes changed; the
 * same vault gives the same bytes every time. Pages, `raw/` and
 * `meta/events.jsonl` are only read.
 */
import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { lintWork } from "../lint/lint.ts";
import { countTotal, type Redacted, redactSecrets } from "../safety/redact.ts";
import { isCancelled, runSliced, runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { readVaultConfig } from "../vault/config.ts";
import { readFrontmatter } from "../vault/frontmatter.ts";
import { isReallyInside, makeDirs, vaultArea, writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultKind, VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactionsField, sumCounts } from "../vault/redaction.ts";
import type { VaultHandles } from "../vault-handles.ts";
import { renderMetaLog, renderOkfLog } from "./activity-log.ts";
import { type LogRead, readLogEntries, readVaultLogEntries } from "./event-entries.ts";
import { type KnowledgeFormat, knowledgeFormatOf } from "./knowledge-format.ts";
import { renderLintReport } from "./lint-report.ts";
import { renderMetaIndex } from "./meta-index.ts";
import { OKF_VERSION, renderOkfIndexes } from "./okf-index.ts";
import { isSharedView, olderSystemKeepsVault, viewsLeftDiagnostic } from "./older-views.ts";

/** What rebuilding one vault's views did. Paths are relative to the vault's `.llm-wiki/`. */
export interface VaultViewsReport {
  kind: VaultKind;
  /** The knowledge format the views were built for; absent when the config's is unknown. */
  format?: KnowledgeFormat;
  pages: number;
  /** Events shown in the logs (internal ones not counted). */
  events: number;
  /** Views whose bytes changed and were replaced. */
  written: string[];
  /** Views already as generated. */
  unchanged: string[];
  /** Generated folder indexes of folders that no longer hold a page. */
  removed: string[];
  /** True when the search index was brought up to date with the pages. */
  indexed: boolean;
  /** Secrets taken out of the views, by kind; absent when none. */
  redactions?: RedactionCounts;
}

/** The result of `rebuildMeta`, the same in every host. */
export interface RebuildMetaResult {
  ok: boolean;
  vaults: VaultViewsReport[];
  diagnostics: Diagnostic[];
}

export interface ViewsOptions {
  /** The moment lint judges staleness at; default now. */
  now?: Date;
  /**
   * Leave `meta/lint-report.md` as it is: lint judges every page, so a
   * refresh after a write (views-follow.ts) leaves its report to `rebuild-meta`.
   */
  skipLint?: boolean;
  /** Files a write changed: the registry looks at only these (see `RefreshOptions`). */
  changed?: readonly string[];
  /** Reads one file of the event log; default `readLogEntries` (a refresher passes one reading only what was appended). */
  readLog?: (path: string) => LogRead;
  /** Redacts a view's text; default `redactSecrets` (a refresher passes one that remembers the last text of each view). */
  redact?: (rel: string, text: string) => Redacted;
}

/** `rebuildMeta`'s options: a signal that stops it between two slices of its work. */
export interface RebuildOptions extends ViewsOptions {
  signal?: AbortSignal;
}

/** The `okf_version` an existing `wiki/index.md` declares, "" when none, undefined when unreadable. */
function declaredVersion(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "" : undefined;
  }
  try {
    const data = readFrontmatter(text).data;
    if (data === null || typeof data !== "object") return "";
    const version = (data as Record<string, unknown>).okf_version;
    return version === undefined ? "" : String(version);
  } catch {
    return undefined;
  }
}

/** The file's bytes as text when it is a regular file, else undefined. */
function currentText(abs: string): string | undefined {
  try {
    if (!lstatSync(abs).isFile()) return undefined;
    return readFileSync(abs, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * `index.md` files under `wiki/`'s real subfolders (hidden ones and
 * symbolic links skipped), as paths relative to `wiki/`.
 */
function folderIndexes(wiki: string): string[] {
  const out: string[] = [];
  const visit = (abs: string, rel: string, depth: number): void => {
    if (depth > 32) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) visit(join(abs, entry.name), childRel, depth + 1);
      else if (entry.isFile() && entry.name === "index.md" && rel !== "") out.push(childRel);
    }
  };
  visit(wiki, "", 0);
  return out;
}

type ViewsOutcome = { report: VaultViewsReport; diagnostics: Diagnostic[] };

/**
 * Computes and writes one vault's views (no index update). Used by
 * `rebuildMeta` and by bootstrap, so a new vault starts with its views.
 */
export function writeVaultViews(
  handles: VaultHandles,
  vault: VaultPaths,
  options: ViewsOptions = {},
): ViewsOutcome {
  return runWhole((clock) => viewsWork(handles, vault, options, clock));
}

/**
 * `writeVaultViews` as sliced work: its lint yields between pages, and a
 * turn may come between two views (each view is written whole, atomically).
 */
export function* viewsWork(
  handles: VaultHandles,
  vault: VaultPaths,
  options: ViewsOptions,
  clock: SliceClock,
): Sliced<ViewsOutcome> {
  const diagnostics: Diagnostic[] = [];
  const handle = handles.get(vault);
  const registry = handle.refresh(options.changed);
  if (clock.due()) yield;
  const lintInput = options.now ? { now: options.now } : {};
  const lint = options.skipLint
    ? undefined
    : (yield* lintWork(handles, [vault], lintInput, clock)).vaults[0];
  const log = readVaultLogEntries(vault, options.readLog ?? readLogEntries);
  diagnostics.push(...log.diagnostics);
  const { config, diagnostics: configProblems } = readVaultConfig(vault);
  diagnostics.push(...configProblems.filter((d) => d.code !== "config_missing"));
  const resolved = knowledgeFormatOf(config);
  if (resolved.format === undefined) diagnostics.push(resolved.diagnostic);

  // Vault-relative path → content. A missing event log leaves both logs as they are.
  const views = new Map<string, string>();
  views.set("meta/index.md", renderMetaIndex(registry.pages.values()));
  if (log.available) views.set("meta/log.md", renderMetaLog(log.entries, log.internal));
  if (lint !== undefined) views.set("meta/lint-report.md", renderLintReport(lint));

  let okfIndexes: Map<string, string> | undefined;
  if (resolved.format === "okf") {
    const version = declaredVersion(join(vault.wiki, "index.md"));
    if (version === undefined || (version !== "" && version !== OKF_VERSION)) {
      diagnostics.push(
        diagnostic(
          "okf_version_mismatch",
          "error",
          version === undefined
            ? "wiki/index.md cannot be read or its front matter is malformed; it and wiki/log.md were left as they are"
            : `wiki/index.md declares okf_version ${JSON.stringify(version).slice(0, 40)}, not "${OKF_VERSION}"; it and wiki/log.md were left as they are`,
          { path: "wiki/index.md" },
        ),
      );
    } else {
      okfIndexes = renderOkfIndexes(registry.pages.values(), config.name);
      for (const [rel, text] of okfIndexes) views.set(`wiki/${rel}`, text);
      if (log.available) views.set("wiki/log.md", renderOkfLog(log.entries));
    }
  }

  const report: VaultViewsReport = {
    kind: vault.kind,
    ...(resolved.format ? { format: resolved.format } : {}),
    pages: registry.pages.size,
    events: log.available ? log.entries.length : 0,
    written: [],
    unchanged: [],
    removed: [],
    indexed: false,
  };
  let redactions: RedactionCounts = {};
  const older = olderSystemKeepsVault(vault);
  const left: string[] = [];
  for (const [rel, text] of views) {
    if (clock.due()) yield;
    if (older && isSharedView(rel) && existsSync(join(vault.dir, rel))) {
      left.push(rel);
      report.unchanged.push(rel);
      continue;
    }
    // Hand-written pages and events may hold secrets the writers never saw.
    const clean = options.redact ? options.redact(rel, text) : redactSecrets(text);
    redactions = sumCounts(redactions, clean.counts);
    const abs = join(vault.dir, rel);
    // Folders a walk listed pages in exist; only `wiki/` or `meta/` itself may be missing.
    if (!existsSync(dirname(abs))) makeDirs(dirname(abs), vaultArea(vault));
    if (!isReallyInside(vault.dir, dirname(abs))) {
      diagnostics.push(
        diagnostic(
          "view_path_escape",
          "error",
          `${rel}: its folder lies outside the vault; not written`,
          {
            path: rel,
          },
        ),
      );
      continue;
    }
    if (currentText(abs) === clean.text) {
      report.unchanged.push(rel);
      continue;
    }
    try {
      writeFileAtomic(abs, clean.text, vaultArea(vault));
      report.written.push(rel);
    } catch (error) {
      diagnostics.push(
        diagnostic("view_write_failed", "error", `${rel}: ${errorMessage(error)}`, {
          path: rel,
          repair: "llm-wiki rebuild-meta",
        }),
      );
    }
  }
  if (left.length > 0) diagnostics.push(viewsLeftDiagnostic(left));
  // The older system prunes its own folder indexes.
  if (okfIndexes !== undefined && !older) {
    for (const rel of folderIndexes(vault.wiki)) {
      if (okfIndexes.has(rel)) continue;
      try {
        rmSync(join(vault.wiki, rel));
        report.removed.push(`wiki/${rel}`);
      } catch (error) {
        diagnostics.push(
          diagnostic("view_write_failed", "warning", `wiki/${rel}: ${errorMessage(error)}`, {
            path: `wiki/${rel}`,
          }),
        );
      }
    }
  }
  if (countTotal(redactions) > 0) Object.assign(report, redactionsField(redactions));
  return { report, diagnostics };
}

/**
 * Brings each vault's search index up to date with its pages (when it has
 * one: building a whole index is `reindex`'s job), then writes its views.
 * `ok` is false when a view could not be written or the config is invalid.
 */
export async function rebuildMeta(
  handles: VaultHandles,
  vaults: readonly VaultPaths[],
  options: RebuildOptions = {},
): Promise<RebuildMetaResult> {
  const reports: VaultViewsReport[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const vault of vaults) {
    const handle = handles.get(vault);
    let indexed = false;
    try {
      const registry = handle.refresh();
      if (handle.index.status(registry).state !== "missing") {
        const update = await handle.index.reindex(registry, {
          scope: "changed",
          components: ["lexical"],
        });
        const failed = update.diagnostics.find((d) => d.severity === "error");
        if (failed) diagnostics.push({ ...failed, severity: "warning" });
        else indexed = true;
      }
    } catch (error) {
      diagnostics.push(
        diagnostic(
          "index_stale",
          "warning",
          `the search index was not updated: ${errorMessage(error)}`,
          {
            repair: "llm-wiki reindex",
          },
        ),
      );
    }
    let views: ViewsOutcome;
    try {
      views = await runSliced(
        (clock) => viewsWork(handles, vault, options, clock),
        "rebuild-meta",
        options.signal,
      );
    } catch (error) {
      if (!isCancelled(error)) throw error;
      // Views already written are whole; the next rebuild writes the rest.
      diagnostics.push(error.diagnostic);
      break;
    }
    reports.push({ ...views.report, indexed });
    diagnostics.push(...views.diagnostics);
  }
  return {
    ok: diagnostics.every((d) => d.severity !== "error"),
    vaults: reports,
    diagnostics,
  };
}

/** What a host passes: which vault, and the moment lint judges staleness at. */
export interface RebuildMetaInput extends RebuildOptions {
  vault?: "active" | "project" | "personal" | "all";
}

/**
 * `rebuildMeta` over the vaults `resolve` selects (default: the active
 * one); no vault is a failure with `missing()`'s diagnostics.
 */
export function rebuildMetaOperation(
  handles: VaultHandles,
  resolve: (selector: NonNullable<RebuildMetaInput["vault"]>) => VaultPaths[],
  missing: () => Diagnostic[],
  input: RebuildMetaInput = {},
): Promise<RebuildMetaResult> {
  const vaults = resolve(input.vault ?? "active").filter((v) => existsSync(v.dir));
  if (vaults.length === 0) {
    return Promise.resolve({ ok: false, vaults: [], diagnostics: missing() });
  }
  return rebuildMeta(handles, vaults, {
    ...(input.now ? { now: input.now } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
}
