/**
 * Vault discovery and the fixed layout under `<root>/.llm-wiki/`.
 * Project vault: nearest `.llm-wiki/` walking up from the working directory,
 * never the personal vault itself. Personal vault: `$WIKI_HOME/.llm-wiki` or
 * `~/.llm-wiki`.
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { Writer } from "./writer.ts";

export const VAULT_DIR = ".llm-wiki";

/** Page folders of a vault, by the page type they hold. */
export const PAGE_FOLDERS = [
  "entities",
  "concepts",
  "syntheses",
  "analyses",
  "sources",
  "requirements",
  "skills",
  "cases",
] as const;

export type VaultKind = "project" | "personal";

/** Which vault an operation acts on: the active one, one by kind, or both. */
export type VaultSelector = "active" | "project" | "personal" | "all";

/** Absolute paths of one vault's parts. */
export interface VaultPaths {
  /** The folder that holds `.llm-wiki/`. */
  root: string;
  /** `<root>/.llm-wiki`. */
  dir: string;
  config: string;
  wiki: string;
  raw: string;
  meta: string;
  /** The registry's sharded cache folder (`meta/cache/registry/`). */
  registryCache: string;
  /** `meta/registry.json`: earlier versions' single-file cache, or `@zosmaai/pi-llm-wiki`'s registry. */
  legacyRegistry: string;
  backlinks: string;
  events: string;
  qmd: string;
  kind: VaultKind;
  /**
   * Who this process's writes are recorded as (vault/writer.ts), asked only
   * when a write logs an event or creates a page; absent: not recorded.
   */
  writer?: () => Writer;
}

/** Layout of the vault whose `.llm-wiki/` lives in `root`. */
export function vaultPaths(root: string, kind: VaultKind): VaultPaths {
  const dir = join(root, VAULT_DIR);
  const meta = join(dir, "meta");
  return {
    root,
    dir,
    config: join(dir, "config.json"),
    wiki: join(dir, "wiki"),
    raw: join(dir, "raw"),
    meta,
    registryCache: join(meta, "cache", "registry"),
    legacyRegistry: join(meta, "registry.json"),
    backlinks: join(meta, "backlinks.json"),
    events: join(meta, "events.jsonl"),
    qmd: join(meta, "qmd"),
    kind,
  };
}

/** Environment the discovery reads; injectable so tests need no global state. */
export interface DiscoveryEnv {
  WIKI_HOME?: string | undefined;
  HOME?: string | undefined;
}

/** Root of the personal vault (`$WIKI_HOME` or the home folder). */
export function personalRoot(env: DiscoveryEnv = process.env): string {
  if (env.WIKI_HOME && env.WIKI_HOME.trim() !== "") return resolve(env.WIKI_HOME);
  return env.HOME && env.HOME.trim() !== "" ? resolve(env.HOME) : homedir();
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The personal vault, when it exists. */
export function findPersonalVault(env: DiscoveryEnv = process.env): VaultPaths | undefined {
  const root = personalRoot(env);
  return isDir(join(root, VAULT_DIR)) ? vaultPaths(root, "personal") : undefined;
}

/**
 * The nearest project vault at or above `cwd`. The personal vault's folder is
 * skipped, so working anywhere under the home folder does not turn the
 * personal vault into everyone's project vault.
 */
export function findProjectVault(
  cwd: string,
  env: DiscoveryEnv = process.env,
): VaultPaths | undefined {
  const personal = canonical(personalRoot(env));
  let dir = resolve(cwd);
  for (;;) {
    if (isDir(join(dir, VAULT_DIR)) && canonical(dir) !== personal) {
      return vaultPaths(dir, "project");
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Resolves a `--vault DIR` argument: a folder holding `.llm-wiki/`, or the
 * `.llm-wiki` folder itself. Returns undefined when neither exists.
 */
export function vaultFromArg(arg: string, env: DiscoveryEnv = process.env): VaultPaths | undefined {
  const abs = resolve(arg);
  const root = basename(abs) === VAULT_DIR ? dirname(abs) : abs;
  if (!isDir(join(root, VAULT_DIR))) return undefined;
  const kind: VaultKind = canonical(root) === canonical(personalRoot(env)) ? "personal" : "project";
  return vaultPaths(root, kind);
}

/** The root a `--vault DIR` argument names, whether or not a vault exists there yet. */
export function rootFromArg(arg: string): string {
  const abs = resolve(arg);
  return basename(abs) === VAULT_DIR ? dirname(abs) : abs;
}

/** True when a vault's `.llm-wiki/` exists at `paths.dir`. */
export function vaultExists(paths: VaultPaths): boolean {
  return isDir(paths.dir);
}
