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

/** Our handlers for this install, by event. */
export function ourHandlers(command: SetupCommand): Record<keyof typeof HOOK_EVENTS, JsonObject> {
  const handler = (kind: HookSubcommand) => ({
    type: "command",
    command: hookCommandLine(command, kind),
    timeout: HOOK_TIMEOUT_SECONDS,
  });
  const entries = Object.entries(HOOK_EVENTS).map(([event, kind]) => [event, handler(kind)]);
  return Object.fromEntries(entries) as Record<keyof typeof HOOK_EVENTS, JsonObject>;
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
): boolean {
  const hadHooks = data.hooks !== undefined;
  const hooks = childObject(path, data, "hooks");
  const wanted = ourHandlers(command);
  let changed = false;
  for (const event of Object.keys(HOOK_EVENTS) as Array<keyof typeof HOOK_EVENTS>) {
    const current = hooks[event];
    if (current !== undefined && !Array.isArray(current)) {
      throw setupError(path, `"hooks.${event}" is not a list`);
    }
    const groups = current ?? [];
    const mine = ourCount(groups, wanted[event]);
    if (action === "add" && mine.count === 1 && mine.exact) continue;
    if (action === "remove" && mine.count === 0) continue;
    const kept = withoutOurs(groups);
    if (action === "add") kept.push({ hooks: [wanted[event]] });
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
    changed = true;
  }
  if (Object.keys(hooks).length === 0 && (!hadHooks || changed)) delete data.hooks;
  return changed;
}
