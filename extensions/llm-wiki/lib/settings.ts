/**
 * Host settings, in an `llm-wiki` namespace: Pi's settings files for the
 * extension, a settings file for the MCP server and the CLI. Each key is
 * validated on its own; an invalid value is dropped with a diagnostic and
 * its default applies, so a typo never crashes a host or disables recall.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type Static, type TLiteral, type TSchema, type TUnion, Type } from "typebox";
import { Value } from "typebox/value";
import { type Diagnostic, diagnostic, errorMessage } from "./diagnostics.ts";

export const SETTINGS_NAMESPACE = "llm-wiki";

export const RETRIEVAL_MODES = ["lexical", "hybrid", "adaptive", "quality"] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

type LiteralsOf<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/**
 * A union of the literals of a constant list (`anyOf` of `const`s), typed
 * as precisely as one written out literal by literal.
 */
export function literalUnion<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnion<LiteralsOf<T>> {
  // `map` keeps the tuple's length and order; only its type is lost on the way.
  const literals = values.map((v) => Type.Literal(v));
  return Type.Union(literals, options) as unknown as TUnion<LiteralsOf<T>>;
}

const ModelsSchema = Type.Object(
  {
    embed: Type.Optional(Type.String({ minLength: 1 })),
    rerank: Type.Optional(Type.String({ minLength: 1 })),
    generate: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/**
 * Internal hosts a URL capture may fetch: host names (`wiki.corp`), `*.suffix`
 * patterns and addresses or CIDR ranges (`10.1.0.0/16`, `fd00::/8`).
 */
const CaptureAllowHostsSchema = Type.Array(
  Type.String({
    minLength: 1,
    maxLength: 253,
    pattern:
      "^(\\*\\.)?[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.?$|^\\[?[0-9A-Fa-f:.]+\\]?(/[0-9]{1,3})?$",
  }),
  { maxItems: 1000 },
);

/**
 * The model of Pi's ingest and distill sub-agents: `session` (the session's
 * own), or `provider/id` as Pi's model registry names it (the id may hold
 * more slashes). One visible line: no space, control or bidi character.
 */
const SubagentModelSchema = Type.String({
  minLength: 1,
  maxLength: 300,
  pattern:
    "^(session|[^\\s/\\x00-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]+/[^\\s\\x00-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]+)$",
});

/**
 * The name writes are recorded under (events' `by`, pages' `author`);
 * empty: the git author of the vault's repository, else the account name.
 * One visible line.
 */
const AuthorSchema = Type.String({
  maxLength: 120,
  pattern: "^[^\\x00-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]*$",
});

/** Each setting's schema; the defaults live in DEFAULT_SETTINGS. */
export const SETTING_SCHEMAS = {
  autoRecall: Type.Boolean(),
  sessionPriming: Type.Boolean(),
  recallFeedback: Type.Boolean(),
  feedbackRanking: Type.Boolean(),
  retrievalMode: literalUnion(RETRIEVAL_MODES),
  turnBudgetMs: Type.Integer({ minimum: 50, maximum: 60_000 }),
  includePersonal: Type.Boolean(),
  recallMaxChars: Type.Integer({ minimum: 500, maximum: 100_000 }),
  recallWalkMaxPages: Type.Integer({ minimum: 0, maximum: 10_000_000 }),
  models: ModelsSchema,
  ingestSubagent: Type.Boolean(),
  subagentModel: SubagentModelSchema,
  captureAllowHosts: CaptureAllowHostsSchema,
  author: AuthorSchema,
  trajectories: Type.Boolean(),
} satisfies Record<string, TSchema>;

type SchemaMap = typeof SETTING_SCHEMAS;
/** Resolved host settings. */
export type WikiSettings = { [K in keyof SchemaMap]: Static<SchemaMap[K]> };

export const DEFAULT_SETTINGS: Readonly<WikiSettings> = Object.freeze({
  autoRecall: true,
  sessionPriming: true,
  // Implicit capture (shown, opened, cited, shown_only); explicit judgments are always kept.
  recallFeedback: true,
  // Feedback in ranking: the committed feedback benchmark's decision (benchmarks/feedback-baseline.json).
  feedbackRanking: false,
  retrievalMode: "adaptive",
  turnBudgetMs: 1_500,
  includePersonal: true,
  recallMaxChars: 8_000,
  // A cold command-line recall walks every page (a stat each, and the
  // registry loaded whole) only where that stays within its half-second
  // budget: about 0.45 s at 5k pages, 0.7 s at 10k, 4 s at 100k.
  recallWalkMaxPages: 5_000,
  models: {},
  ingestSubagent: true,
  subagentModel: "session",
  captureAllowHosts: [],
  // Writes are recorded under the git author unless a name is set here.
  author: "",
  // Working memory (trajectory capture, distilling, skill recall) is opt-in.
  trajectories: false,
});

/**
 * Merges `llm-wiki` sections, later sources winning, and validates each key.
 * `sources` are `{ label, section }` pairs; the label names the file in diagnostics.
 */
export function resolveSettings(sources: Array<{ label: string; section: unknown }>): {
  settings: WikiSettings;
  diagnostics: Diagnostic[];
} {
  const settings: WikiSettings = { ...DEFAULT_SETTINGS, models: {} };
  const diagnostics: Diagnostic[] = [];
  for (const { label, section } of sources) {
    if (section === undefined) continue;
    if (section === null || typeof section !== "object" || Array.isArray(section)) {
      diagnostics.push(
        diagnostic(
          "settings_invalid",
          "warning",
          `${label}: "${SETTINGS_NAMESPACE}" must be an object`,
        ),
      );
      continue;
    }
    for (const [key, value] of Object.entries(section as Record<string, unknown>)) {
      // hasOwn, not `in`: "constructor" or "__proto__" must not pass for a setting.
      if (!Object.hasOwn(SETTING_SCHEMAS, key)) {
        diagnostics.push(
          diagnostic(
            "settings_unknown_key",
            "warning",
            `${label}: unknown setting "${key}" ignored`,
          ),
        );
        continue;
      }
      const schema = SETTING_SCHEMAS[key as keyof SchemaMap];
      if (!Value.Check(schema, value)) {
        diagnostics.push(
          diagnostic(
            "settings_invalid_value",
            "warning",
            `${label}: invalid value ${JSON.stringify(value)} for "${key}"; using the default ${JSON.stringify(DEFAULT_SETTINGS[key as keyof SchemaMap])}`,
          ),
        );
        continue;
      }
      Object.assign(settings, {
        [key]: key === "models" ? { ...settings.models, ...(value as object) } : value,
      });
    }
  }
  return { settings, diagnostics };
}

/** Reads the `llm-wiki` section of a JSON settings file; absent file → undefined section. */
export function readSettingsSection(path: string): { section: unknown; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { section: undefined, diagnostics: [] };
  }
  try {
    const data = JSON.parse(text) as unknown;
    if (data && typeof data === "object" && !Array.isArray(data)) {
      return { section: (data as Record<string, unknown>)[SETTINGS_NAMESPACE], diagnostics: [] };
    }
    return {
      section: undefined,
      diagnostics: [
        diagnostic("settings_invalid", "warning", `${path}: not a JSON object; ignored`),
      ],
    };
  } catch (error) {
    return {
      section: undefined,
      diagnostics: [
        diagnostic(
          "settings_invalid",
          "warning",
          `${path}: invalid JSON (${errorMessage(error)}); ignored`,
        ),
      ],
    };
  }
}

/** The settings file the CLI and MCP server read: `$LLM_WIKI_SETTINGS`, else the XDG config folder. */
export function cliSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LLM_WIKI_SETTINGS) return env.LLM_WIKI_SETTINGS;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "llm-wiki", "settings.json");
}

/** Settings for the CLI and MCP hosts, from their settings file. */
export function loadCliSettings(env: NodeJS.ProcessEnv = process.env): {
  settings: WikiSettings;
  diagnostics: Diagnostic[];
} {
  const path = cliSettingsPath(env);
  const read = readSettingsSection(path);
  const resolved = resolveSettings([{ label: path, section: read.section }]);
  return {
    settings: resolved.settings,
    diagnostics: [...read.diagnostics, ...resolved.diagnostics],
  };
}
