import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  cliSettingsPath,
  DEFAULT_SETTINGS,
  loadCliSettings,
  readSettingsSection,
  resolveSettings,
} from "../extensions/llm-wiki/lib/settings.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const one = (section: unknown) => resolveSettings([{ label: "settings.json", section }]);

describe("resolveSettings: defaults and valid values", () => {
  it("returns the documented defaults when nothing is configured", () => {
    const { settings, diagnostics } = resolveSettings([]);
    expect(settings).toEqual({
      autoRecall: true,
      sessionPriming: true,
      recallFeedback: true,
      // The committed feedback benchmark's decision (benchmarks/feedback-baseline.json).
      feedbackRanking: false,
      retrievalMode: "adaptive",
      turnBudgetMs: 1_500,
      includePersonal: true,
      recallMaxChars: 8_000,
      // A cold CLI recall walks every page up to here (its half-second budget).
      recallWalkMaxPages: 5_000,
      models: {},
      ingestSubagent: true,
      // The sub-agents run on the session's model unless /wiki-model chose another.
      subagentModel: "session",
      captureAllowHosts: [],
      // Writes are recorded under the git author unless a name is set.
      author: "",
      // Working memory is opt-in.
      trajectories: false,
    });
    expect(diagnostics).toEqual([]);
    expect(one(undefined)).toEqual({ settings: DEFAULT_SETTINGS, diagnostics: [] });
  });

  it("applies every valid value", () => {
    const section = {
      autoRecall: false,
      sessionPriming: false,
      recallFeedback: false,
      feedbackRanking: false,
      retrievalMode: "lexical",
      turnBudgetMs: 50,
      includePersonal: false,
      recallMaxChars: 100_000,
      recallWalkMaxPages: 0,
      models: { embed: "embed.gguf", rerank: "rerank.gguf", generate: "gen.gguf" },
      ingestSubagent: false,
      // Pi's ids may hold slashes of their own.
      subagentModel: "openrouter/vendor/model-1.5",
      captureAllowHosts: ["wiki.corp", "*.corp.internal", "10.1.0.0/16", "fd00::/8"],
      author: "Ada Lovelace",
      trajectories: true,
    };
    const { settings, diagnostics } = one(section);
    expect(settings).toEqual(section);
    expect(diagnostics).toEqual([]);
  });

  it("accepts each retrieval mode", () => {
    for (const mode of ["lexical", "hybrid", "adaptive", "quality"]) {
      expect(one({ retrievalMode: mode }).settings.retrievalMode).toBe(mode);
    }
  });

  it("lets later sources win and merges model names across sources", () => {
    const { settings } = resolveSettings([
      { label: "global", section: { turnBudgetMs: 900, models: { embed: "a", rerank: "r" } } },
      { label: "project", section: { turnBudgetMs: 700, models: { embed: "b" } } },
    ]);
    expect(settings.turnBudgetMs).toBe(700);
    expect(settings.models).toEqual({ embed: "b", rerank: "r" });
  });

  it("never mutates the defaults", () => {
    one({ models: { embed: "x" }, turnBudgetMs: 100 });
    expect(DEFAULT_SETTINGS.models).toEqual({});
    expect(DEFAULT_SETTINGS.turnBudgetMs).toBe(1_500);
  });
});

describe("resolveSettings: invalid values", () => {
  const invalid: Array<[string, unknown]> = [
    ["autoRecall", "yes"],
    ["sessionPriming", "no"],
    ["recallFeedback", "off"],
    ["feedbackRanking", 1],
    ["retrievalMode", "fast"],
    ["turnBudgetMs", 49],
    ["turnBudgetMs", 60_001],
    ["turnBudgetMs", 1.5],
    ["turnBudgetMs", "1500"],
    ["includePersonal", 1],
    ["recallMaxChars", 499],
    ["recallMaxChars", null],
    ["recallWalkMaxPages", -1],
    ["recallWalkMaxPages", 2.5],
    ["recallWalkMaxPages", 10_000_001],
    ["models", { embed: "" }],
    ["models", { embedder: "x.gguf" }],
    ["models", "x.gguf"],
    ["ingestSubagent", "off"],
    ["subagentModel", "gpt-4o"],
    ["subagentModel", "/gpt-4o"],
    ["subagentModel", "openai/"],
    ["subagentModel", "openai/gpt 4o"],
    ["subagentModel", "openai/gpt\u001b[2J"],
    ["subagentModel", "open\u202eai/gpt"],
    ["subagentModel", ""],
    ["subagentModel", 4],
    ["captureAllowHosts", "10.0.0.0/8"],
    ["trajectories", "on"],
    ["captureAllowHosts", ["https://wiki.corp/"]],
  ];

  for (const [key, value] of invalid) {
    it(`drops ${key} = ${JSON.stringify(value)} with a diagnostic and keeps the default`, () => {
      // A valid neighbour in the same section must still apply.
      const neighbour = key === "autoRecall" ? "includePersonal" : "autoRecall";
      const { settings, diagnostics } = one({ [neighbour]: false, [key]: value });
      expect(settings[key as keyof typeof settings]).toEqual(
        DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS],
      );
      expect(settings[neighbour]).toBe(false);
      expect(diagnostics).toEqual([
        expect.objectContaining({ code: "settings_invalid_value", severity: "warning" }),
      ]);
      expect(diagnostics[0]?.message).toContain(`"${key}"`);
      expect(diagnostics[0]?.message).toContain("settings.json");
    });
  }

  it("keeps an earlier valid value when a later source's value is invalid", () => {
    const { settings, diagnostics } = resolveSettings([
      { label: "global", section: { retrievalMode: "hybrid" } },
      { label: "project", section: { retrievalMode: "turbo" } },
    ]);
    expect(settings.retrievalMode).toBe("hybrid");
    expect(diagnostics.map((d) => d.code)).toEqual(["settings_invalid_value"]);
  });

  it("ignores an unknown key with a diagnostic naming it", () => {
    const { settings, diagnostics } = one({ autoRecal: false });
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: "settings_unknown_key", severity: "warning" }),
    ]);
    expect(diagnostics[0]?.message).toContain('"autoRecal"');
  });

  it("treats names inherited from Object.prototype as unknown keys, not settings", () => {
    const section = JSON.parse(
      '{"constructor": 1, "toString": "x", "__proto__": {"autoRecall": false}}',
    );
    const { settings, diagnostics } = one(section);
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(Object.keys(settings).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
    expect(diagnostics.map((d) => d.code)).toEqual([
      "settings_unknown_key",
      "settings_unknown_key",
      "settings_unknown_key",
    ]);
  });

  it("drops a section that is not an object", () => {
    for (const section of [null, 3, "adaptive", [true]]) {
      const { settings, diagnostics } = one(section);
      expect(settings).toEqual(DEFAULT_SETTINGS);
      expect(diagnostics.map((d) => d.code)).toEqual(["settings_invalid"]);
    }
  });
});

describe("settings files", () => {
  function settingsFile(text: string): string {
    const path = join(makeTempDir(), "settings.json");
    writeFileSync(path, text);
    return path;
  }

  it("reads the llm-wiki section and ignores other tools' sections", () => {
    const path = settingsFile(JSON.stringify({ theme: "dark", "llm-wiki": { autoRecall: false } }));
    expect(readSettingsSection(path)).toEqual({ section: { autoRecall: false }, diagnostics: [] });
  });

  it("treats a missing file as no settings, silently", () => {
    expect(readSettingsSection(join(makeTempDir(), "absent.json"))).toEqual({
      section: undefined,
      diagnostics: [],
    });
  });

  it("reports invalid JSON with the file path and applies the defaults", () => {
    const path = settingsFile('{"llm-wiki": {autoRecall: false');
    const read = readSettingsSection(path);
    expect(read.section).toBeUndefined();
    expect(read.diagnostics).toEqual([
      expect.objectContaining({ code: "settings_invalid", severity: "warning" }),
    ]);
    expect(read.diagnostics[0]?.message).toContain(path);
    const loaded = loadCliSettings({ LLM_WIKI_SETTINGS: path });
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.diagnostics.map((d) => d.code)).toEqual(["settings_invalid"]);
  });

  it("reports a JSON file that is not an object", () => {
    const read = readSettingsSection(settingsFile("[1, 2]"));
    expect(read.diagnostics.map((d) => d.code)).toEqual(["settings_invalid"]);
  });

  it("finds the CLI settings file from $LLM_WIKI_SETTINGS, then XDG_CONFIG_HOME, then HOME", () => {
    expect(
      cliSettingsPath({ LLM_WIKI_SETTINGS: "/x/s.json", XDG_CONFIG_HOME: "/c", HOME: "/h" }),
    ).toBe("/x/s.json");
    expect(cliSettingsPath({ XDG_CONFIG_HOME: "/c", HOME: "/h" })).toBe(
      join("/c", "llm-wiki", "settings.json"),
    );
    expect(cliSettingsPath({ HOME: "/h" })).toBe(
      join("/h", ".config", "llm-wiki", "settings.json"),
    );
  });

  it("loads valid values and reports invalid ones from the CLI settings file", () => {
    const home = makeTempDir();
    mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
    writeFileSync(
      join(home, ".config", "llm-wiki", "settings.json"),
      JSON.stringify({ "llm-wiki": { retrievalMode: "quality", turnBudgetMs: -5 } }),
    );
    const { settings, diagnostics } = loadCliSettings({ HOME: home });
    expect(settings.retrievalMode).toBe("quality");
    expect(settings.turnBudgetMs).toBe(1_500);
    expect(diagnostics.map((d) => d.code)).toEqual(["settings_invalid_value"]);
  });
});
