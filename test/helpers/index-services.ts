/**
 * Shared setup of the service tests: services in a temp folder with a home
 * that holds no personal vault (closed after each test), the index status they
 * report, and the environment of a child process that must see the test's
 * caches and models but no real home.
 */
import type { IndexStatus } from "../../extensions/llm-wiki/lib/index/index-state.ts";
import type { WikiSettings } from "../../extensions/llm-wiki/lib/settings.ts";
import type { ViewsFollowOptions } from "../../extensions/llm-wiki/lib/views/views-follow.ts";
import { createWikiService, type WikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";
import { codeCacheEnv } from "./code-cache-env.ts";
import { makeTempDir } from "./temp-vault.ts";

const services: WikiService[] = [];

export interface ServiceOptions {
  /** The home folder, also the personal vault's root (default: a fresh empty folder). */
  home?: string;
  /** The vault, as `--vault` names it (default: `cwd`, unless `discover`). */
  vault?: string;
  /** Find the vault from `cwd` and the home folder, as a host does, instead of naming one. */
  discover?: boolean;
  /** The host's settings (default: the defaults). */
  settings?: WikiSettings;
  /** How the views follow writes (default: as in a host). */
  views?: ViewsFollowOptions;
}

/**
 * A service working in `cwd` and bound to the vault there (or as `options`
 * say), seeing the test's caches and models; closed by `closeServices`.
 */
export function serviceFor(cwd: string, options: ServiceOptions = {}): WikiService {
  const home = options.home ?? makeTempDir("llm-wiki-home-");
  const vault = options.vault ?? (options.discover ? undefined : cwd);
  const service = createWikiService({
    cwd,
    env: { ...process.env, HOME: home, WIKI_HOME: home },
    ...(vault !== undefined ? { vault } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.views ? { views: options.views } : {}),
  });
  services.push(service);
  return service;
}

/** Closes every service made by `serviceFor` since the last call (call it in `afterEach`). */
export async function closeServices(): Promise<void> {
  await Promise.all(services.splice(0).map((s) => s.close()));
}

/** The index status a service reports for its vault. */
export function indexStatus(service: WikiService): IndexStatus {
  const index = service.status().vault?.index;
  if (!index) throw new Error("status reported no vault");
  return index;
}

/**
 * Environment of a child: the test's caches and models, no real home, no
 * warm hook process (it would outlive the spec), plus `extra`. The models
 * run as in the test's own process: without `QMD_EMBED_PARALLELISM` a child
 * embeds and reranks in one context of two threads, which on two busy cores
 * took 2.4 times as long per text as each of two one-thread contexts.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    ...codeCacheEnv(),
    HOME: makeTempDir("llm-wiki-home-"),
    LLM_WIKI_HOOK_SERVER: "off",
  };
  for (const key of [
    "XDG_CACHE_HOME",
    "QMD_EMBED_MODEL",
    "QMD_RERANK_MODEL",
    "QMD_GENERATE_MODEL",
    "QMD_EMBED_PARALLELISM",
  ]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}
