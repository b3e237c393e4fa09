/**
 * The append-only event log `meta/events.jsonl` (authoritative: never
 * rewritten, only appended to, one JSON object per line).
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { VaultPaths } from "./paths.ts";

/** One logged event; `kind` says what happened, the rest is its detail. */
export interface WikiEvent {
  kind: string;
  [key: string]: unknown;
}

/** Appends `event` with a timestamp. One `write` per line keeps concurrent appends whole. */
export function appendEvent(paths: VaultPaths, event: WikiEvent, now: Date = new Date()): void {
  mkdirSync(dirname(paths.events), { recursive: true });
  const line = `${JSON.stringify({ ts: now.toISOString(), ...event })}\n`;
  appendFileSync(paths.events, line, { encoding: "utf8", flag: "a" });
}
