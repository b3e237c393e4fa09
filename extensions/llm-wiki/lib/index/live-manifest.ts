/**
 * The live generation's manifest as one process keeps it: read once and
 * then held while its files are unchanged (at 100k pages it is megabytes of
 * JSON, and every change and status needs it), with its mark (counts and
 * set mark, see mirror.ts) kept by difference as changes land, and the
 * registry revision the mirror was last brought to here. While that holds,
 * a registry whose delta starts there differs from the mirror only in the
 * delta's pages: plans and pending counts cost the change, not the vault.
 */
import { statSync } from "node:fs";
import type { Registry } from "../vault/registry.ts";
import type { KnownCounts } from "./index-state.ts";
import { pendingOf } from "./index-state.ts";
import type { GenerationPaths } from "./layout.ts";
import {
  type Manifest,
  type ManifestMark,
  type MirrorPlan,
  manifestMarkOf,
  manifestStamp,
  patchManifestMark,
  planMirror,
  planMirrorOf,
  readManifest,
  readManifestMark,
  recordManifestChange,
  writeManifest,
  writeManifestMark,
} from "./mirror.ts";

export interface LiveManifest {
  /** The generation's manifest, from memory while its files are as read or written here. */
  of(gen: GenerationPaths): Manifest | undefined;
  /** The mark of `manifest` when it is the one held (counts without a pass over it). */
  markOf(manifest: Manifest): ManifestMark | undefined;
  /** Writes a generation's whole manifest and holds it. */
  save(gen: GenerationPaths, manifest: Manifest): void;
  /**
   * Records a change of the pages `ids` (their entries before, `part`, and
   * after, `next`) in the held `manifest`, in place, its mark moved by
   * difference. Forgets the synced revision until `synced` is called again.
   */
  update(
    gen: GenerationPaths,
    manifest: Manifest,
    part: Manifest,
    next: Manifest,
    ids: readonly string[],
  ): void;
  /**
   * The mirror of the held manifest now holds exactly `registry`'s pages
   * (undefined: not known, e.g. a page was skipped).
   */
  synced(registry: Registry | undefined): void;
  /** The plan that brings `manifest` to `registry`, from the changed pages alone when known. */
  plan(registry: Registry, manifest: Manifest): MirrorPlan;
  /** For `readIndexStatus`: the held counts, and what is pending when the changed pages are known. */
  readonly known: KnownCounts;
}

/**
 * A file's `mtimeMs:size`, "none" when absent: the stamp a held manifest,
 * and the last indexed generation's mark, are checked against.
 */
export function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return "none";
  }
}

/** A process's hold on a vault's live manifest (nothing is read until asked). */
export function liveManifest(): LiveManifest {
  let held: { path: string; stamp: string; manifest: Manifest; mark: ManifestMark } | undefined;
  let synced: { revision: object; manifest: Manifest } | undefined;
  const stampOf = (gen: GenerationPaths) =>
    `${fileStamp(gen.manifest)}|${fileStamp(gen.manifestLog)}`;
  const hold = (gen: GenerationPaths, manifest: Manifest, mark: ManifestMark, stamp?: string) => {
    held = { path: gen.manifest, stamp: stamp ?? stampOf(gen), manifest, mark };
  };

  /** Where `registry` may differ from `manifest`; undefined when every page must be compared. */
  const differing = (registry: Registry, manifest: Manifest): ReadonlySet<string> | undefined => {
    if (synced?.manifest !== manifest || held?.manifest !== manifest) return undefined;
    if (registry.revision === synced.revision) return new Set();
    return registry.delta?.from === synced.revision ? registry.delta.ids : undefined;
  };

  return {
    of(gen) {
      const stamp = stampOf(gen);
      if (held?.path === gen.manifest && held.stamp === stamp) return held.manifest;
      const marked = manifestStamp(gen);
      const manifest = readManifest(gen);
      if (!manifest) {
        held = undefined;
        return undefined;
      }
      // Each manifest read leaves its mark beside it, so a fresh process can
      // check the index without reading it; a mark on disk counts only if the
      // files did not move while they were read.
      const onDisk = manifestStamp(gen) === marked ? readManifestMark(gen) : undefined;
      const mark = onDisk ?? manifestMarkOf(manifest);
      hold(gen, manifest, mark, stamp);
      if (!onDisk) writeManifestMark(gen, manifest, marked, mark);
      return manifest;
    },

    markOf: (manifest) => (held?.manifest === manifest ? held.mark : undefined),

    save(gen, manifest) {
      writeManifest(gen, manifest);
      const mark = manifestMarkOf(manifest);
      hold(gen, manifest, mark);
      writeManifestMark(gen, manifest, manifestStamp(gen), mark);
    },

    update(gen, manifest, part, next, ids) {
      const kept = held?.manifest === manifest ? held.mark : undefined;
      const mark = kept ? patchManifestMark(kept, part, next, ids) : undefined;
      // Changed in place: until written, the copy in memory is not the files'.
      held = undefined;
      synced = undefined;
      recordManifestChange(gen, manifest, next, ids);
      const done = mark ?? manifestMarkOf(manifest);
      hold(gen, manifest, done);
      writeManifestMark(gen, manifest, manifestStamp(gen), done);
    },

    synced(registry) {
      synced =
        registry && held ? { revision: registry.revision, manifest: held.manifest } : undefined;
    },

    plan(registry, manifest) {
      const ids = differing(registry, manifest);
      return ids ? planMirrorOf(registry, manifest, ids) : planMirror(registry, manifest);
    },

    known: (_gen, manifest, registry) => {
      const ids = differing(registry, manifest);
      const mark = held?.manifest === manifest ? held.mark : undefined;
      if (!ids || !mark) return undefined;
      const { documents, canonical, evidence } = mark;
      const pending = pendingOf(planMirrorOf(registry, manifest, ids), registry);
      return { documents, canonical, evidence, pending };
    },
  };
}
