/**
 * What `/wiki-settings` shows and changes. Every `llm-wiki` setting is one
 * row (each model of `models` its own row) holding the value this session's
 * settings files resolve to and where it comes from: the built-in default,
 * Pi's global settings file, or the project (the extension's own file for
 * it, and the project's `.pi/settings.json` in a trusted project). A change
 * is one validated write into the chosen scope's file through
 * `writeSetting`, which keeps every other key; a project change goes to the
 * extension's own file, which Pi does not gate behind project trust.
 */
import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { type TSchema, Type } from "typebox";
import type { Diagnostic } from "../lib/diagnostics.ts";
import { piLegacyProjectSettingsPath, piProjectSettingsPath } from "../lib/pi-settings-files.ts";
import { renderDiagnostics } from "../lib/render-text.ts";
import { neutraliseLine } from "../lib/safety/text.ts";
import { readSettingsSection, SETTING_SCHEMAS, type WikiSettings } from "../lib/settings.ts";
import { settingProblem, writeSetting } from "../lib/settings-write.ts";
import { loadPiSettings } from "./settings.ts";

export type SettingScope = "project" | "global";
export type SettingSource = "default" | SettingScope;
export type SettingKey = keyof WikiSettings;

/** How a row is changed: cycled through `choices`, or typed (a number, a text, a list). */
export type SettingKind = "choice" | "integer" | "text" | "list";

/** The two files a change can go to, and Pi's project file, read only in a trusted project. */
export interface SettingFiles {
  /** The extension's own file for this project (read whatever the project's trust). */
  project: string;
  /** The project's `.pi/settings.json`: settings written there before. */
  piProject: string;
  global: string;
  cwd: string;
  agentDir: string;
  projectTrusted: boolean;
}

/** One row of the screen or the printed list; `value` is one line, safe to print. */
export interface SettingRow {
  /** The key, or `models.<role>` for one model. */
  id: string;
  key: SettingKey;
  kind: SettingKind;
  choices: readonly string[];
  value: string;
  source: SettingSource;
  about: string;
  /** Whether a change reaches the running session at once (else at /reload). */
  live: boolean;
}

export interface SettingsSnapshot {
  rows: SettingRow[];
  /** Problems with the files as the host reads them (invalid JSON, values dropped). */
  diagnostics: Diagnostic[];
}

export interface ChangeResult {
  ok: boolean;
  /** What happened, one or two lines, safe to print. */
  message: string;
  key?: SettingKey;
}

/** What each setting does; `live` only where the session re-reads it (the others are read at start). */
const ABOUT: Record<SettingKey, { about: string; live?: true }> = {
  autoRecall: { about: "automatic recall on every user turn" },
  sessionPriming: { about: "the first turn recalls what the session is about" },
  recallFeedback: { about: "record what became of recalled pages (shown, opened, cited)" },
  feedbackRanking: { about: "recorded feedback moves a page's score by at most ±2 %" },
  retrievalMode: { about: "how recall ranks: lexical, hybrid, adaptive or quality" },
  turnBudgetMs: { about: "wall-clock bound of automatic recall, in ms (50–60000)" },
  includePersonal: { about: "explicit recall also searches the personal vault" },
  recallMaxChars: { about: "character budget of the recall block (500–100000)" },
  recallWalkMaxPages: {
    about: "CLI recall looks for outside edits in every page up to this many pages (0–10000000)",
  },
  models: { about: "model for this role: an absolute GGUF path or an hf: URI; empty clears" },
  ingestSubagent: { about: "wiki_ingest writes pages with a sub-agent of the session's model" },
  subagentModel: {
    about: "model of the ingest and distill sub-agents: provider/id, or session (see /wiki-model)",
    live: true,
  },
  captureAllowHosts: {
    about: "internal hosts a URL capture may fetch: names, *.suffix, addresses, CIDR ranges",
  },
  author: { about: "name your writes are recorded under; empty: the git author (user.name)" },
  trajectories: {
    about: "working memory: trajectory capture, distilled skills, skill recall",
    live: true,
  },
};

const BOOLEAN_CHOICES = ["true", "false"] as const;
const NOT_SET = "(not set)";

/** The files of this session: the extension's for the project, Pi's project one, Pi's global one. */
export function settingFiles(
  ctx: { cwd: string; isProjectTrusted(): boolean },
  agentDir: string = getAgentDir(),
): SettingFiles {
  return {
    project: piProjectSettingsPath(agentDir, ctx.cwd),
    piProject: piLegacyProjectSettingsPath(ctx.cwd),
    global: join(agentDir, "settings.json"),
    cwd: ctx.cwd,
    agentDir,
    projectTrusted: ctx.isProjectTrusted(),
  };
}

interface RowShape {
  id: string;
  key: SettingKey;
  kind: SettingKind;
  choices: readonly string[];
  /** `models.<role>`: the role. */
  role?: string;
}

/** The rows, derived from the schemas so that a new setting appears without a change here. */
function rowShapes(): RowShape[] {
  return (Object.keys(SETTING_SCHEMAS) as SettingKey[]).flatMap((key): RowShape[] => {
    const schema: TSchema = SETTING_SCHEMAS[key];
    if (Type.IsBoolean(schema)) return [{ id: key, key, kind: "choice", choices: BOOLEAN_CHOICES }];
    if (Type.IsUnion(schema) && schema.anyOf.every((s) => Type.IsLiteral(s))) {
      const choices = schema.anyOf.map((s) => String(s.const));
      return [{ id: key, key, kind: "choice", choices }];
    }
    if (Type.IsInteger(schema)) return [{ id: key, key, kind: "integer", choices: [] }];
    if (Type.IsArray(schema)) return [{ id: key, key, kind: "list", choices: [] }];
    if (Type.IsObject(schema)) {
      return Object.keys(schema.properties).map((role) => ({
        id: `${key}.${role}`,
        key,
        kind: "text" as const,
        choices: [],
        role,
      }));
    }
    return [{ id: key, key, kind: "text", choices: [] }];
  });
}

/** Every row id, in screen order. */
export function settingIds(): string[] {
  return rowShapes().map((s) => s.id);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The valid value a section holds for a row, or undefined (absent or invalid, as the host reads it). */
function heldValue(section: unknown, shape: RowShape): unknown {
  if (!isObject(section) || !Object.hasOwn(section, shape.key)) return undefined;
  const value = section[shape.key];
  if (settingProblem(shape.key, value) !== undefined) return undefined;
  if (shape.role === undefined) return value;
  return isObject(value) && Object.hasOwn(value, shape.role) ? value[shape.role] : undefined;
}

function display(value: unknown): string {
  if (value === undefined) return NOT_SET;
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : neutraliseLine(value.join(", "));
  return neutraliseLine(String(value)) || NOT_SET;
}

/** The sections as the host reads them: the project's own file, then Pi's project file (trusted only). */
function sections(files: SettingFiles): { global: unknown; project: unknown[] } {
  return {
    global: readSettingsSection(files.global).section,
    project: [
      readSettingsSection(files.project).section,
      files.projectTrusted ? readSettingsSection(files.piProject).section : undefined,
    ],
  };
}

/** The rows as the host would resolve them now, with the files' problems. */
export function readSettingsSnapshot(files: SettingFiles): SettingsSnapshot {
  // The same read as the host's, so the screen shows what the session gets.
  const { settings, diagnostics } = loadPiSettings({
    cwd: files.cwd,
    projectTrusted: files.projectTrusted,
    agentDir: files.agentDir,
  });
  const held = sections(files);
  const rows = rowShapes().map((shape): SettingRow => {
    const source: SettingSource = held.project.some(
      (section) => heldValue(section, shape) !== undefined,
    )
      ? "project"
      : heldValue(held.global, shape) !== undefined
        ? "global"
        : "default";
    const resolved: unknown = settings[shape.key];
    const value =
      shape.role === undefined ? resolved : (resolved as Record<string, unknown>)[shape.role];
    const about = ABOUT[shape.key];
    return {
      ...shape,
      value: display(value),
      source,
      about: about.about,
      live: about.live === true,
    };
  });
  return { rows, diagnostics };
}

/** A typed value for a row: the schema decides whether it is valid. */
function parse(shape: RowShape, raw: string): unknown {
  const text = raw.trim();
  if (shape.kind === "list") return text.split(/[\s,]+/).filter((s) => s !== "");
  if (shape.kind === "text") return text;
  if (shape.choices === BOOLEAN_CHOICES && (text === "true" || text === "false")) {
    return text === "true";
  }
  // Anything but a plain number stays text, and the schema names what it wanted.
  if (shape.kind === "integer" && /^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) return Number(text);
  return text;
}

/**
 * Sets one row in `scope`'s file from the text the user gave (`""` removes
 * the scope's value, so the other file or the default applies). An invalid
 * value is refused with the schema's words and nothing is written.
 */
export function changeSetting(
  files: SettingFiles,
  scope: SettingScope,
  id: string,
  raw: string,
): ChangeResult {
  const shape = rowShapes().find((s) => s.id === id);
  if (!shape) {
    return {
      ok: false,
      message: `"${neutraliseLine(id)}" is not a setting; one of: ${settingIds().join(", ")}`,
    };
  }
  const path = files[scope];
  const section = readSettingsSection(path).section;
  const remove = raw.trim() === "";
  if (remove) {
    // A value left in Pi's project file would still apply: it goes too.
    const legacy =
      scope === "project" && files.projectTrusted
        ? removeLegacy(files, shape)
        : { held: false, message: undefined };
    if (legacy.message !== undefined) return { ok: false, message: legacy.message, key: shape.key };
    if (heldValue(section, shape) === undefined) {
      if (legacy.held) return removed(files, scope, id, shape, files.piProject);
      return { ok: false, message: `${id} has no ${scope} value to remove`, key: shape.key };
    }
  }
  let value: unknown = remove ? undefined : parse(shape, raw);
  if (shape.role !== undefined) {
    // One model of `models`: the file's other models stay (an invalid `models` is replaced).
    const held = heldValue(section, { ...shape, role: undefined });
    const models: Record<string, unknown> = { ...(isObject(held) ? held : {}) };
    if (value === undefined) delete models[shape.role];
    else models[shape.role] = value;
    value = Object.keys(models).length > 0 ? models : undefined;
  }
  const problem = value === undefined ? undefined : settingProblem(shape.key, value);
  if (problem !== undefined) {
    return {
      ok: false,
      message: `not written: ${neutraliseLine(problem)}`,
      key: shape.key,
    };
  }
  // The project's file within the agent folder (no link on the way); the global one as it is.
  const written = writeSetting(
    path,
    shape.key,
    value,
    scope === "project" ? files.agentDir : undefined,
  );
  if (!written.ok) {
    return { ok: false, message: renderDiagnostics(written.diagnostics), key: shape.key };
  }
  if (remove) return removed(files, scope, id, shape, path);
  const now = readSettingsSnapshot(files).rows.find((r) => r.id === id);
  const where = `${scope} settings (${neutraliseLine(path)})`;
  const effect = ABOUT[shape.key].live ? "applies now" : "applies after /reload";
  const shadow =
    now && now.source !== scope ? `; the ${now.source} value ${now.value} still applies here` : "";
  return {
    ok: true,
    message: `${id} = ${display(parse(shape, raw))} written to ${where}, ${effect}${shadow}`,
    key: shape.key,
  };
}

/** What a removal left: the value that applies now, and where it comes from. */
function removed(
  files: SettingFiles,
  scope: SettingScope,
  id: string,
  shape: RowShape,
  path: string,
): ChangeResult {
  const now = readSettingsSnapshot(files).rows.find((r) => r.id === id);
  const effect = ABOUT[shape.key].live ? "applies now" : "applies after /reload";
  const then = now ? `; now ${now.value} (${now.source})` : "";
  const where = `${scope} settings (${neutraliseLine(path)})`;
  return { ok: true, message: `${id} removed from ${where}${then}, ${effect}`, key: shape.key };
}

/**
 * Removes a row's value from Pi's project file when it holds one (within the
 * project: a committed `.pi` link is refused); `message` says why it could not.
 */
function removeLegacy(
  files: SettingFiles,
  shape: RowShape,
): { held: boolean; message: string | undefined } {
  const section = readSettingsSection(files.piProject).section;
  if (heldValue(section, shape) === undefined) return { held: false, message: undefined };
  let value: unknown;
  if (shape.role !== undefined) {
    const held = heldValue(section, { ...shape, role: undefined });
    const models: Record<string, unknown> = { ...(isObject(held) ? held : {}) };
    delete models[shape.role];
    value = Object.keys(models).length > 0 ? models : undefined;
  }
  const written = writeSetting(files.piProject, shape.key, value, files.cwd);
  return {
    held: true,
    message: written.ok ? undefined : renderDiagnostics(written.diagnostics),
  };
}

/** The rows as aligned text: id, source, value. */
export function settingsTable(rows: readonly SettingRow[]): string[] {
  const width = Math.max(...rows.map((r) => r.id.length));
  return rows.map((r) => `${r.id.padEnd(width)}  ${r.source.padEnd(7)}  ${r.value}`);
}
