/**
 * Staleness by code and commit linkage for pages, cached per commit in
 * `meta/cache/code-refs.json`. What git says is keyed by HEAD (read from
 * `.git` files, no process): while HEAD is unchanged no git runs at all;
 * after it moves, one `git log` for the commit links, one per 200 named
 * paths and one `git grep` per 500 symbol terms, the first time a page
 * needs them (symbol-state.ts says what else symbols may cost). What each
 * page names is keyed by the page's hash and survives HEAD changes. The work tree is looked at with
 * a stat (and a read of the file, to count its lines) per named path of the
 * pages asked about. Outside a repository nothing is stale by code and
 * nothing runs. The file is derived: deleting it loses nothing.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { vaultArea, writeFileAtomic } from "../vault/fs-safe.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { extractCodeRefs } from "./extract.ts";
import { type CommitRef, commitLinks, type PathTouch, pathHistory } from "./git-history.ts";
import { type GitRunner, runGit } from "./git-run.ts";
import { findRepo } from "./git-state.ts";
import { pageAnchor, type StaleRef, staleRef, type WorkTreeEntry } from "./stale-refs.ts";
import {
  emptySymbolCache,
  type SymbolCache,
  type SymbolPage,
  staleSymbols,
} from "./symbol-state.ts";

const CACHE_VERSION = 2;
/** Files above this are not read to count lines: any change then counts by the line floor. */
const MAX_COUNTED_BYTES = 4 * 1024 * 1024;

/** What one page names, by the page's hash. */
interface PageEntry {
  hash: string;
  paths: string[];
  symbols: string[];
  verified?: string;
  updated?: string;
  created?: string;
}

interface CacheFile {
  version: number;
  /** The HEAD `paths` and `links` were computed at. */
  head?: string;
  paths: Record<string, PathTouch[]>;
  /** Page id → newest commit naming it; undefined until computed for `head`. */
  links?: Record<string, CommitRef>;
  pages: Record<string, PageEntry>;
  symbols: SymbolCache;
}

/** A page as the caller knows it. */
export interface PageRef {
  id: string;
  /** Vault-relative path (`wiki/concepts/x.md`). */
  path: string;
  /** sha256 of the page's bytes, as the registry has it. */
  hash?: string;
}

/** What the repository says about one page. */
export interface PageCodeState {
  /** Every named path that makes the page stale, in path order, then every gone symbol. */
  stale: StaleRef[];
  /** The newest commit whose message names the page. */
  lastCommit?: CommitRef;
}

/** Options for tests: another git, another clock. */
export interface CodeStateOptions {
  run?: GitRunner;
  now?: number;
}

const EMPTY: PageCodeState = { stale: [] };

function emptyCache(): CacheFile {
  return { version: CACHE_VERSION, paths: {}, pages: {}, symbols: emptySymbolCache() };
}

function cachePath(vault: VaultPaths): string {
  return join(vault.meta, "cache", "code-refs.json");
}

function loadCache(vault: VaultPaths): CacheFile {
  try {
    const data = JSON.parse(readFileSync(cachePath(vault), "utf8")) as Partial<CacheFile>;
    if (data.version !== CACHE_VERSION || typeof data.paths !== "object" || !data.paths)
      return emptyCache();
    return {
      version: CACHE_VERSION,
      ...(typeof data.head === "string" ? { head: data.head } : {}),
      paths: data.paths,
      ...(data.links && typeof data.links === "object" ? { links: data.links } : {}),
      pages: data.pages && typeof data.pages === "object" ? data.pages : {},
      symbols: loadSymbols(data.symbols),
    };
  } catch {
    return emptyCache();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The symbol part as read back; anything malformed is asked again. */
function loadSymbols(value: unknown): SymbolCache {
  if (!isRecord(value) || !isRecord(value.headTerms) || !isRecord(value.at))
    return emptySymbolCache();
  const out = emptySymbolCache(value.at as SymbolCache["at"]);
  out.headTerms = value.headTerms as SymbolCache["headTerms"];
  const t = value.timeline;
  if (isRecord(t) && Array.isArray(t.commits) && typeof t.complete === "boolean") {
    const commits = (t.commits as unknown[]).filter(
      (c): c is [string, number] =>
        Array.isArray(c) && typeof c[0] === "string" && typeof c[1] === "number",
    );
    out.timeline = { commits, complete: t.complete };
  }
  return out;
}

function saveCache(vault: VaultPaths, cache: CacheFile): void {
  try {
    writeFileAtomic(cachePath(vault), JSON.stringify(cache), vaultArea(vault));
  } catch {
    // A vault this user may not write: the answer stands, only the cache is lost.
  }
}

function dateText(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return undefined;
}

/** Reads one page and what it names; undefined when it cannot be read or parsed. */
function readPageEntry(vault: VaultPaths, repoRoot: string, page: PageRef): PageEntry | undefined {
  const abs = join(vault.dir, page.path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch {
    return undefined;
  }
  const parsed = parsePage(page.id, page.path, bytes);
  if (!parsed.ok) return undefined;
  const pageDir = relative(repoRoot, dirname(abs)).split(sep).join("/");
  const refs = extractCodeRefs(parsed.page.body, pageDir.startsWith("..") ? undefined : pageDir);
  const entry: PageEntry = { hash: parsed.page.hash, ...refs };
  const verified = dateText(parsed.page.frontmatter.verified);
  if (verified) entry.verified = verified;
  if (parsed.page.updated) entry.updated = parsed.page.updated;
  if (parsed.page.created) entry.created = parsed.page.created;
  return entry;
}

function workTree(root: string, path: string): WorkTreeEntry {
  try {
    const st = statSync(join(root, path));
    if (st.isDirectory()) return { exists: true, directory: true };
    if (st.size > MAX_COUNTED_BYTES) return { exists: true, directory: false };
    const bytes = readFileSync(join(root, path));
    if (bytes.subarray(0, 8192).includes(0)) return { exists: true, directory: false };
    const text = bytes.toString("utf8");
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return { exists: true, directory: false, lines };
  } catch {
    return { exists: false, directory: false };
  }
}

interface Memo {
  cache: CacheFile;
}

/** One memo per vault and service: the cache file is read once per process. */
const memos = new WeakMap<object, Map<string, Memo>>();

/**
 * What the repository says about `pages` of `vault`. `owner` scopes the
 * in-memory copy of the cache (a service's handles). Never throws; a git
 * failure leaves the pages it concerns current.
 */
export function codeStates(
  owner: object,
  vault: VaultPaths,
  pages: readonly PageRef[],
  options: CodeStateOptions = {},
): Map<string, PageCodeState> {
  const out = new Map<string, PageCodeState>();
  const repo = findRepo(vault.root);
  if (!repo?.head) {
    for (const p of pages) out.set(p.id, EMPTY);
    return out;
  }
  const run = options.run ?? runGit;
  const now = options.now ?? Date.now();
  let byVault = memos.get(owner);
  if (!byVault) {
    byVault = new Map();
    memos.set(owner, byVault);
  }
  let memo = byVault.get(vault.dir);
  if (!memo) {
    memo = { cache: loadCache(vault) };
    byVault.set(vault.dir, memo);
  }
  const cache = memo.cache;
  let dirty = false;
  if (cache.head !== repo.head) {
    cache.head = repo.head;
    cache.paths = {};
    delete cache.links;
    // What older commits contained still holds; what HEAD contains is asked again.
    cache.symbols = emptySymbolCache(cache.symbols.at);
    dirty = true;
  }
  const entries = new Map<string, PageEntry>();
  for (const page of pages) {
    let entry = cache.pages[page.id];
    if (!entry || page.hash === undefined || entry.hash !== page.hash) {
      const read = readPageEntry(vault, repo.root, page);
      if (!read) continue;
      if (!entry || entry.hash !== read.hash || JSON.stringify(entry) !== JSON.stringify(read)) {
        cache.pages[page.id] = read;
        dirty = true;
      }
      entry = read;
    }
    entries.set(page.id, entry);
  }
  const missing = new Set<string>();
  for (const e of entries.values())
    for (const p of e.paths) if (!(p in cache.paths)) missing.add(p);
  if (missing.size > 0) {
    const history = pathHistory(run, repo.root, repo.head, [...missing].sort());
    if (history) {
      for (const [p, touches] of history) cache.paths[p] = touches;
      dirty = true;
    }
  }
  if (cache.links === undefined) {
    const links = commitLinks(run, repo.root, repo.head);
    if (links) {
      cache.links = Object.fromEntries(links);
      dirty = true;
    }
  }
  const symbolPages = new Map<string, SymbolPage>();
  for (const [id, e] of entries)
    if (Array.isArray(e.symbols) && e.symbols.length > 0)
      symbolPages.set(id, { symbols: e.symbols, anchor: pageAnchor(e) });
  const vaultRel = relative(repo.root, vault.dir).split(sep).join("/");
  const symbols = staleSymbols(
    cache.symbols,
    {
      run,
      root: repo.root,
      head: repo.head,
      ...(vaultRel && !vaultRel.startsWith("..") && !isAbsolute(vaultRel)
        ? { excluded: vaultRel }
        : {}),
    },
    symbolPages,
  );
  if (symbols.dirty) dirty = true;
  if (dirty) saveCache(vault, cache);
  const trees = new Map<string, WorkTreeEntry>();
  for (const page of pages) {
    const entry = entries.get(page.id);
    const state: PageCodeState = { stale: [] };
    const linked = cache.links?.[page.id];
    if (linked) state.lastCommit = linked;
    if (entry) {
      const anchor = pageAnchor(entry);
      for (const p of entry.paths) {
        const touches = cache.paths[p];
        if (!touches || touches.length === 0) continue;
        let tree = trees.get(p);
        if (!tree) {
          tree = workTree(repo.root, p);
          trees.set(p, tree);
        }
        const stale = staleRef(p, touches, tree, anchor, now);
        if (stale) state.stale.push(stale);
      }
      state.stale.push(...(symbols.stale.get(page.id) ?? []));
    }
    out.set(page.id, state);
  }
  return out;
}

/** Forgets the in-memory copy (after a write to a page the caller knows of). */
export function forgetCodeStates(owner: object, vault: VaultPaths): void {
  memos.get(owner)?.delete(vault.dir);
}

/**
 * The newest commit whose message names one of `ids` (a vault's pages),
 * with the page: for `status`. One `git log` per HEAD, shared with recall.
 */
export function lastLinkedCommit(
  owner: object,
  vault: VaultPaths,
  ids: Iterable<string>,
  options: CodeStateOptions = {},
): { page: string; commit: CommitRef } | undefined {
  const repo = findRepo(vault.root);
  if (!repo?.head) return undefined;
  // No page: only brings the cache to this HEAD and its commit links.
  codeStates(owner, vault, [], options);
  const links = memos.get(owner)?.get(vault.dir)?.cache.links;
  if (!links) return undefined;
  let best: { page: string; commit: CommitRef } | undefined;
  for (const id of ids) {
    const c = links[id];
    if (c && (!best || c.time > best.commit.time)) best = { page: id, commit: c };
  }
  return best;
}
