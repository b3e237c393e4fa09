/**
 * What an entry of a page's `sources:` names. An entry may be a page id
 * (`sources/rag-survey`), written as a link (`[[sources/rag-survey]]`) or a
 * path (`wiki/sources/rag-survey.md`), a page's alias or title, a captured
 * source's id (`SRC-2026-01-15-001`, the alias of the page its capture made),
 * a path under `raw/` (`raw/sources/SRC-…`, legal for a packet no page was
 * made for), an older system's trajectory packet (`trajectories/TRJ-…`), or
 * a URL (outside the vault, never checked). Anything else names nothing:
 * lint reports it and a write says so. Page names are matched through the
 * name table recall already keeps (name-match.ts), so resolving costs a few
 * map lookups.
 */
import { resolve } from "node:path";
import { matchNames } from "./name-match.ts";
import { isInside, isReallyInside } from "./vault/fs-safe.ts";
import type { PageMeta } from "./vault/page.ts";
import type { VaultPaths } from "./vault/paths.ts";

/** What one `sources:` entry names. */
export type SourceTarget =
  | { kind: "page"; id: string }
  | { kind: "raw"; path: string }
  | { kind: "external" }
  | { kind: "ambiguous"; candidates: string[] }
  | { kind: "unknown" };

/** A captured source's id, anywhere in the entry (`raw/sources/SRC-…/source.md` too). */
const SOURCE_ID_IN = /SRC-\d{4}-\d{2}-\d{2}-\d{3,}/i;
const PACKET = /^(?:raw\/)?trajectories\/(TRJ-\d{4}-\d{2}-\d{2}-\d{3,})$/i;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The entry as an id-like string: link brackets, label, anchor, `wiki/` and `.md` taken off. */
export function bareSource(ref: string): string {
  return ref
    .trim()
    .replace(/^\[\[([^\]]*)\]\]$/, "$1")
    .replace(/\|.*$/, "")
    .replace(/#.*$/, "")
    .replace(/\\/g, "/")
    .replace(/^(?:\.\/|\/)+/, "")
    .replace(/^\.llm-wiki\//, "")
    .replace(/^wiki\//, "")
    .replace(/\.md$/i, "")
    .replace(/\/+$/, "")
    .trim();
}

/** The one page of `ids` worth naming: the only one, else the only evidence page among them. */
function single(ids: readonly string[], pages: ReadonlyMap<string, PageMeta>): string[] {
  if (ids.length <= 1) return [...ids];
  const evidence = ids.filter((id) => pages.get(id)?.role === "evidence");
  return evidence.length === 1 ? evidence : [...ids].sort();
}

/**
 * The pages entry `ref` may mean: one when it names a page, several when it
 * is ambiguous, none when it names no page. `names` is the registry's
 * `names` object (the name table is cached under it; default `pages`).
 */
export function sourcePages(
  pages: ReadonlyMap<string, PageMeta>,
  ref: string,
  names: object = pages,
): string[] {
  const bare = bareSource(ref);
  if (bare === "" || URL_LIKE.test(bare)) return [];
  if (pages.has(bare)) return [bare];
  if (pages.has(`sources/${bare}`)) return [`sources/${bare}`];
  const sourceId = SOURCE_ID_IN.exec(bare)?.[0];
  // A packet's path names the page its capture made: the one aliased by its id.
  const key = sourceId ?? (bare.startsWith("raw/") ? undefined : bare);
  if (key === undefined) return [];
  return single([...matchNames(pages, key, names).exact], pages);
}

/** Whether vault-relative `rel` is a file or folder really inside the vault's `raw/`. */
function inRaw(vault: VaultPaths, rel: string): boolean {
  const abs = resolve(vault.dir, rel);
  // A missing path is not really inside either: its real path cannot be found.
  return isInside(vault.raw, abs) && isReallyInside(vault.raw, abs);
}

/** The `raw/` file or folder entry `ref` names, vault-relative, when there is one. */
function rawTarget(vault: VaultPaths, ref: string): string | undefined {
  const bare = bareSource(ref);
  if (bare.startsWith("raw/") && inRaw(vault, bare)) return bare;
  const sourceId = SOURCE_ID_IN.exec(bare)?.[0];
  if (sourceId && bare.toUpperCase() === sourceId.toUpperCase()) {
    const packet = `raw/sources/${sourceId.toUpperCase()}`;
    if (inRaw(vault, packet)) return packet;
  }
  const trajectory = PACKET.exec(bare)?.[1];
  if (trajectory) {
    const packet = `raw/trajectories/${trajectory.toUpperCase()}`;
    if (inRaw(vault, packet)) return packet;
  }
  return undefined;
}

/** What entry `ref` of a page in `vault` names: a page first, then `raw/`, then a URL. */
export function resolveSource(
  vault: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
  ref: string,
  names: object = pages,
): SourceTarget {
  const found = sourcePages(pages, ref, names);
  if (found.length === 1) return { kind: "page", id: found[0] as string };
  const raw = rawTarget(vault, ref);
  if (raw !== undefined) return { kind: "raw", path: raw };
  if (found.length > 1) return { kind: "ambiguous", candidates: found };
  if (URL_LIKE.test(bareSource(ref))) return { kind: "external" };
  return { kind: "unknown" };
}

/** A `sources:` entry that names nothing, or several pages. */
export interface SourceProblem {
  ref: string;
  /** The pages an ambiguous entry could mean; absent when it names nothing. */
  candidates?: string[];
}

/** The entries of `refs` (one page's `sources:`) that name nothing or several pages, each once. */
export function sourceProblems(
  vault: VaultPaths,
  pages: ReadonlyMap<string, PageMeta>,
  refs: readonly string[],
  names: object = pages,
): SourceProblem[] {
  const out: SourceProblem[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    if (seen.has(ref)) continue;
    seen.add(ref);
    const target = resolveSource(vault, pages, ref, names);
    if (target.kind === "unknown") out.push({ ref });
    else if (target.kind === "ambiguous") out.push({ ref, candidates: target.candidates });
  }
  return out;
}
