/**
 * The bash guardrail sees only what a command obviously writes; a script or
 * an interpreter (`python -c`, `node -e`) can still change a vault's
 * immutable files. So every bash call is bracketed: before it runs, the
 * stats of the files under each vault's `raw/` and the event log's size and
 * hash are taken; afterwards, a file under `raw/` changed or removed, or an
 * event log that is no longer the old one plus appended lines, is reported
 * in the tool's result (so the agent sees it) and to the user as a warning.
 * It cannot undo the change; it makes sure it is never silent.
 */
import { createHash } from "node:crypto";
import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type {
  ExtensionContext,
  ToolCallEvent,
  ToolResultEvent,
  ToolResultEventResult,
} from "@earendil-works/pi-coding-agent";
import type { VaultPaths } from "../lib/vault/paths.ts";
import type { WikiHost } from "./wiki-host.ts";

/** Files under `raw/` looked at per vault; past this a huge capture store is not watched. */
const MAX_RAW_FILES = 50_000;

interface VaultSnapshot {
  vault: VaultPaths;
  /** `size:mtimeMs` by absolute path. */
  raw: Map<string, string>;
  events?: { size: number; hash: string };
}

function stamp(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function rawFiles(dir: string, out: Map<string, string>): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (out.size >= MAX_RAW_FILES) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) rawFiles(path, out);
    else {
      const s = stamp(path);
      if (s !== undefined) out.set(path, s);
    }
  }
}

function hashOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function snapshot(vault: VaultPaths): VaultSnapshot {
  const raw = new Map<string, string>();
  rawFiles(vault.raw, raw);
  const snap: VaultSnapshot = { vault, raw };
  if (existsSync(vault.events)) {
    try {
      const bytes = readFileSync(vault.events);
      snap.events = { size: bytes.length, hash: hashOf(bytes) };
    } catch {
      // Unreadable now: nothing to compare against afterwards.
    }
  }
  return snap;
}

/** What changed that must not have: vault-relative paths with what happened to them. */
function violations(before: VaultSnapshot): string[] {
  const { vault } = before;
  const shown = (abs: string) => relative(vault.root, abs).split(sep).join("/");
  const out: string[] = [];
  for (const [path, was] of before.raw) {
    const now = stamp(path);
    if (now === undefined) out.push(`${shown(path)} was removed`);
    else if (now !== was) out.push(`${shown(path)} was changed`);
  }
  if (before.events) {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(vault.events);
    } catch {
      bytes = undefined;
    }
    const kept =
      bytes !== undefined &&
      bytes.length >= before.events.size &&
      hashOf(bytes.subarray(0, before.events.size)) === before.events.hash;
    if (!kept) out.push(`${shown(vault.events)} was rewritten (it is append-only)`);
  }
  return out;
}

/** The warning the agent and the user get. */
export function bashWarning(found: string[]): string {
  return `llm-wiki: this bash command changed files the wiki never rewrites: ${found.join("; ")}. .llm-wiki/raw/ holds immutable captured sources and meta/events.jsonl is append-only; restore them (for example with git) and use wiki_capture_source or wiki_log_event instead.`;
}

/** `tool_call` and `tool_result` handlers that bracket every bash call. */
export function createBashWatch(host: WikiHost) {
  const pending = new Map<string, VaultSnapshot[]>();
  return {
    onToolCall(event: ToolCallEvent, ctx: ExtensionContext): undefined {
      if (event.toolName !== "bash") return undefined;
      try {
        const vaults = host.service(ctx).resolveVaults("all");
        pending.set(event.toolCallId, vaults.map(snapshot));
      } catch {
        // A watch that cannot look is no reason to stop the command.
      }
      return undefined;
    },
    onToolResult(event: ToolResultEvent, ctx: ExtensionContext): ToolResultEventResult | undefined {
      const before = pending.get(event.toolCallId);
      if (before === undefined) return undefined;
      pending.delete(event.toolCallId);
      const found = before.flatMap(violations);
      if (found.length === 0) return undefined;
      const warning = bashWarning(found);
      try {
        ctx.ui.notify(warning, "warning");
      } catch {
        // No UI: the agent still reads it in the result.
      }
      return { content: [...event.content, { type: "text", text: warning }] };
    },
  };
}
