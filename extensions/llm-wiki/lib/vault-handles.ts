/**
 * Per-vault state a host process keeps between calls: the registry (refreshed
 * on demand, not per recall) and the index handle with its open store. One
 * set per service instance; closed when the host shuts down.
 */
import { type ModelAvailability, modelAvailability, type ResolvedModels } from "./index/models.ts";
import { openVaultIndex, type VaultIndex } from "./index/qmd-indexing.ts";
import { readVaultConfig } from "./vault/config.ts";
import type { VaultPaths } from "./vault/paths.ts";
import { type Registry, refreshRegistry } from "./vault/registry.ts";

export interface VaultHandle {
  readonly paths: VaultPaths;
  readonly index: VaultIndex;
  /**
   * The registry, refreshed from disk (incremental: unchanged pages are not
   * re-read). With `changed`, only those files are looked at while the
   * registry in hand is current (see `RefreshOptions`).
   */
  refresh(changed?: readonly string[]): Registry;
  /**
   * The last refreshed registry; refreshed first when there is none yet or it
   * is older than `maxAgeMs` (default: never refresh a registry in hand).
   */
  registry(maxAgeMs?: number): Registry;
  /**
   * What the vault is about (`topic` and `mode` of its config, ≤ 256 chars),
   * steering QMD's reranking. Read with the registry, not on every recall.
   */
  intent(): string;
}

export interface VaultHandles {
  get(paths: VaultPaths): VaultHandle;
  readonly models: ResolvedModels;
  /** Model availability, checked once per handle set (file checks only). */
  availability(): ModelAvailability;
  closeAll(): Promise<void>;
}

export function createVaultHandles(models: ResolvedModels): VaultHandles {
  const handles = new Map<string, VaultHandle>();
  let availability: ModelAvailability | undefined;
  return {
    models,
    availability() {
      availability ??= modelAvailability(models);
      return availability;
    },
    get(paths) {
      const existing = handles.get(paths.dir);
      if (existing) return existing;
      let registry: Registry | undefined;
      let refreshedAt = 0;
      let intent: string | undefined;
      const handle: VaultHandle = {
        paths,
        index: openVaultIndex(paths, { models }),
        refresh(changed) {
          registry = refreshRegistry(paths, registry, changed ? { changed } : {});
          refreshedAt = performance.now();
          intent = undefined;
          return registry;
        },
        intent() {
          if (intent === undefined) {
            const { config } = readVaultConfig(paths);
            intent = [config.topic, config.mode].filter(Boolean).join(" ").slice(0, 256);
          }
          return intent;
        },
        registry(maxAgeMs = Number.POSITIVE_INFINITY) {
          if (registry && performance.now() - refreshedAt <= maxAgeMs) return registry;
          return handle.refresh();
        },
      };
      handles.set(paths.dir, handle);
      return handle;
    },
    async closeAll() {
      const all = [...handles.values()];
      handles.clear();
      await Promise.all(all.map((h) => h.index.close()));
    },
  };
}
