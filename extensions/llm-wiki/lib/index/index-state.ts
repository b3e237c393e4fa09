/**
 * The index's status ladder, read from small files only (never by opening a
 * store): `missing | ready | stale | recovering | error`, with counts and the
 * exact repair command. A process holding the registry's summary can read
 * it from the manifest's mark alone (`readIndexStatusByMark`).
 */
import { existsSync, readFileSync } from "node:fs";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { writeFileAtomic } from "../vault/fs-safe.ts";
import type { Registry } from "../vault/registry.ts";
import {
  type GenerationPaths,
  generationPaths,
  type IndexLayout,
  readCurrent,
  usable,
} from "./layout.ts";
import {
  formatOf,
  INDEX_FORMAT,
  type Manifest,
  type MirrorPlan,
  planMirror,
  readManifest,
  readManifestMark,
} from "./mirror.ts";

export type IndexState = "missing" | "ready" | "stale" | "recovering" | "error";

/** What `state.json` remembers between processes: the outcome of the last run. */
export interface IndexStateFile {
  lastBuiltAt?: string;
  lastError?: string;
  lastErrorAt?: string;
}

/**
 * What one generation's store holds (`store.json` in the generation). Kept
 * with the generation, not in `state.json`, so a rebuild that dies before its
 * swap cannot make the live generation report another one's counts.
 */
export interface GenerationStoreStatus {
  documents: number;
  needsEmbedding: number;
  hasVectors: boolean;
  vectorModel?: string;
}

export interface IndexStatus {
  state: IndexState;
  generation?: string;
  documents: number;
  canonical: number;
  evidence: number;
  /** Pages added, changed or removed since the index was last updated. */
  pending: number;
  needsEmbedding: number;
  vectors: { present: boolean; model?: string };
  lastBuiltAt?: string;
  lastError?: string;
  repair?: string;
  diagnostics: Diagnostic[];
}

export function readStateFile(layout: IndexLayout): IndexStateFile {
  try {
    return JSON.parse(readFileSync(layout.state, "utf8")) as IndexStateFile;
  } catch {
    return {};
  }
}

export function updateStateFile(
  layout: IndexLayout,
  patch: Partial<IndexStateFile>,
): IndexStateFile {
  const next = { ...readStateFile(layout), ...patch };
  for (const key of Object.keys(next) as Array<keyof IndexStateFile>) {
    if (next[key] === undefined) delete next[key];
  }
  writeFileAtomic(layout.state, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

/** A generation's store status; undefined when absent or unreadable. */
export function readStoreStatus(gen: GenerationPaths): GenerationStoreStatus | undefined {
  try {
    const data = JSON.parse(readFileSync(gen.store, "utf8")) as GenerationStoreStatus;
    return typeof data.documents === "number" ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a generation's store status (atomically: readers see the old or the new one). */
export function writeStoreStatus(gen: GenerationPaths, status: GenerationStoreStatus): void {
  writeFileAtomic(gen.store, `${JSON.stringify(status, null, 2)}\n`);
}

function vectorsOf(store: GenerationStoreStatus | undefined): IndexStatus["vectors"] {
  const present = store?.hasVectors === true;
  return store?.vectorModel ? { present, model: store.vectorModel } : { present };
}

type LiveCounts = Pick<
  IndexStatus,
  "generation" | "documents" | "canonical" | "evidence" | "pending" | "needsEmbedding" | "vectors"
>;

/**
 * What a process that keeps the live manifest knows of it without a pass
 * over its entries: its counts (kept by difference) and the pages pending
 * against a registry. Undefined: count from the manifest.
 */
export type KnownCounts = (
  gen: GenerationPaths,
  manifest: Manifest,
  registry: Registry,
) => Pick<LiveCounts, "documents" | "canonical" | "evidence" | "pending"> | undefined;

/** The pages a plan adds, changes or removes (a page moving role counts once). */
export function pendingOf(plan: MirrorPlan, registry: Registry): number {
  return plan.write.length + plan.remove.filter((r) => !registry.pages.has(r.id)).length;
}

/** Counts of a usable live generation against the registry. */
function countsOf(
  gen: GenerationPaths,
  manifest: Manifest,
  registry: Registry,
  known?: KnownCounts,
): LiveCounts {
  const store = readStoreStatus(gen);
  const kept = known?.(gen, manifest, registry);
  const live = { generation: gen.name, needsEmbedding: store?.needsEmbedding ?? 0 };
  if (kept) return { ...live, ...kept, vectors: vectorsOf(store) };
  const entries = Object.values(manifest.entries);
  return {
    ...live,
    documents: entries.length,
    canonical: entries.filter((e) => e.role === "canonical").length,
    evidence: entries.filter((e) => e.role === "evidence").length,
    pending: pendingOf(planMirror(registry, manifest), registry),
    vectors: vectorsOf(store),
  };
}

/**
 * Reads the status of a vault's index against its current registry.
 * `manifestOf` lets a process that keeps the live manifest in memory skip
 * re-reading it, and `known` counting it.
 */
export function readIndexStatus(
  layout: IndexLayout,
  registry: Registry,
  manifestOf: (gen: GenerationPaths) => Manifest | undefined = readManifest,
  known?: KnownCounts,
): IndexStatus {
  const state = readStateFile(layout);
  const base = baseStatus(state, registry.pages.size);
  const current = readCurrent(layout);
  const gen = current === undefined ? undefined : generationPaths(layout, current);
  const manifest = gen && usable(gen) ? manifestOf(gen) : undefined;
  if (existsSync(layout.journal)) {
    // The live generation still answers meanwhile: report what it holds.
    return {
      ...base,
      ...(gen && manifest ? countsOf(gen, manifest, registry, known) : {}),
      state: "recovering",
      repair: "llm-wiki reindex",
      diagnostics: [
        diagnostic(
          "index_recovering",
          "warning",
          "an index swap was interrupted; the next index operation completes it",
          {
            repair: "llm-wiki reindex",
          },
        ),
      ],
    };
  }
  if (current === undefined || gen === undefined) {
    return {
      ...base,
      repair: "llm-wiki reindex",
      diagnostics: [
        diagnostic("index_missing", "warning", "this vault has no search index yet", {
          repair: "llm-wiki reindex",
        }),
      ],
    };
  }
  if (manifest === undefined) {
    return {
      ...base,
      state: "error",
      generation: current,
      repair: "llm-wiki reindex --force",
      diagnostics: [
        diagnostic(
          "index_invalid",
          "error",
          `the index generation ${current} is incomplete or unreadable`,
          {
            repair: "llm-wiki reindex --force",
          },
        ),
      ],
    };
  }
  const counts = countsOf(gen, manifest, registry, known);
  if (formatOf(manifest) !== INDEX_FORMAT) return outdatedStatus(base, counts, registry);
  return liveStatus(base, counts, state);
}

/**
 * A live generation of an older INDEX_FORMAT: it still answers, and the next
 * index update rebuilds it, every page rewritten (so a hook that weighs the
 * work sees a rebuild's, not nothing).
 */
function outdatedStatus(base: IndexStatus, counts: LiveCounts, registry: Registry): IndexStatus {
  return {
    ...base,
    ...counts,
    pending: registry.pages.size,
    state: "stale",
    repair: "llm-wiki reindex",
    diagnostics: [
      diagnostic(
        "index_outdated",
        "warning",
        "the index was built by an earlier version in an older format; the next index update rebuilds it (the old index answers meanwhile)",
        { repair: "llm-wiki reindex" },
      ),
    ],
  };
}

/**
 * The status `readIndexStatus` gives for a registry whose summary holds
 * `pages` pages and the index mark `mark`, read without the manifest: from
 * the live generation's manifest mark, when it is current and equal (the
 * mirror then holds exactly the registry's pages, nothing is pending).
 * Undefined otherwise (a swap in progress, no live generation, no or another
 * mark): read the status with the registry then.
 */
export function readIndexStatusByMark(
  layout: IndexLayout,
  summary: { pages: number; index: string },
): IndexStatus | undefined {
  if (existsSync(layout.journal)) return undefined;
  const current = readCurrent(layout);
  if (current === undefined) return undefined;
  const gen = generationPaths(layout, current);
  if (!usable(gen)) return undefined;
  const mark = readManifestMark(gen);
  if (mark?.mark !== summary.index || mark.format !== INDEX_FORMAT) return undefined;
  const state = readStateFile(layout);
  const store = readStoreStatus(gen);
  const counts: LiveCounts = {
    generation: gen.name,
    documents: mark.documents,
    canonical: mark.canonical,
    evidence: mark.evidence,
    pending: 0,
    needsEmbedding: store?.needsEmbedding ?? 0,
    vectors: vectorsOf(store),
  };
  return liveStatus(baseStatus(state, summary.pages), counts, state);
}

function baseStatus(state: IndexStateFile, pages: number): IndexStatus {
  const base: IndexStatus = {
    state: "missing",
    documents: 0,
    canonical: 0,
    evidence: 0,
    pending: pages,
    needsEmbedding: 0,
    vectors: { present: false },
    diagnostics: [],
  };
  if (state.lastBuiltAt) base.lastBuiltAt = state.lastBuiltAt;
  if (state.lastError) base.lastError = state.lastError;
  return base;
}

/** A usable live generation's status: ready, or stale when pages are pending or the last update failed. */
function liveStatus(base: IndexStatus, counts: LiveCounts, state: IndexStateFile): IndexStatus {
  const failedSince =
    state.lastError !== undefined &&
    (state.lastBuiltAt === undefined || (state.lastErrorAt ?? "") > state.lastBuiltAt);
  const status: IndexStatus = {
    ...base,
    ...counts,
    state: counts.pending > 0 || failedSince ? "stale" : "ready",
  };
  if (status.state === "stale") {
    status.repair = "llm-wiki reindex";
    status.diagnostics.push(
      diagnostic(
        "index_stale",
        "warning",
        failedSince
          ? `the last index update failed (${state.lastError}); searches use the previous index`
          : `${counts.pending} page(s) changed since the index was last updated`,
        { repair: "llm-wiki reindex" },
      ),
    );
  }
  return status;
}
