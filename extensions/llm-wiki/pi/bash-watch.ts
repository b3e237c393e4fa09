/**
 * The bash guardrail sees only what a command obviously writes; a script or
 * an interpreter (`python -c`, `node -e`) can still change a vault's
 * immutable files. So every bash call is bracketed: before it runs, the
 * stats of the files under each vault's `raw/` and each event log file's
 * size and hash are taken (`meta/events.jsonl` and the clones' logs);
 * afterwards, a file under `raw/` changed or removed, or an event log file
 * that is no longer the old one plus appended lines, is reported
 * in the tool's result (so the agent sees it) and to the user as a warning.
 * It cannot undo the change; it makes sure it is never silent. A call that
 * moved HEAD (`git pull`, `checkout`, `merge`) is git bringing the files to
 * a commit: what then matches that commit is not reported.
 *
 * The event log only grows, so it is read as little as possible: its hash is
 * kept with the stat it was taken at, and a log whose size, mtime and inode
 * are unchanged is not read again, before a call or after it.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import type {
  ExtensionContext,
  ToolCallEvent,
  ToolResultEvent,
  ToolResultEventResult,
} from "@earendil-works/pi-coding-agent";
import { terminalSafe } from "../lib/safety/text.ts";
import { cloneLogsDir, eventLogFiles } from "../lib/vault/event-log-files.ts";
import { uncommittedUnder } from "../lib/vault/git-changes.ts";
import { findGitRepo, headCommit } from "../lib/vault/git-state.ts";
import type { VaultPaths } from "../lib/vault/paths.ts";
import type { WikiHost } from "./wiki-host.ts";

/** Files under `raw/` looked at per vault; past this a huge capture store is not watched. */
const MAX_RAW_FILES = 50_000;

/** What tells one state of the event log from another without reading it. */
interface LogStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** The event log at one stat: `hash` is of its first `stamp.size` bytes. */
interface LogState {
  stamp: LogStamp;
  hash: string;
}

/** The last known state of each event log, by path: a log whose stat still matches is not read. */
type LogCache = Map<string, LogState>;

interface VaultSnapshot {
  vault: VaultPaths;
  /** `size:mtimeMs` by absolute path. */
  raw: Map<string, string>;
  /** Each event log file as it was, by absolute path. */
  events: Map<string, LogState>;
  /** The commit checked out before the call, in a git repository. */
  head?: string;
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

function sameStamp(a: LogStamp, b: LogStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

function logStamp(path: string): LogStamp | undefined {
  try {
    const st = statSync(path);
    return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  } catch {
    return undefined;
  }
}

/**
 * The log's bytes and the stat to remember them by: the size is the bytes'
 * own, so a line appended while reading makes the next stat differ.
 */
function readLog(path: string): { bytes: Buffer; stamp: LogStamp } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const bytes = readFileSync(fd);
    const st = fstatSync(fd);
    return { bytes, stamp: { size: bytes.length, mtimeMs: st.mtimeMs, ino: st.ino } };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The log as it is now: from `cache` while its stat matches, else read and remembered. */
function logBefore(path: string, cache: LogCache): LogState | undefined {
  const now = logStamp(path);
  if (now === undefined) {
    cache.delete(path);
    return undefined;
  }
  const known = cache.get(path);
  if (known && sameStamp(known.stamp, now)) return known;
  const read = readLog(path);
  if (read === undefined) {
    // Unreadable now: nothing to compare against afterwards.
    cache.delete(path);
    return undefined;
  }
  const state = { stamp: read.stamp, hash: createHash("sha256").update(read.bytes).digest("hex") };
  cache.set(path, state);
  return state;
}

/**
 * Whether the log still starts with what it held `before`. Unchanged stat:
 * yes, unread. Otherwise the file is read once: its first `before` bytes are
 * hashed to compare, the rest added to remember the whole file for the next call.
 */
function logKept(path: string, before: LogState, cache: LogCache): boolean {
  const now = logStamp(path);
  if (now !== undefined && sameStamp(now, before.stamp)) return true;
  cache.delete(path);
  if (now === undefined || now.size < before.stamp.size) return false;
  const read = readLog(path);
  if (read === undefined || read.bytes.length < before.stamp.size) return false;
  const hash = createHash("sha256").update(read.bytes.subarray(0, before.stamp.size));
  const kept = hash.copy().digest("hex") === before.hash;
  hash.update(read.bytes.subarray(before.stamp.size));
  cache.set(path, { stamp: read.stamp, hash: hash.digest("hex") });
  return kept;
}

function snapshot(vault: VaultPaths, logs: LogCache): VaultSnapshot {
  const raw = new Map<string, string>();
  rawFiles(vault.raw, raw);
  const events = new Map<string, LogState>();
  for (const file of eventLogFiles(vault)) {
    const state = logBefore(file, logs);
    if (state) events.set(file, state);
  }
  const repo = findGitRepo(vault.root);
  const head = repo ? headCommit(repo) : undefined;
  return { vault, raw, events, ...(head ? { head } : {}) };
}

/**
 * `found` without what git did: when the call moved HEAD (`git pull`,
 * `checkout`, `merge`), a file that now matches the new commit is git's
 * doing, the history holds both versions, and nothing is to restore.
 */
function notGits(before: VaultSnapshot, found: Map<string, string>): string[] {
  const all = [...found.values()];
  if (before.head === undefined || found.size === 0) return all;
  const repo = findGitRepo(before.vault.root);
  if (!repo || headCommit(repo) === before.head) return all;
  const differing = uncommittedUnder(repo, [
    before.vault.raw,
    before.vault.events,
    cloneLogsDir(before.vault),
  ]);
  if (differing === undefined) return all;
  const dirty = new Set(differing);
  return [...found].filter(([path]) => dirty.has(path)).map(([, what]) => what);
}

/** What changed that must not have: vault-relative paths with what happened to them. */
function violations(before: VaultSnapshot, logs: LogCache): string[] {
  const { vault } = before;
  const shown = (abs: string) => relative(vault.root, abs).split(sep).join("/");
  const out = new Map<string, string>();
  for (const [path, was] of before.raw) {
    const now = stamp(path);
    if (now === undefined) out.set(path, `${shown(path)} was removed`);
    else if (now !== was) out.set(path, `${shown(path)} was changed`);
  }
  for (const [file, state] of before.events) {
    if (!logKept(file, state, logs)) {
      out.set(file, `${shown(file)} was rewritten (it is append-only)`);
    }
  }
  return notGits(before, out);
}

/** The warning the agent and the user get. */
function bashWarning(found: string[]): string {
  return `llm-wiki: this bash command changed files the wiki never rewrites: ${found.join("; ")}. .llm-wiki/raw/ holds immutable captured sources and the event log (meta/events.jsonl, meta/events/) is append-only; restore them (for example with git) and use wiki_capture_source or wiki_log_event instead.`;
}

/**
 * `tool_call` and `tool_result` handlers that bracket every bash call, and
 * an `agent_end` handler that drops the snapshots of calls whose result never
 * came (blocked by a later extension, or aborted).
 */
export function createBashWatch(host: WikiHost) {
  const pending = new Map<string, VaultSnapshot[]>();
  const logs: LogCache = new Map();
  return {
    onToolCall(event: ToolCallEvent, ctx: ExtensionContext): undefined {
      if (event.toolName !== "bash") return undefined;
      try {
        const vaults = host.service(ctx).resolveVaults("all");
        pending.set(
          event.toolCallId,
          vaults.map((vault) => snapshot(vault, logs)),
        );
      } catch {
        // A watch that cannot look is no reason to stop the command.
      }
      return undefined;
    },
    onToolResult(event: ToolResultEvent, ctx: ExtensionContext): ToolResultEventResult | undefined {
      const before = pending.get(event.toolCallId);
      if (before === undefined) return undefined;
      pending.delete(event.toolCallId);
      const found = before.flatMap((snap) => violations(snap, logs));
      if (found.length === 0) return undefined;
      // Names of files a command touched may carry control sequences.
      const warning = terminalSafe(bashWarning(found));
      try {
        ctx.ui.notify(warning, "warning");
      } catch {
        // No UI: the agent still reads it in the result.
      }
      return { content: [...event.content, { type: "text", text: warning }] };
    },
    onAgentEnd(): void {
      pending.clear();
    },
  };
}
