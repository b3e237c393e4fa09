/**
 * Trajectories the older system (`@zosmaai/pi-llm-wiki` 0.12) captured: a
 * packet folder `raw/trajectories/TRJ-…/` holding `manifest.json` and a
 * self-contained `extracted.md`, with no page. They join our own
 * trajectory pages in the working memory, read-only: a packet is never
 * rewritten, so "distilled" is recorded for it as a `trajectory_distilled`
 * event naming the packet, which only this side reads back (the older
 * distill counts a trajectory distilled through backlinks to a page, and a
 * packet has no page). Reading is bounded: a fixed number of packets, a
 * fixed number of bytes a file; a symlink out of `raw/` is not followed.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { readTimedEvents } from "../temporal/event-log.ts";
import { isReallyInside } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { redactText } from "../vault/redaction.ts";
import type { Registry } from "../vault/registry.ts";

/** A packet folder name the older capture writes: `TRJ-<day>-<nnn>`. */
const PACKET_NAME = /^TRJ-\d{4}-\d{2}-\d{2}-\d{3,}$/;
/** At most this many packets are read (the newest names win). */
export const OLDER_PACKETS_MAX = 1000;
/** At most this many bytes of a packet's `extracted.md` or `manifest.json` are read. */
export const OLDER_PACKET_MAX_BYTES = 64 * 1024;
/** The event that records a trajectory distilled (on a page too, as its trace). */
export const DISTILLED_EVENT = "trajectory_distilled";

/** One older packet, as the working memory sees it. */
export interface OlderPacket {
  /** `trajectories/TRJ-…`, the id a page of ours would have. */
  id: string;
  title: string;
  /** Vault-relative path of the packet folder. */
  path: string;
  outcome?: string;
  captured?: string;
}

/** Up to `max` bytes of a plain file really inside `raw/`, or undefined. */
function readBounded(vault: VaultPaths, rel: string, max = OLDER_PACKET_MAX_BYTES) {
  const abs = join(vault.dir, rel);
  try {
    if (!lstatSync(abs).isFile() || !isReallyInside(vault.raw, abs)) return undefined;
    const fd = openSync(abs, "r");
    try {
      const buf = Buffer.alloc(max);
      const n = readSync(fd, buf, 0, max, 0);
      return buf
        .subarray(0, n)
        .toString("utf8")
        .replace(/^\uFEFF/, "");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function oneLine(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const line = value.replace(/\s+/g, " ").trim().slice(0, 200);
  return line === "" ? undefined : redactText(line, {});
}

function manifestOf(vault: VaultPaths, rel: string): Record<string, unknown> {
  const text = readBounded(vault, `${rel}/manifest.json`);
  if (text === undefined) return {};
  try {
    const data = JSON.parse(text) as unknown;
    return data !== null && typeof data === "object" && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * The older packets of `vault` that no page of `registry` already stands
 * for (a page of ours with the same id wins), by id. Folders that are not
 * packet-named, are symlinks, or lead out of `raw/` are skipped.
 */
export function olderPackets(vault: VaultPaths, registry: Registry): OlderPacket[] {
  const dir = join(vault.raw, "trajectories");
  let names: string[];
  try {
    if (!lstatSync(dir).isDirectory()) return [];
    names = readdirSync(dir).filter((n) => PACKET_NAME.test(n));
  } catch {
    return [];
  }
  names.sort();
  const out: OlderPacket[] = [];
  for (const name of names.slice(-OLDER_PACKETS_MAX)) {
    const id = `trajectories/${name}`;
    if (registry.pages.has(id)) continue;
    const rel = `raw/trajectories/${name}`;
    try {
      if (!lstatSync(join(vault.dir, rel)).isDirectory()) continue;
    } catch {
      continue;
    }
    const manifest = manifestOf(vault, rel);
    const packet: OlderPacket = { id, title: oneLine(manifest.title) ?? name, path: rel };
    const outcome = oneLine(manifest.outcome);
    const captured = oneLine(manifest.captured);
    if (outcome) packet.outcome = outcome;
    if (captured) packet.captured = captured;
    out.push(packet);
  }
  return out;
}

/**
 * Whether link target `target` (`trajectories/TRJ-…`) names an older
 * packet folder of `vault`: a page citing one links to no page, yet is
 * not a dangling link.
 */
export function isOlderPacket(vault: VaultPaths, target: string): boolean {
  const match = /^trajectories\/(TRJ-[^/]+)$/.exec(target);
  if (!match?.[1] || !PACKET_NAME.test(match[1])) return false;
  try {
    return lstatSync(join(vault.raw, "trajectories", match[1])).isDirectory();
  } catch {
    return false;
  }
}

/** The packet's summary (`extracted.md`), bounded and redacted; empty when unreadable. */
export function packetText(vault: VaultPaths, packet: OlderPacket): string {
  const text = readBounded(vault, `${packet.path}/extracted.md`);
  return text === undefined ? "" : redactText(text, {}).trim();
}

/** Trajectory ids a `trajectory_distilled` event names. */
export function distilledByEvents(vault: VaultPaths): Set<string> {
  const marks = new Set<string>();
  for (const e of readTimedEvents(vault)) {
    if (e.kind !== DISTILLED_EVENT) continue;
    const id = e.page ?? e.id;
    if (id) marks.add(id);
  }
  return marks;
}
