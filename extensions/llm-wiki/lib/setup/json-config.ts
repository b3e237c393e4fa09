/**
 * JSON config files (Claude Code, Codex hooks, Gemini CLI, Cursor,
 * opencode): read as one object, edited as data, written back with two-space
 * indentation and a final newline. Every key we do not own is kept in its
 * order. A file that is not a plain JSON object (comments included: JSON
 * with comments would lose them) is refused with a diagnostic.
 */
import { isDeepStrictEqual } from "node:util";
import { setupError } from "./setup-types.ts";

export type JsonObject = Record<string, unknown>;

/** True for a plain object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Parses `text` (the file at `path`) as one JSON object; absent or blank: `{}`. */
export function readJsonObject(path: string, text: string | undefined): JsonObject {
  if (text === undefined || text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw setupError(
      path,
      `is not valid JSON (${(error as Error).message}); comments and trailing commas are not kept by an automatic edit`,
      `fix or remove ${path} by hand, then run the command again`,
    );
  }
  if (!isJsonObject(data)) throw setupError(path, "is not a JSON object");
  return data;
}

/** `data` as the file's text; undefined when it is empty (the file is removed). */
export function writeJsonObject(data: JsonObject): string | undefined {
  if (Object.keys(data).length === 0) return undefined;
  return `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * The object at `data[key]`, created when absent; refuses a value of another
 * type (a hostile or hand-broken file), naming the key.
 */
export function childObject(path: string, data: JsonObject, key: string): JsonObject {
  // Own keys only: a file's "__proto__" key is data, never the prototype.
  const value = Object.hasOwn(data, key) ? data[key] : undefined;
  if (value === undefined) {
    const created: JsonObject = {};
    data[key] = created;
    return created;
  }
  if (!isJsonObject(value)) throw setupError(path, `"${key}" is not a JSON object`);
  return value;
}

/**
 * Sets (`add`) or deletes (`remove`) `data[container][name]`, keeping every
 * other entry; an emptied container is dropped. Returns the edited text,
 * the same text when nothing changed (so a second run writes nothing).
 */
export function editNamedEntry(
  path: string,
  text: string | undefined,
  container: string,
  name: string,
  entry: JsonObject,
  action: "add" | "remove",
): string | undefined {
  const data = readJsonObject(path, text);
  const had = data[container];
  const servers = childObject(path, data, container);
  if (action === "add") {
    if (isDeepStrictEqual(servers[name], entry)) return text;
    servers[name] = entry;
  } else {
    if (!Object.hasOwn(servers, name)) {
      if (had === undefined) delete data[container];
      return text;
    }
    delete servers[name];
    if (Object.keys(servers).length === 0) delete data[container];
  }
  return writeJsonObject(data);
}
