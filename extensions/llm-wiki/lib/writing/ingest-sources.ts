/**
 * Finding what `ingest` works on: source pages (type `source`) and the text
 * of their packets under `raw/sources/SRC-…/`. Pages written by this capture
 * (`raw_path: raw/sources/<id>/source.md`), by older versions
 * (`…/extracted.md`), and by hand (`raw_path` naming the packet folder) all
 * lead to their text; nothing outside `raw/` is ever read as a source.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import { isInside, isReallyInside } from "../vault/fs-safe.ts";
import { type PageMeta, parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";

/** A source id, `SRC-YYYY-MM-DD-NNN`. */
const SOURCE_ID = /^SRC-\d{4}-\d{2}-\d{2}-\d{3,}$/i;
const SOURCE_ID_IN = /SRC-\d{4}-\d{2}-\d{2}-\d{3,}/i;
/** Text files of a packet, newest layout first. */
const TEXT_FILES = ["source.md", "extracted.md"];
/** A captured text larger than this is not a source but a data dump; capture stays far below. */
const MAX_SOURCE_BYTES = 32 * 1024 * 1024;

/** One source as `ingest` sees it. */
export interface SourceRef {
  /** `SRC-…`, when the page or packet names one. */
  sourceId?: string;
  /** Page id (`sources/rag-survey`); absent for a packet nobody made a page for. */
  page?: string;
  /** Vault-relative page path (`wiki/sources/rag-survey.md`). */
  pagePath?: string;
  title: string;
  status?: string;
  /** Vault-relative path of the packet's text (`raw/sources/SRC-…/source.md`), when found. */
  textPath?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The packet's own name for its text file (`manifest.json` → `files.source`), if it has one. */
function manifestTextFile(vault: VaultPaths, packetRel: string): string | undefined {
  try {
    const manifest = JSON.parse(
      readFileSync(join(vault.dir, packetRel, "manifest.json"), "utf8"),
    ) as unknown;
    const files = (manifest as { files?: { source?: unknown } } | null)?.files;
    const name = text(files?.source);
    return name && !/[\\/]/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The first candidate that is a file really inside `raw/` (symlinks out of it are ignored). */
function firstTextFile(vault: VaultPaths, candidates: string[]): string | undefined {
  for (const rel of candidates) {
    const abs = resolve(vault.dir, rel);
    // A missing file is not really inside either (its real path cannot be found).
    if (!isInside(vault.raw, abs) || !isReallyInside(vault.raw, abs)) continue;
    try {
      if (statSync(abs).isFile()) return rel;
    } catch {
      // Vanished between the checks: try the next candidate.
    }
  }
  return undefined;
}

/** Candidate text files for a page's `raw_path` and source id, best first. */
function textCandidates(
  vault: VaultPaths,
  rawPath: string | undefined,
  sourceId: string | undefined,
): string[] {
  const out: string[] = [];
  const folder = (rel: string) => {
    const own = manifestTextFile(vault, rel);
    if (own) out.push(`${rel}/${own}`);
    for (const name of TEXT_FILES) out.push(`${rel}/${name}`);
  };
  if (rawPath) {
    const rel = rawPath
      .replace(/\\/g, "/")
      .replace(/^\.?\/+/, "")
      .replace(/\/+$/, "");
    if (/\.(md|markdown|txt)$/i.test(rel)) out.push(rel);
    else folder(rel);
  }
  if (sourceId) folder(`raw/sources/${sourceId}`);
  return [...new Set(out)];
}

/** The source behind a registry page: its id and packet text, read from the page's frontmatter. */
function sourceOfPage(vault: VaultPaths, meta: PageMeta): SourceRef {
  let fm: Record<string, unknown> = {};
  try {
    const parsed = parsePage(meta.id, meta.path, readFileSync(join(vault.dir, meta.path)));
    if (parsed.ok) fm = parsed.page.frontmatter;
  } catch {
    // An unreadable page still lists; its text is reported missing when asked for.
  }
  const rawPath = text(fm.raw_path);
  const sourceId = [text(fm.source_id), ...meta.aliases, ...meta.sources, rawPath]
    .map((v) => (v ? SOURCE_ID_IN.exec(v)?.[0] : undefined))
    .find((v) => v !== undefined)
    ?.toUpperCase();
  const textPath = firstTextFile(vault, textCandidates(vault, rawPath, sourceId));
  return {
    ...(sourceId ? { sourceId } : {}),
    page: meta.id,
    pagePath: meta.path,
    title: meta.title,
    ...(meta.status ? { status: meta.status } : {}),
    ...(textPath ? { textPath } : {}),
  };
}

function order(a: SourceRef, b: SourceRef): number {
  const ka = a.sourceId ?? "\uffff";
  const kb = b.sourceId ?? "\uffff";
  if (ka !== kb) return ka < kb ? -1 : 1;
  return (a.page ?? "") < (b.page ?? "") ? -1 : 1;
}

/** Source pages still at status `skeleton`, oldest capture first. */
export function skeletonSources(vault: VaultPaths, registry: Registry): SourceRef[] {
  return [...registry.pages.values()]
    .filter((p) => p.type === "source" && p.status === "skeleton")
    .map((p) => sourceOfPage(vault, p))
    .sort(order);
}

function bare(query: string): string {
  return query
    .trim()
    .replace(/^\[\[|\]\]$/g, "")
    .replace(/^wiki\//, "")
    .replace(/\.md$/i, "")
    .toLowerCase();
}

/**
 * The source `query` names: a source id, a page id (`sources/x` or `x`) or an
 * alias. A source id with a packet but no page still resolves (its text can
 * be read; there is no page to mark).
 */
export function findSource(
  vault: VaultPaths,
  registry: Registry,
  query: string,
): SourceRef | undefined {
  const q = bare(query);
  const sources = [...registry.pages.values()].filter((p) => p.type === "source");
  const byName = sources.find(
    (p) =>
      p.id.toLowerCase() === q ||
      p.id.toLowerCase() === `sources/${q}` ||
      p.aliases.some((a) => a.toLowerCase() === q),
  );
  if (byName) return sourceOfPage(vault, byName);
  if (!SOURCE_ID.test(q)) return undefined;
  const id = q.toUpperCase();
  const byId = sources.map((p) => sourceOfPage(vault, p)).find((s) => s.sourceId === id);
  if (byId) return byId;
  const textPath = firstTextFile(vault, textCandidates(vault, undefined, id));
  return textPath ? { sourceId: id, title: id, textPath } : undefined;
}

/** The packet text of `ref`, BOM dropped. Throws `WikiError` when there is none to read. */
export function readSourceText(vault: VaultPaths, ref: SourceRef): string {
  const name = ref.sourceId ?? ref.page ?? ref.title;
  if (!ref.textPath) {
    throw new WikiError(
      diagnostic(
        "ingest_packet_missing",
        "error",
        `no packet text found for ${name}: its page names no readable raw/sources/… file`,
        { ...(ref.pagePath ? { path: ref.pagePath } : {}) },
      ),
    );
  }
  const abs = join(vault.dir, ref.textPath);
  const size = statSync(abs).size;
  if (size > MAX_SOURCE_BYTES) {
    throw new WikiError(
      diagnostic(
        "ingest_source_too_large",
        "error",
        `${ref.textPath} is ${size} bytes; the limit is ${MAX_SOURCE_BYTES}`,
        { path: ref.textPath },
      ),
    );
  }
  return readFileSync(abs, "utf8").replace(/^\uFEFF/, "");
}
