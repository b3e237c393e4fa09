/**
 * JSON config files (Claude Code, Codex hooks, Gemini CLI, Cursor,
 * opencode), edited as text (json-text.ts): only the bytes of our own
 * entries change, so the user's numbers, duplicate keys, key order and
 * spacing stay as written. A new file is written with two-space indentation
 * and a final newline. A file that is not a plain JSON object (comments
 * included: an edit could not know what they belong to) is refused with a
 * diagnostic.
 */
import { isDeepStrictEqual } from "node:util";
import {
  addMember,
  type JsonNode,
  JsonTextError,
  memberOf,
  nodeValue,
  parseJsonText,
  removeMember,
  replaceValue,
} from "./json-text.ts";
import { isOurServer } from "./ownership.ts";
import { setupError } from "./setup-types.ts";

export type JsonObject = Record<string, unknown>;

/** True for a plain object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The text an absent or blank file is edited from. */
export const EMPTY_OBJECT_TEXT = "{}\n";

/** Parses `text` (the file at `path`) as one JSON object, keeping where everything is. */
export function readJsonTree(path: string, text: string): Extract<JsonNode, { kind: "object" }> {
  let root: JsonNode;
  try {
    root = parseJsonText(text);
  } catch (error) {
    const why = error instanceof JsonTextError ? error.message : String(error);
    throw setupError(
      path,
      `is not valid JSON (${why}); comments and trailing commas are not kept by an automatic edit`,
      `fix or remove ${path} by hand, then run the command again`,
    );
  }
  if (root.kind !== "object") throw setupError(path, "is not a JSON object");
  return root;
}

/** The object member `key` of `node`, refusing a value of another type (naming the key). */
export function objectMember(
  path: string,
  node: JsonNode | undefined,
  key: string,
  label = key,
): Extract<JsonNode, { kind: "object" }> | undefined {
  const value = memberOf(node, key)?.value;
  if (value === undefined) return undefined;
  if (value.kind !== "object") throw setupError(path, `"${label}" is not a JSON object`);
  return value;
}

/** The edited text as the file's: undefined when nothing is left in it (the file is removed). */
export function finishedText(path: string, text: string): string | undefined {
  return readJsonTree(path, text).members.length === 0 ? undefined : text;
}

/**
 * Sets (`add`) or deletes (`remove`) `data[container][name]`, changing no
 * other byte; an emptied container is dropped. Returns the same text when
 * nothing changed (so a second run writes nothing). An entry under `name`
 * that `setup` did not write (another server) is refused unless `force`,
 * and never removed.
 */
export function editNamedEntry(
  path: string,
  text: string | undefined,
  container: string,
  name: string,
  entry: JsonObject,
  action: "add" | "remove",
  force = false,
): string | undefined {
  const start = text === undefined || text.trim() === "" ? EMPTY_OBJECT_TEXT : text;
  const root = readJsonTree(path, start);
  const servers = objectMember(path, root, container);
  const current = memberOf(servers, name);
  if (action === "add") {
    if (current !== undefined) {
      const value = nodeValue(current.value);
      if (isDeepStrictEqual(value, entry)) return text;
      if (!isOurServer(value) && !force) {
        throw setupError(
          path,
          `already has a "${container}.${name}" entry that setup did not write (it runs something else), and setup does not replace another's entry`,
          `rename or remove that entry by hand, or run setup again with --force to replace it`,
        );
      }
      return replaceValue(start, current.value, entry);
    }
    if (servers === undefined) return addMember(start, root, container, { [name]: entry });
    return addMember(start, servers, name, entry);
  }
  if (current === undefined || servers === undefined) return text;
  // Not ours (neither what this install writes nor any install's): left in place.
  const value = nodeValue(current.value);
  if (!isDeepStrictEqual(value, entry) && !isOurServer(value)) return text;
  let next = removeMember(start, servers, servers.members.indexOf(current));
  if (servers.members.length === 1) {
    const tree = readJsonTree(path, next);
    const emptied = memberOf(tree, container);
    if (emptied) next = removeMember(next, tree, tree.members.indexOf(emptied));
  }
  return finishedText(path, next);
}
