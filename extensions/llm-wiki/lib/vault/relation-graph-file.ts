/**
 * `meta/cache/registry/relations.json`: the relation graph as the last
 * refresh derived it, so the registry as last saved answers relation
 * questions without reading every shard. The summary records this file's
 * stamp; a file that is no longer as stamped (or absent, corrupt, of another
 * layout) is not used and the graph is derived from the records instead.
 * Rewritten only when the graph changed. Derived: deleting it costs nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./fs-safe.ts";
import type { VaultPaths } from "./paths.ts";
import { fileStamp } from "./registry-cache.ts";
import type { SavedRelations } from "./relation-graph.ts";
import { isKnownRelationType, type RelationEdge, type Resolution } from "./relations.ts";

/** 2: edges of text-form conflicts (`origin: "text"`) are saved too. */
const RELATIONS_VERSION = 2;

function relationsPath(paths: VaultPaths): string {
  return join(paths.registryCache, "relations.json");
}

/**
 * Writes `saved` unless the file already holds it; returns the file's stamp,
 * or "" when it could not be written (a read-only vault: nobody will trust
 * it, and the saved registry derives the graph from its records).
 */
export function saveRelations(paths: VaultPaths, saved: SavedRelations): string {
  const path = relationsPath(paths);
  const text = `${JSON.stringify({ version: RELATIONS_VERSION, ...saved })}\n`;
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

/** The graph saved with stamp `stamp`, or undefined when the file is not (or no longer) that one. */
export function readSavedRelations(paths: VaultPaths, stamp: string): SavedRelations | undefined {
  const path = relationsPath(paths);
  if (stamp === "" || fileStamp(path) !== stamp) return undefined;
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown> | null;
    if (
      data?.version !== RELATIONS_VERSION ||
      !Array.isArray(data.edges) ||
      !Array.isArray(data.resolutions) ||
      !data.edges.every(isEdge) ||
      !data.resolutions.every(isResolutionEntry)
    ) {
      return undefined;
    }
    return { edges: data.edges, resolutions: data.resolutions };
  } catch {
    return undefined;
  }
}
