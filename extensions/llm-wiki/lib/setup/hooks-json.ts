/**
 * Claude Code's hook shape (also Codex's `hooks.json`): `hooks.<Event>` is a
 * list of groups `{matcher?, hooks: [{type: "command", command, timeout}]}`.
 * Ours are the handlers whose command is exactly one `setup` writes: our
 * CLI (by name, an install's path, or a package runner) then `hook
 * session-start|user-prompt|stop|session-end|pre-compact` (ownership.ts),
 * never a user's program whose name merely contains "llm-wiki". Setup
 * leaves one current handler per event, remove takes ours out; the file is
 * edited as text (json-text.ts), so every other group, handler and key
 * stays byte for byte.
 */
import { isDeepStrictEqual } from "node:util";
import {
  EMPTY_OBJECT_TEXT,
  finishedText,
  isJsonObject,
  type JsonObject,
  objectMember,
  readJsonTree,
} from "./json-config.ts";
import {
  addElement,
  addMember,
  type JsonNode,
  memberOf,
  nodeValue,
  removeElement,
  removeMember,
} from "./json-text.ts";
import { hookCommandLine } from "./launch-command.ts";
import { isOurHookCommand } from "./ownership.ts";
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

/** True when `handler` is one of our hook handlers (any install's), by its exact command. */
export function isOurHandler(handler: unknown): boolean {
  return (
    isJsonObject(handler) &&
    typeof handler.command === "string" &&
    isOurHookCommand(handler.command)
  );
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

/**
 * The longest `SessionEnd` hook Codex runs: it clamps a longer timeout to
 * this and warns on every start of a session (`clamping SessionEnd hook
 * timeout to 3s in …/hooks.json`; Codex 0.171's own limit for that one
 * event). Recording a session fits in it; the other events keep ours.
 */
export const CODEX_SESSION_END_TIMEOUT_SECONDS = 3;

/** Codex's: Claude Code's shape, with the `SessionEnd` timeout Codex accepts. */
export function codexDialect(command: SetupCommand): HookDialect {
  const claude = claudeDialect(command);
  return {
    events: claude.events,
    handler: (kind) => ({
      ...claude.handler(kind),
      ...(kind === HOOK_EVENTS.SessionEnd ? { timeout: CODEX_SESSION_END_TIMEOUT_SECONDS } : {}),
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

/** One of our handlers in an event's list: where it is, and whether it is the one wanted. */
interface Found {
  group: number;
  handler: number;
  handlers: JsonNode;
  exact: boolean;
}

/** Our handlers in the event list `list`, in order. */
function oursIn(list: JsonNode | undefined, wanted: JsonObject): Found[] {
  const found: Found[] = [];
  if (list?.kind !== "array") return found;
  list.elements.forEach((group, g) => {
    const handlers = memberOf(group, "hooks")?.value;
    if (handlers?.kind !== "array") return;
    handlers.elements.forEach((h, i) => {
      const value = nodeValue(h);
      const exact = isDeepStrictEqual(value, wanted);
      if (exact || isOurHandler(value)) found.push({ group: g, handler: i, handlers, exact });
    });
  });
  return found;
}

/**
 * Adds or removes our hook handlers in the JSON `text` of the file at
 * `path`, one small edit at a time; returns the same text when nothing
 * changed, undefined when the file is left with nothing in it.
 */
export function editHooksText(
  path: string,
  text: string | undefined,
  command: SetupCommand,
  action: "add" | "remove",
  dialect: HookDialect = claudeDialect(command),
): string | undefined {
  const original = text === undefined || text.trim() === "" ? EMPTY_OBJECT_TEXT : text;
  let current = original;
  const wanted = ourHandlers(dialect);
  for (const event of Object.keys(dialect.events)) {
    const handler = wanted[event] as JsonObject;
    let removed = false;
    // Each step changes one thing and is read again; a file has few handlers.
    for (let step = 0; step < 10_000; step++) {
      const root = readJsonTree(path, current);
      const hooks = objectMember(path, root, "hooks");
      const list = memberOf(hooks, event)?.value;
      if (list !== undefined && list.kind !== "array") {
        throw setupError(path, `"hooks.${event}" is not a list`);
      }
      const mine = oursIn(list, handler);
      const settled = action === "add" && mine.length === 1 && mine[0]?.exact === true;
      if (mine.length > 0 && !settled && list !== undefined) {
        // A stale or repeated one first, so a current one is kept when it can be.
        const one = (action === "add" ? mine.find((m) => !m.exact) : undefined) ?? mine[0];
        if (one === undefined) break;
        const handlers = one.handlers as Extract<JsonNode, { kind: "array" }>;
        current =
          handlers.elements.length === 1
            ? removeElement(current, list, one.group)
            : removeElement(current, handlers, one.handler);
        removed = true;
        continue;
      }
      if (action === "add" && mine.length === 0) {
        const group = { hooks: [handler] };
        if (hooks === undefined) current = addMember(current, root, "hooks", { [event]: [group] });
        else if (list === undefined) current = addMember(current, hooks, event, [group]);
        else current = addElement(current, list, group);
        continue;
      }
      // What taking ours out emptied goes too: the event's list, then `hooks`.
      if (removed && list?.kind === "array" && list.elements.length === 0 && hooks) {
        const member = memberOf(hooks, event);
        if (member) current = removeMember(current, hooks, hooks.members.indexOf(member));
        continue;
      }
      if (removed && hooks !== undefined && hooks.members.length === 0) {
        const member = memberOf(root, "hooks");
        if (member) current = removeMember(current, root, root.members.indexOf(member));
      }
      break;
    }
  }
  if (current === original) return text;
  return finishedText(path, current);
}
