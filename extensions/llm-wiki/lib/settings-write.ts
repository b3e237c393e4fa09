/**
 * Writing one `llm-wiki` setting into a JSON settings file (Pi's project
 * `.pi/settings.json`, the CLI's settings file): every other key, in and
 * out of the namespace, is kept; a file that is not a JSON object is never
 * replaced (a diagnostic says so); the write is atomic. Nothing is read or
 * written through a symbolic link: a repository may commit `.pi` as a link
 * to the user's `~/.pi/agent`, and a project setting must never rewrite the
 * user's global settings (`write_through_link`, naming the link).
 */
import { readFileSync } from "node:fs";
import { Value } from "typebox/value";
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "./diagnostics.ts";
import { SETTING_SCHEMAS, SETTINGS_NAMESPACE } from "./settings.ts";
import { linkOnTheWay, writeFileAtomic, writeThroughLinkError } from "./vault/fs-safe.ts";

export interface SettingWriteResult {
  ok: boolean;
  path: string;
  diagnostics: Diagnostic[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Why `value` is not a valid `key` setting, in its schema's words (the check
 * a settings file gets when it is read), or undefined when it is valid.
 */
export function settingProblem(key: string, value: unknown): string | undefined {
  if (!Object.hasOwn(SETTING_SCHEMAS, key)) return `"${key}" is not a setting`;
  const schema = SETTING_SCHEMAS[key as keyof typeof SETTING_SCHEMAS];
  if (Value.Check(schema, value)) return undefined;
  const errors = Value.Errors(schema, value);
  // A union of literals reports one "must be equal to constant" per literal: name them instead.
  const allowed = errors.flatMap((e) => (e.keyword === "const" ? [e.params.allowedValue] : []));
  if (allowed.length > 0) return `${key} must be one of ${allowed.join(", ")}`;
  const first = errors[0];
  return `${key}${first?.instancePath ?? ""} ${first?.message ?? "is not valid"}`;
}

/**
 * Sets `llm-wiki.<key>` to `value` in the file at `path` (created when
 * absent); `undefined` removes the key, so the next file or the default
 * applies. `within` is the folder the file belongs to (a project's root for
 * its `.pi/settings.json`): a link below it on the way, or at the file, is
 * refused before anything is read.
 */
export function writeSetting(
  path: string,
  key: string,
  value: unknown,
  within?: string,
): SettingWriteResult {
  const link = linkOnTheWay(path, within);
  if (link !== undefined) {
    return { ok: false, path, diagnostics: [writeThroughLinkError(path, link).diagnostic] };
  }
  let data: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      return refuse(path, `cannot read it (${errorMessage(error)})`);
    }
  }
  if (text !== undefined && text.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return refuse(path, `it is not valid JSON (${errorMessage(error)})`);
    }
    if (!isObject(parsed)) return refuse(path, "it is not a JSON object");
    data = parsed;
  }
  const section = data[SETTINGS_NAMESPACE];
  if (section !== undefined && !isObject(section)) {
    return refuse(path, `its "${SETTINGS_NAMESPACE}" entry is not an object`);
  }
  data[SETTINGS_NAMESPACE] = { ...(section ?? {}), [key]: value };
  try {
    writeFileAtomic(path, `${JSON.stringify(data, null, 2)}\n`, within);
  } catch (error) {
    // A link made meanwhile: its own diagnostic.
    if (error instanceof WikiError) return { ok: false, path, diagnostics: [error.diagnostic] };
    return refuse(path, `it cannot be written (${errorMessage(error)})`);
  }
  return { ok: true, path, diagnostics: [] };
}

function refuse(path: string, why: string): SettingWriteResult {
  return {
    ok: false,
    path,
    diagnostics: [
      diagnostic("settings_not_written", "error", `${path} was left unchanged: ${why}`),
    ],
  };
}
