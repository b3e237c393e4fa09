/**
 * Claude Code's hook shape (also Codex's `hooks.json`): `hooks.<Event>` is a
 * list of groups `{matcher?, hooks: [{type: "command", command, timeout}]}`.
 * Ours are the handlers whose command runs `llm-wiki … hook session-start`,
 * `hook user-prompt`, `hook stop`, `hook session-end` or `hook pre-compact`
 * (from any install: a global bin, npx, a checkout);
 * setup leaves one current handler per event, remove takes them all out.
 * Every other group and handler, and every unknown key, stays as it was.
 */
import { isDeepStrictEqual } from "node:util";
import { childObject, isJsonObject, type JsonObject } from "./json-config.ts";
import { hookCommandLine } from "./launch-command.ts";
import type { SetupCommand } from "./setup-types.ts";
import { setupError } from "./setup-types.ts";

/** The hook events we answer, with the `llm-wiki hook` subcommand for each. */
export const HOOK_EVENTS = {
  SessionStart: "session-start",
  UserPromptSubmit: "user-prompt",
  // Working memory: record the session's transcript (nothing is done while it is off).
  Stop: "stop",
  SessionEnd: "session-end",
  PreCompact: "pre-compact",
} as const;
export type HookSubcommand = (typeof HOOK_EVENTS)[keyof typeof HOOK_EVENTS];

/** Seconds a hook may take: a bundled hook answers in ~0.1 s, far inside this. */
export const HOOK_TIMEOUT_SECONDS = 10;

const OURS =
  /llm-wiki[^\s'"]*['"]?\s+hook\s+(?:session-start|user-prompt|stop|session-end|pre-compact)(?:\s|$)/;

/** True when `handler` is one of our hook handlers (any install's). */
export function isOurHandler(handler: unknown): boolean {
  return isJsonObject(handler) && typeof handler.command === "string" && OURS.test(handler.command);
}

/**
 * A client's hook events and the handler it runs for each: Claude Code and
 * Codex share the shape above; Gemini CLI names its events otherwise, takes
 * its timeout in milliseconds and reads only JSON on stdout.
 */
export interface HookDialect {
  events: Readonly<Record<string, HookSubcommand>>;
  handler(kind: HookSubcommand): JsonObject;
}

/** Claude Code's (and Codex's) events and handlers for this install. */
export function claudeDialect(command: SetupCommand): HookDialect {
  return {
    events: HOOK_EVENTS,
    handler: (kind) => ({
      type: "command",
      command: hookCommandLine(command, kind),
      timeout: HOOK_TIMEOUT_SECONDS,
    }),
  };
}

/** Our handlers for this install, by event. */
function ourHandlers(dialect: HookDialect): Record<string, JsonObject> {
  const entries = Object.entries(dialect.events).map(([event, kind]) => [
    event,
    dialect.handler(kind),
  ]);
  return Object.fromEntries(entries) as Record<string, JsonObject>;
}

/** `groups` without our handlers; a group left with no handler is dropped. */
function withoutOurs(groups: unknown[]): unknown[] {
  const kept: unknown[] = [];
  for (const group of groups) {
    if (!isJsonObject(group) || !Array.isArray(group.hooks)) {
      kept.push(group);
      continue;
    }
    const handlers = group.hooks.filter((h) => !isOurHandler(h));
    if (handlers.length === group.hooks.length) kept.push(group);
    else if (handlers.length > 0) kept.push({ ...group, hooks: handlers });
  }
  return kept;
}

/** How many of our handlers `groups` hold, and whether `wanted` is one of them. */
function ourCount(groups: unknown[], wanted: JsonObject): { count: number; exact: boolean } {
  let count = 0;
  let exact = false;
  for (const group of groups) {
    if (!isJsonObject(group) || !Array.isArray(group.hooks)) continue;
    for (const handler of group.hooks) {
      if (!isOurHandler(handler)) continue;
      count += 1;
      if (isDeepStrictEqual(handler, wanted)) exact = true;
    }
  }
  return { count, exact };
}

/**
 * Adds or removes our hook handlers in `data` (a parsed settings object)
 * in place; returns whether anything changed.
 */
export function editHooks(
  path: string,
  data: JsonObject,
  command: SetupCommand,
  action: "add" | "remove",
  dialect: HookDialect = claudeDialect(command),
): boolean {
  const hadHooks = data.hooks !== undefined;
  const hooks = childObject(path, data, "hooks");
  const wanted = ourHandlers(dialect);
  let changed = false;
  for (const event of Object.keys(dialect.events)) {
    const current = hooks[event];
    if (current !== undefined && !Array.isArray(current)) {
      throw setupError(path, `"hooks.${event}" is not a list`);
    }
    const groups = current ?? [];
    const handler = wanted[event] as JsonObject;
    const mine = ourCount(groups, handler);
    if (action === "add" && mine.count === 1 && mine.exact) continue;
    if (action === "remove" && mine.count === 0) continue;
    const kept = withoutOurs(groups);
    if (action === "add") kept.push({ hooks: [handler] });
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
    changed = true;
  }
  if (Object.keys(hooks).length === 0 && (!hadHooks || changed)) delete data.hooks;
  return changed;
}
