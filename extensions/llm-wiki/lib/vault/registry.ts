/**
 * The derived page registry (`meta/registry.json`) and backlinks
 * (`meta/backlinks.json`). Refreshed incrementally: a page whose size and
 * mtime are unchanged is not read, one whose bytes hash the same is not
 * re-parsed. Both files are derived; deleting them loses nothing.
 */
import { type Dirent, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { isInside, writeFileAtomic } from "./fs-safe.ts";
import { extractLinks, LinkResolver, type RawLink } from "./links.ts";
import { hashContent, type PageMeta, pageMeta, parsePage } from "./page.ts";
import type { VaultPaths } from "./paths.ts";

const REGISTRY_VERSION = 1;

/** What the registry remembers about one file under `wiki/`. */
interface RegistryRecord {
  size: number;
  mtimeMs: number;
  hash: string;
  meta?: PageMeta;
  links?: RawLink[];
  diagnostics?: Diagnostic[];
}

export interface RegistryFile {
  version: number;
  /** Keyed by vault-relative path. */
  files: Record<string, RegistryRecord>;
}

/** A link that does not resolve to exactly one page. */
export interface LinkProblem {
  from: string;
  target: string;
  status: "missing" | "ambiguous";
  candidates?: string[];
}

/** The registry in memory. */
export interface Registry {
  /** Accepted pages by id, in id order. */
  pages: Map<string, PageMeta>;
  /** sha256 of each accepted page's bytes, by id. */
  hashes: Map<string, string>;
  /** Outgoing resolved links by page id. */
  links: Map<string, string[]>;
  /** Incoming links by page id. */
  backlinks: Map<string, string[]>;
  linkProblems: LinkProblem[];
  /** Malformed pages and soft page warnings. */
  diagnostics: Diagnostic[];
  stats: { files: number; parsed: number; reread: number; reused: number; removed: number };
  /**
   * What this refresh wrote: passing the registry to the next refresh of the
   * same vault lets it skip re-reading `registry.json` (and re-resolving
   * links) when the file is still the one written here.
   */
  snapshot: RegistrySnapshot;
}

/** The registry file as last written by this process, and its stat then. */
export interface RegistrySnapshot {
  file: RegistryFile;
  size: number;
  mtimeMs: number;
}

interface WikiFile {
  rel: string;
  abs: string;
  size: number;
  mtimeMs: number;
}

function walkWiki(paths: VaultPaths, diagnostics: Diagnostic[]): WikiFile[] {
  const out: WikiFile[] = [];
  let vaultReal: string;
  try {
    vaultReal = realpathSync(paths.dir);
  } catch {
    return out;
  }
  const visit = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const abs = join(dir, entry.name);
      const rel = relative(paths.dir, abs).split(sep).join("/");
      if (entry.name.startsWith(".")) continue;
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(abs);
        } catch {
          diagnostics.push(
            diagnostic("page_broken_symlink", "warning", `${rel}: broken symbolic link`, {
              path: rel,
            }),
          );
          continue;
        }
        if (!isInside(vaultReal, target)) {
          diagnostics.push(
            diagnostic(
              "page_path_escape",
              "error",
              `${rel}: symbolic link points outside the vault`,
              {
                path: rel,
              },
            ),
          );
          continue;
        }
        const st = statSync(target);
        // Linked folders inside the vault would list the same pages twice.
        if (st.isFile() && entry.name.endsWith(".md")) {
          out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
        }
        continue;
      }
      if (entry.isDirectory()) visit(abs);
      else if (entry.isFile() && entry.name.endsWith(".md")) {
        const st = lstatSync(abs);
        out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  visit(paths.wiki);
  // By id, not path: `a.md` sorts after `a-b.md`, yet `a` comes before `a-b`.
  const keyed = out.map((file) => ({ file, id: idOf(file.rel) }));
  keyed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return keyed.map(({ file }) => file);
}

function statOrUndefined(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(path);
    return { size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

function readRegistryFile(paths: VaultPaths): RegistryFile {
  try {
    const data = JSON.parse(readFileSync(paths.registry, "utf8")) as RegistryFile;
    const files: unknown = data?.files;
    if (
      data?.version === REGISTRY_VERSION &&
      typeof files === "object" &&
      files !== null &&
      !Array.isArray(files)
    ) {
      return data;
    }
  } catch {
    // Missing or corrupt: it is derived, so start again.
  }
  return { version: REGISTRY_VERSION, files: {} };
}

function idOf(rel: string): string {
  return rel.replace(/^wiki\//, "").replace(/\.md$/, "");
}

function record(file: WikiFile, bytes: Uint8Array, hash: string): RegistryRecord {
  const id = idOf(file.rel);
  const result = parsePage(id, file.rel, bytes);
  const base = { size: file.size, mtimeMs: file.mtimeMs, hash };
  if (!result.ok) return { ...base, diagnostics: result.diagnostics };
  const rec: RegistryRecord = {
    ...base,
    meta: pageMeta(result.page),
    links: extractLinks(id, result.page.body),
  };
  if (result.diagnostics.length > 0) rec.diagnostics = result.diagnostics;
  return rec;
}

/**
 * Brings the registry up to date with `wiki/` and returns it. Writes the
 * derived files only when they changed; a read-only vault still answers.
 */
export function refreshRegistry(paths: VaultPaths, last?: Registry): Registry {
  const diagnostics: Diagnostic[] = [];
  const onDisk = statOrUndefined(paths.registry);
  // Our own last write still on disk: no need to parse it again.
  const fresh =
    last !== undefined &&
    onDisk !== undefined &&
    onDisk.size === last.snapshot.size &&
    onDisk.mtimeMs === last.snapshot.mtimeMs;
  const previous = fresh ? last.snapshot.file : readRegistryFile(paths);
  const files = walkWiki(paths, diagnostics);
  const next: RegistryFile = { version: REGISTRY_VERSION, files: {} };
  const stats = { files: files.length, parsed: 0, reread: 0, reused: 0, removed: 0 };

  for (const file of files) {
    const prev = previous.files[file.rel];
    if (prev && prev.size === file.size && prev.mtimeMs === file.mtimeMs) {
      next.files[file.rel] = prev;
      stats.reused += 1;
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file.abs);
    } catch (error) {
      diagnostics.push(
        diagnostic("page_unreadable", "error", `${file.rel}: ${errorMessage(error)}`, {
          path: file.rel,
        }),
      );
      continue;
    }
    const hash = hashContent(bytes);
    if (prev && prev.hash === hash) {
      next.files[file.rel] = { ...prev, size: file.size, mtimeMs: file.mtimeMs };
      stats.reread += 1;
      continue;
    }
    next.files[file.rel] = record(file, bytes, hash);
    stats.parsed += 1;
  }
  stats.removed = Object.keys(previous.files).filter((rel) => !(rel in next.files)).length;
  const changed = stats.parsed + stats.reread + stats.removed > 0;
  if (fresh && !changed && last) {
    // Nothing moved since our last refresh: same pages, links and files.
    for (const rec of Object.values(next.files))
      if (rec.diagnostics) diagnostics.push(...rec.diagnostics);
    return { ...last, diagnostics, stats };
  }

  const pages = new Map<string, PageMeta>();
  const hashes = new Map<string, string>();
  const outgoing = new Map<string, RawLink[]>();
  for (const rec of Object.values(next.files)) {
    if (rec.diagnostics) diagnostics.push(...rec.diagnostics);
    if (rec.meta) {
      pages.set(rec.meta.id, rec.meta);
      hashes.set(rec.meta.id, rec.hash);
      outgoing.set(rec.meta.id, rec.links ?? []);
    }
  }
  const { links, backlinks, linkProblems } = resolveAll(pages.keys(), outgoing);

  const registryText = `${JSON.stringify(next)}\n`;
  const backlinksText = `${JSON.stringify(Object.fromEntries(backlinks), null, 2)}\n`;
  // A changed registry is written as is; comparing first would read back
  // megabytes at 10k pages for nothing.
  persist(paths.registry, registryText, diagnostics, !changed);
  persist(paths.backlinks, backlinksText, diagnostics, true);
  const written = statOrUndefined(paths.registry);
  const snapshot: RegistrySnapshot = {
    file: next,
    size: written?.size ?? -1,
    mtimeMs: written?.mtimeMs ?? -1,
  };
  return { pages, hashes, links, backlinks, linkProblems, diagnostics, stats, snapshot };
}

function resolveAll(
  ids: Iterable<string>,
  outgoing: Map<string, RawLink[]>,
): Pick<Registry, "links" | "backlinks" | "linkProblems"> {
  const resolver = new LinkResolver(ids);
  const links = new Map<string, string[]>();
  const backlinks = new Map<string, string[]>();
  const linkProblems: LinkProblem[] = [];
  for (const [from, raw] of [...outgoing].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const targets = new Set<string>();
    for (const link of raw) {
      const res = resolver.resolve(link.target);
      if (res.status === "resolved") {
        if (res.id !== from) targets.add(res.id);
      } else if (res.status === "ambiguous") {
        linkProblems.push({
          from,
          target: link.target,
          status: "ambiguous",
          candidates: res.candidates,
        });
      } else {
        linkProblems.push({ from, target: link.target, status: "missing" });
      }
    }
    links.set(from, [...targets].sort());
    for (const to of targets) {
      const list = backlinks.get(to);
      if (list) list.push(from);
      else backlinks.set(to, [from]);
    }
  }
  return { links, backlinks, linkProblems };
}

function persist(path: string, text: string, diagnostics: Diagnostic[], compare: boolean): void {
  if (compare) {
    try {
      if (readFileSync(path, "utf8") === text) return;
    } catch {
      // Absent: write it.
    }
  }
  try {
    writeFileAtomic(path, text);
  } catch (error) {
    diagnostics.push(
      diagnostic(
        "registry_write_failed",
        "warning",
        `could not write ${path}: ${errorMessage(error)}`,
      ),
    );
  }
}
