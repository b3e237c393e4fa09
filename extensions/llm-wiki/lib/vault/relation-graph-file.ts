/**
 * `meta/cache/registry/relations.json`: the relation graph as the last
 * refresh derived it, so the registry as last saved answers relation
 * questions without reading every shard. The summary records this file's
 * stamp; a file that is no longer as stamped (or absent, corrupt, of another
 * layout) is not used and the graph is derived from the records instead.
 * Rewritten only when the graph changed. Derived: deleting it costs nothing.
 *
 * Laid out to be asked per page without parsing it whole (at 100k pages it
 * holds ~30k edges, and parsing and indexing all of them was ~100 ms of a
 * cold recall that asks about a handful of pages): a JSON header line (the
 * version and every resolution record), then one line per declared edge and
 * direction, `o` by the declaring page and `i` by the target,
 *
 *     o<TAB>"concepts/a"<TAB>{"from":"concepts/a","to":"concepts/b","type":"supports"}
 *
 * sorted by their first two fields as strings (each page's edges in the
 * graph's own order within), so a page's lines are found by bisection and
 * only they are parsed. The page id is JSON-encoded: no tab or newline of a
 * hostile file name can reach the layout.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./fs-safe.ts";
import type { VaultPaths } from "./paths.ts";
import { fileStamp } from "./registry-cache.ts";
import {
  addTo,
  byFrom,
  byTo,
  compareText,
  type DeclaredLookup,
  type SavedRelations,
} from "./relation-graph.ts";
import { isKnownRelationType, type RelationEdge, type Resolution } from "./relations.ts";

/** 3: one line per edge and direction, sorted, after a header line (2 was one JSON document). */
const RELATIONS_VERSION = 3;
const NEWLINE = 0x0a;

function relationsPath(paths: VaultPaths): string {
  return join(paths.registryCache, "relations.json");
}

/** A line's sort key: its direction and the JSON-encoded page id. */
function lineKey(direction: "i" | "o", id: string): string {
  return `${direction}\t${JSON.stringify(id)}`;
}

/** The file's text for `saved`. */
export function relationsText(saved: SavedRelations): string {
  const lines: Array<{ key: string; text: string }> = [];
  const line = (direction: "i" | "o", id: string, edge: RelationEdge) => {
    const key = lineKey(direction, id);
    lines.push({ key, text: `${key}\t${JSON.stringify(edge)}` });
  };
  // `saved.edges` holds each declaring page's edges in `byTo` order.
  for (const edge of saved.edges) line("o", edge.from, edge);
  for (const edge of [...saved.edges].sort(byFrom)) line("i", edge.to, edge);
  // Stable: a page's lines keep the graph's order.
  lines.sort((a, b) => compareText(a.key, b.key));
  const header = JSON.stringify({ version: RELATIONS_VERSION, resolutions: saved.resolutions });
  return `${[header, ...lines.map((l) => l.text)].join("\n")}\n`;
}

/**
 * Writes `saved` unless the file already holds it; returns the file's stamp,
 * or "" when it could not be written (a read-only vault: nobody will trust
 * it, and the saved registry derives the graph from its records).
 */
export function saveRelations(paths: VaultPaths, saved: SavedRelations): string {
  const path = relationsPath(paths);
  const text = relationsText(saved);
  try {
    if (readFileSync(path, "utf8") === text) return fileStamp(path);
  } catch {
    // Absent: write it.
  }
  try {
    writeFileAtomic(path, text);
    return fileStamp(path);
  } catch {
    // The shards' own write warnings already tell of a folder that refuses writes.
    return "";
  }
}

const isText = (v: unknown): v is string => typeof v === "string";

function isEdge(value: unknown): value is RelationEdge {
  if (value === null || typeof value !== "object") return false;
  const e = value as Record<string, unknown>;
  return (
    isText(e.from) &&
    isText(e.to) &&
    isText(e.type) &&
    isKnownRelationType(e.type) &&
    (e.scope === undefined || isText(e.scope)) &&
    e.resolution === undefined &&
    (e.origin === undefined || (e.origin === "text" && e.type === "contradicts"))
  );
}

function isResolutionEntry(value: unknown): value is [string, Resolution] {
  if (!Array.isArray(value) || value.length !== 2 || !isText(value[0])) return false;
  const r = value[1] as Record<string, unknown> | null;
  return (
    r !== null &&
    typeof r === "object" &&
    isText(r.id) &&
    isText(r.selected) &&
    isText(r.other) &&
    isText(r.relation) &&
    isText(r.decidedBy) &&
    isText(r.decidedAt)
  );
}

/** A line of the saved file that is not what this layout writes: the file is not to be trusted. */
export class SavedRelationsInvalid extends Error {}

/** The graph saved with stamp `stamp`: its resolution records and its edges, asked per page. */
export interface OpenedRelations {
  resolutions: Array<[string, Resolution]>;
  declared: DeclaredLookup;
}

/** Bytes of the file read per probe; a line longer than this is read again, twice as long. */
const PROBE = 4096;
/**
 * A file up to this size is read whole once and asked in memory: a small
 * vault's graph is a few kilobytes, and opening it for each of priming's
 * dozens of questions cost more than reading it.
 */
const WHOLE_UP_TO = 256 * 1024;

/** Reads `size` bytes of `fd` from `pos` into `buf` at 0; throws when the file ends first. */
function readFully(fd: number, pos: number, buf: Buffer): void {
  let got = 0;
  while (got < buf.length) {
    const r = readSync(fd, buf, got, buf.length - got, pos + got);
    if (r === 0) throw new SavedRelationsInvalid("relations.json is shorter than it was");
    got += r;
  }
}

/**
 * The file at `path` opened for questions, while it is still the one
 * stamped `stamp` (checked on the open file: a file replaced since is not
 * read), or undefined. A small file is read whole and closed at once.
 */
function openStamped(path: string, stamp: string): FileLines | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  let keep = false;
  try {
    const st = fstatSync(fd);
    if (`${st.size}:${st.mtimeMs}` !== stamp) return undefined;
    if (st.size > WHOLE_UP_TO) {
      keep = true;
      return new FileLines({ fd }, st.size);
    }
    const bytes = Buffer.allocUnsafe(st.size);
    readFully(fd, 0, bytes);
    return new FileLines({ bytes }, st.size);
  } catch {
    // Unreadable: not used.
    return undefined;
  } finally {
    if (!keep) closeSync(fd);
  }
}

/**
 * The graph saved with stamp `stamp`, or undefined when the file is not (or
 * no longer) that one, or its header is not of this layout. Its edge lines
 * are looked up per page as asked, a few small reads each, with the file
 * open only for the question; a line found malformed, or a file changed
 * since, then throws `SavedRelationsInvalid` (the caller derives the graph
 * instead).
 */
export function openSavedRelations(paths: VaultPaths, stamp: string): OpenedRelations | undefined {
  if (stamp === "") return undefined;
  const path = relationsPath(paths);
  const file = openStamped(path, stamp);
  if (!file) return undefined;
  let first: { data: Record<string, unknown>; body: number } | undefined;
  try {
    first = file.firstLine();
  } catch {
    // Cut short while read: not used.
    return undefined;
  } finally {
    file.close();
  }
  const data = first?.data;
  if (!first || !Array.isArray(data?.resolutions) || !data.resolutions.every(isResolutionEntry))
    return undefined;
  const resolutions: Array<[string, Resolution]> = data.resolutions;
  if (data.version === 2 && Array.isArray(data.edges) && data.edges.every(isEdge))
    return wholeFile(data.edges, resolutions);
  if (data.version !== RELATIONS_VERSION) return undefined;
  const body = first.body;
  // Held in memory: asked there. Else opened for each question, and closed after it.
  const held = file.inMemory ? file : undefined;
  const cache = new Map<string, readonly RelationEdge[] | undefined>();
  const edgesOf = (direction: "i" | "o", id: string) => {
    const key = lineKey(direction, id);
    if (cache.has(key)) return cache.get(key);
    const lines = held ?? openStamped(path, stamp);
    if (!lines) throw new SavedRelationsInvalid("relations.json changed since it was opened");
    let values: string[];
    try {
      values = lines.valuesOf(key, body);
    } catch (error) {
      // Whatever stops the read (a file cut short, an I/O error) makes the file untrusted, never a failed recall.
      if (error instanceof SavedRelationsInvalid) throw error;
      throw new SavedRelationsInvalid(`relations.json could not be read: ${String(error)}`);
    } finally {
      lines.close();
    }
    const edges = values.map((text) => {
      let edge: unknown;
      try {
        edge = JSON.parse(text);
      } catch {
        throw new SavedRelationsInvalid(`relations.json: an edge line of ${id} is not JSON`);
      }
      if (!isEdge(edge) || (direction === "o" ? edge.from : edge.to) !== id)
        throw new SavedRelationsInvalid(`relations.json: an edge line of ${id} is malformed`);
      return edge;
    });
    const found = edges.length > 0 ? edges : undefined;
    cache.set(key, found);
    return found;
  };
  return {
    resolutions,
    declared: { from: (id) => edgesOf("o", id), to: (id) => edgesOf("i", id) },
  };
}

/**
 * A version 2 file (one JSON document, as written before this layout), read
 * whole as it always was: a vault upgraded keeps its fast first recall until
 * the next refresh writes the file anew.
 */
function wholeFile(
  edges: readonly RelationEdge[],
  resolutions: Array<[string, Resolution]>,
): OpenedRelations {
  const out = new Map<string, RelationEdge[]>();
  const incoming = new Map<string, RelationEdge[]>();
  for (const edge of edges) {
    addTo(out, edge.from, edge);
    addTo(incoming, edge.to, edge);
  }
  for (const list of out.values()) list.sort(byTo);
  for (const list of incoming.values()) list.sort(byFrom);
  return { resolutions, declared: { from: (id) => out.get(id), to: (id) => incoming.get(id) } };
}

/**
 * The open file's lines `<key part 1><TAB><key part 2><TAB><value>` after
 * its header, sorted by their key (the text before the second tab, compared
 * as strings) and found by bisection: a probe anywhere is moved back to its
 * line's start. Reads only the bytes near each probe.
 */
class FileLines {
  private readonly source: { fd: number } | { bytes: Buffer };
  private readonly size: number;

  constructor(source: { fd: number } | { bytes: Buffer }, size: number) {
    this.source = source;
    this.size = size;
  }

  /** Whether the whole file is held (nothing is open). */
  get inMemory(): boolean {
    return "bytes" in this.source;
  }

  /** Closes the file when it is open; one held in memory stays usable. */
  close(): void {
    if ("fd" in this.source) closeSync(this.source.fd);
  }

  /** The first line as a JSON object (the header; the whole document of a version 2 file) and where the next starts. */
  firstLine(): { data: Record<string, unknown>; body: number } | undefined {
    const line = this.lineFrom(0);
    if (!line) return undefined;
    try {
      const data = JSON.parse(line.text) as unknown;
      if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
      return { data: data as Record<string, unknown>, body: line.next };
    } catch {
      return undefined;
    }
  }

  /** The values of the lines whose key is `key`, in file order; the lines start at `body`. */
  valuesOf(key: string, body: number): string[] {
    const values: string[] = [];
    let at = this.firstAtLeast(key, body);
    while (at < this.size) {
      const line = this.keyedLineAt(at);
      if (line.key !== key) break;
      values.push(line.value);
      at = line.next;
    }
    return values;
  }

  private read(pos: number, len: number): Buffer {
    const n = Math.max(0, Math.min(len, this.size - pos));
    if ("bytes" in this.source) return this.source.bytes.subarray(pos, pos + n);
    const buf = Buffer.allocUnsafe(n);
    readFully(this.source.fd, pos, buf);
    return buf;
  }

  /** The line starting at `at` (its text without the newline) and where the next starts. */
  private lineFrom(at: number): { text: string; next: number } | undefined {
    for (let len = PROBE; ; len *= 2) {
      const buf = this.read(at, len);
      const nl = buf.indexOf(NEWLINE);
      if (nl >= 0) return { text: buf.toString("utf8", 0, nl), next: at + nl + 1 };
      if (at + buf.length >= this.size)
        return buf.length > 0 ? { text: buf.toString("utf8"), next: this.size } : undefined;
    }
  }

  /** The start of the line holding byte `at`, not before `lo` (a line start). */
  private lineStart(at: number, lo: number): number {
    let end = at;
    while (end > lo) {
      const from = Math.max(lo, end - PROBE);
      const nl = this.read(from, end - from).lastIndexOf(NEWLINE);
      if (nl >= 0) return from + nl + 1;
      end = from;
    }
    return lo;
  }

  private keyedLineAt(at: number): { key: string; value: string; next: number } {
    const line = this.lineFrom(at);
    const firstTab = line ? line.text.indexOf("\t") : -1;
    const secondTab = line && firstTab >= 0 ? line.text.indexOf("\t", firstTab + 1) : -1;
    if (!line || secondTab < 0)
      throw new SavedRelationsInvalid("relations.json: a line without its key");
    return {
      key: line.text.slice(0, secondTab),
      value: line.text.slice(secondTab + 1),
      next: line.next,
    };
  }

  /** The start of the first line from `body` on whose key is not below `key` (the end when none). */
  private firstAtLeast(key: string, body: number): number {
    let lo = body;
    let hi = this.size;
    // Lines starting before `lo` are below `key`; `hi` starts a line that is not (or is the end).
    while (lo < hi) {
      const mid = lo + ((hi - lo) >> 1);
      const at = this.lineStart(mid, lo);
      const line = this.keyedLineAt(at);
      if (line.key < key) lo = line.next;
      else hi = at;
    }
    return lo;
  }
}
