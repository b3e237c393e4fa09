/**
 * Guardrails: the agent's own file tools cannot change a vault's `raw/`
 * (immutable captured sources) or `meta/` (the append-only event log and
 * derived files). `write`, `edit`, and `bash` commands that obviously write
 * there are blocked before they run, with a refusal naming the wiki tool to
 * use instead. `wiki/` stays writable: the freshness hook indexes it.
 */
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import {
  type ExtensionContext,
  isToolCallEventType,
  type ToolCallEvent,
  type ToolCallEventResult,
} from "@earendil-works/pi-coding-agent";
import { VAULT_DIR } from "../lib/vault/paths.ts";
import { toolPath } from "./freshness.ts";
import { type ShellTarget, shellWriteTargets } from "./shell-writes.ts";
import { generatedViewOf, viewRefusal } from "./view-guard.ts";

/** A protected part of a vault. */
export type ProtectedArea = "raw" | "meta";

const AREAS: ReadonlySet<string> = new Set(["raw", "meta"]);

/** The protected area `abs` lies in, by its path segments (`…/.llm-wiki/raw/…`), if any. */
function areaBySegments(abs: string): ProtectedArea | undefined {
  const parts = abs.split(/[\\/]+/).map((p) => p.toLowerCase());
  for (let i = 0; i + 1 < parts.length; i += 1) {
    const next = parts[i + 1] ?? "";
    if (parts[i] === VAULT_DIR && AREAS.has(next)) return next as ProtectedArea;
  }
  return undefined;
}

/** `abs` with symlinks resolved as far as it exists (a file about to be created does not). */
function realPath(abs: string): string {
  let head = abs;
  const tail: string[] = [];
  while (!existsSync(head)) {
    const up = dirname(head);
    if (up === head) return abs;
    tail.unshift(basename(head));
    head = up;
  }
  try {
    return join(realpathSync(head), ...tail);
  } catch {
    return abs;
  }
}

/** The protected area an absolute path writes into, following symlinks. */
function protectedArea(abs: string): ProtectedArea | undefined {
  return areaBySegments(abs) ?? areaBySegments(realPath(abs));
}

/** The refusal: what was refused, why, and which tool does it properly. */
export function refusal(tool: string, shown: string, area: ProtectedArea): string {
  return area === "raw"
    ? `llm-wiki: ${tool} refused for ${shown}: .llm-wiki/raw/ holds immutable captured sources. Use wiki_capture_source to add a source (and wiki_ingest to turn it into pages). Nothing was changed.`
    : `llm-wiki: ${tool} refused for ${shown}: .llm-wiki/meta/ is maintained by the wiki tools (an append-only event log and derived files). Use wiki_log_event to record an event, or wiki_reindex to rebuild the index. Nothing was changed.`;
}

/** A shell word as a path: `~` and `$HOME` expanded; undefined when other variables or globs remain. */
function shellPath(word: string, cwd: string): string | undefined {
  const home = homedir();
  const expanded = word
    .replace(/^~(?=\/|$)/, home)
    .replace(/^\$HOME(?=\/|$)/, home)
    .replace(/^\$\{HOME\}(?=\/|$)/, home);
  if (/[$*?[\]{}`]/.test(expanded)) return undefined;
  return toolPath(expanded, cwd);
}

/** The area a shell target writes into; unexpandable words are judged by their text alone. */
function shellArea(target: ShellTarget, cwd: string): ProtectedArea | undefined {
  const path = shellPath(target.path, cwd);
  if (path === undefined) return areaBySegments(target.path);
  // Removing or moving the vault folder itself takes raw/ with it.
  if (target.removes && basename(path).toLowerCase() === VAULT_DIR) return "raw";
  return protectedArea(path);
}

function check(event: ToolCallEvent, cwd: string): ToolCallEventResult | undefined {
  if (isToolCallEventType("write", event) || isToolCallEventType("edit", event)) {
    const path = event.input.path;
    if (typeof path !== "string") return undefined;
    const abs = toolPath(path, cwd);
    const area = protectedArea(abs);
    if (area) return { block: true, reason: refusal(event.toolName, path, area) };
    const view = generatedViewOf(abs);
    return view ? { block: true, reason: viewRefusal(event.toolName, path, view) } : undefined;
  }
  if (isToolCallEventType("bash", event)) {
    const command = event.input.command;
    if (typeof command !== "string") return undefined;
    for (const target of shellWriteTargets(command)) {
      const area = shellArea(target, cwd);
      if (area) return { block: true, reason: refusal("bash", target.path, area) };
    }
  }
  return undefined;
}

/** `tool_call` handler: blocks writes into a vault's `raw/` or `meta/`. */
export function createGuardrailHandler() {
  return (event: ToolCallEvent, ctx: ExtensionContext): ToolCallEventResult | undefined => {
    try {
      return check(event, ctx.cwd);
    } catch {
      // A guard that throws would block every tool call; an unreadable path is not a vault write.
      return undefined;
    }
  };
}
