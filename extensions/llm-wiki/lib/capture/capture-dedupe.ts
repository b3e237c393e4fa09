/**
 * Stage dedupe: a source already captured is not captured again. The key
 * is the hash of the packet's `source.md` — the Markdown after extraction
 * and redaction, what the wiki knows of the source — which every manifest
 * written here records (`hashes.source`). Same bytes from a file, a URL or
 * pasted text is the same source; a different text under the same title is
 * not. A packet whose manifest records no hash (an older one, or one
 * written by `@zosmaai/pi-llm-wiki`: `extracted.md`) is hashed on demand,
 * within a budget of files and bytes per capture; one past the budget is
 * not looked at, and the next capture's packet records its hash. Packets
 * are only read.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { hashContent } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { readVaultLogEntries } from "../views/event-entries.ts";
import type { SourceManifest } from "./packet.ts";

/** A manifest larger than this is not a manifest written by a capture: skipped. */
const MAX_MANIFEST_BYTES = 256 * 1024;
/** Packets without a recorded hash hashed on demand per capture, at most. */
export const DEDUPE_HASH_FILES = 200;
/** Bytes read to hash such packets per capture, at most. */
export const DEDUPE_HASH_BYTES = 64 * 1024 * 1024;

/** The packet a capture found holding the same source. */
export interface CapturedPacket {
  id: string;
  /** Vault-relative folder, `raw/sources/<id>`. */
  rel: string;
  /** Its manifest, as read (fields of an older one may be missing). */
  manifest: Partial<SourceManifest> & { id: string };
  /** Its skeleton source page, as the capture's event named it, when known. */
  page?: string;
}

/** The file's bytes when it is a regular file of at most `max` bytes, else undefined. */
function readBounded(path: string, max: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return undefined;
    const buffer = Buffer.alloc(st.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function manifestOf(dir: string): Record<string, unknown> | undefined {
  const bytes = readBounded(join(dir, "manifest.json"), MAX_MANIFEST_BYTES);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `hashes.source` of a manifest, when it records one. */
function recordedHash(manifest: Record<string, unknown>): string | undefined {
  const hashes = manifest.hashes;
  if (hashes === null || typeof hashes !== "object") return undefined;
  const source = (hashes as Record<string, unknown>).source;
  return typeof source === "string" && source.startsWith("sha256:") ? source : undefined;
}

/** The page the `source_captured` event of `id` named, when the log says. */
function pageOf(vault: VaultPaths, id: string): string | undefined {
  const log = readVaultLogEntries(vault);
  if (!log.available) return undefined;
  for (let i = log.entries.length - 1; i >= 0; i -= 1) {
    const entry = log.entries[i];
    if (entry?.kind !== "source_captured" || entry.detail.id !== id) continue;
    return typeof entry.detail.page === "string" ? entry.detail.page : undefined;
  }
  return undefined;
}

/**
 * The packet of `vault` whose source Markdown hashes to `hash`
 * (`sha256:<hex>`), the oldest when several do; undefined when none does.
 */
export function findCapturedPacket(vault: VaultPaths, hash: string): CapturedPacket | undefined {
  const sourcesDir = join(vault.raw, "sources");
  let names: string[];
  try {
    names = readdirSync(sourcesDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return undefined;
  }
  let files = 0;
  let bytes = 0;
  for (const name of names) {
    const dir = join(sourcesDir, name);
    const manifest = manifestOf(dir);
    // A folder without a manifest is a packet being written, or not one.
    if (manifest === undefined || typeof manifest.id !== "string" || manifest.id !== name) continue;
    let found = recordedHash(manifest);
    if (found === undefined && files < DEDUPE_HASH_FILES && bytes < DEDUPE_HASH_BYTES) {
      for (const file of ["source.md", "extracted.md"]) {
        const text = readBounded(join(dir, file), DEDUPE_HASH_BYTES - bytes);
        if (text === undefined) continue;
        files += 1;
        bytes += text.length;
        found = `sha256:${hashContent(text)}`;
        break;
      }
    }
    if (found !== hash) continue;
    const page = pageOf(vault, name);
    return {
      id: name,
      rel: `raw/sources/${name}`,
      manifest: manifest as CapturedPacket["manifest"],
      ...(page !== undefined ? { page } : {}),
    };
  }
  return undefined;
}
