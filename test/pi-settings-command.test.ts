/**
 * `/wiki-settings`: every `llm-wiki` setting on one screen of Pi's
 * components, with the value the session resolves and where it comes from
 * (default, Pi's global settings, the project: the extension's own file for
 * it, and the project's `.pi/settings.json` when the project is trusted).
 * Choices cycle and are written at once to the chosen scope's file, keeping
 * every other key and namespace; typed values go through the schema, and an
 * invalid one is refused in the schema's words with nothing written. A
 * settings file that is malformed, of the wrong shape or full of control
 * bytes is named in a diagnostic, never replaced, and none of its bytes
 * reach the screen raw. Without a screen the list is a notice and
 * `set`/`unset` change one key. Driven through a real Pi session with the
 * faux model and through the screen component itself.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type {
  ExtensionCommandContext,
  ExtensionUIContext,
  Theme,
} from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { piProjectSettingsPath } from "../extensions/llm-wiki/lib/pi-settings-files.ts";
import { createCommandOutput } from "../extensions/llm-wiki/pi/command-output.ts";
import { createSettingsCommand, settingsText } from "../extensions/llm-wiki/pi/settings-command.ts";
import { SettingsScreen } from "../extensions/llm-wiki/pi/settings-screen.ts";
import {
  changeSetting,
  type SettingScope,
  settingFiles,
  settingIds,
} from "../extensions/llm-wiki/pi/settings-state.ts";
import type { WorkingMemory } from "../extensions/llm-wiki/pi/working-memory.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";
import { recordScreens } from "./helpers/pi-screens.ts";
import { piPerTest } from "./helpers/pi-session.ts";

const fixture = piPerTest("llm-wiki-settings-");

const WIDTH = 140;
const DOWN = "\u001b[B";
const UP = "\u001b[A";
const ENTER = "\r";
const ESC = "\u001b";
const BACKSPACE = "\u007f";
const TRAJECTORY_TOOLS = ["wiki_capture_trajectory", "wiki_distill_skills", "wiki_recall_skill"];
/** Row positions on the screen: the scope row first, then the settings in schema order. */
const ROW = (id: string): number => settingIds().indexOf(id) + 1;
/** A raw control byte, escape sequence piece, bidi control or line separator. */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/;

// Colourless stand-in for Pi's theme: the lines under test hold only what the screen wrote.
const PLAIN = {
  fg: (_color: string, text: string) => text,
  bold: (text: string) => text,
} as unknown as Theme;

/** The extension's own file for the project, where project changes go. */
const projectFile = () => piProjectSettingsPath(fixture.dirs.agentDir, fixture.dirs.project);
/** Pi's project settings file: read in a trusted project, for settings written there before. */
const piProjectFile = () => join(fixture.dirs.project, ".pi", "settings.json");
const globalFile = () => join(fixture.dirs.agentDir, "settings.json");

function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Settings written the way `writeSetting` writes them, so an edit can be compared byte for byte. */
function writeJson(path: string, data: unknown): string {
  const text = `${JSON.stringify(data, null, 2)}\n`;
  writeText(path, text);
  return text;
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

/** `recordScreens`, handing the command a colourless theme instead of none. */
function plainScreens() {
  const screens = recordScreens(WIDTH);
  const base = screens.ui.custom;
  if (!base) throw new Error("recordScreens has no custom()");
  const custom = ((factory, options) =>
    base(
      (tui, _theme, keybindings, done) => factory(tui, PLAIN, keybindings, done),
      options,
    )) as ExtensionUIContext["custom"];
  return { ...screens, ui: { custom } };
}

/** The screen's text as one line: Pi's Text wraps long messages at spaces. */
function flat(lines: readonly string[]): string {
  return lines.map((l) => l.trim()).join(" ");
}

/** The cells of a setting's row: [id, source, value] (the scope row: ["write to", scope]). */
function row(lines: readonly string[], id: string): string[] {
  const line = lines.find((l) => l.replace(/^(→ | {2})/, "").startsWith(`${id} `));
  if (line === undefined) throw new Error(`no row ${id} in:\n${lines.join("\n")}`);
  return line
    .replace(/^(→ | {2})/, "")
    .trim()
    .split(/\s{2,}/);
}

/** The screen component on this test's folders, keys fed straight in. */
function openScreen(options: { trusted?: boolean; scope?: SettingScope } = {}) {
  const files = settingFiles(
    { cwd: fixture.dirs.project, isProjectTrusted: () => options.trusted ?? true },
    fixture.dirs.agentDir,
  );
  let closed = false;
  const screen = new SettingsScreen({
    files,
    scope: options.scope ?? "project",
    theme: PLAIN,
    change: (scope, id, raw) => changeSetting(files, scope, id, raw),
    close: () => {
      closed = true;
    },
    requestRender: () => undefined,
  });
  return {
    lines: () => [...screen.render(WIDTH)],
    keys(...keys: string[]) {
      for (const key of keys) screen.handleInput(key);
    },
    type(text: string) {
      for (const char of text) screen.handleInput(char);
    },
    closed: () => closed,
  };
}

describe("/wiki-settings in a Pi session", () => {
  it("lists every setting with its effective value and where it comes from, and Esc closes it", async () => {
    writeJson(globalFile(), { "llm-wiki": { retrievalMode: "hybrid", turnBudgetMs: 700 } });
    writeJson(projectFile(), {
      "llm-wiki": { turnBudgetMs: 900, models: { embed: "hf:a/b/e.gguf" } },
    });
    const screens = plainScreens();
    const pi = await fixture.start({ ui: screens.ui });
    await pi.session.prompt("/wiki-settings");
    const lines = screens.screens[0]?.lines ?? [];
    expect(lines.join("\n")).toContain("llm-wiki settings");
    expect(row(lines, "write to")).toEqual(["write to", "project"]);
    for (const id of settingIds()) expect(row(lines, id)).toHaveLength(3);
    expect(row(lines, "autoRecall")).toEqual(["autoRecall", "default", "true"]);
    expect(row(lines, "trajectories")).toEqual(["trajectories", "default", "false"]);
    expect(row(lines, "retrievalMode")).toEqual(["retrievalMode", "global", "hybrid"]);
    // The project wins over the global file, as in the session's own read.
    expect(row(lines, "turnBudgetMs")).toEqual(["turnBudgetMs", "project", "900"]);
    expect(row(lines, "models.embed")).toEqual(["models.embed", "project", "hf:a/b/e.gguf"]);
    expect(row(lines, "models.rerank")).toEqual(["models.rerank", "default", "(not set)"]);
    expect(row(lines, "captureAllowHosts")).toEqual(["captureAllowHosts", "default", "(none)"]);
    expect(screens.screens[0]?.after).toHaveLength(1);
    expect(pi.requests).toEqual([]);
  });

  it("cycling a boolean writes the project file at once and keeps every other key and namespace", async () => {
    const before = {
      theme: "dark",
      "other-extension": { nested: [1, "two", { three: null }] },
      "llm-wiki": { turnBudgetMs: 900, futureKey: { kept: true } },
    };
    writeJson(projectFile(), before);
    const screens = plainScreens();
    const pi = await fixture.start({ ui: screens.ui });
    screens.keys(DOWN, ENTER, ESC);
    await pi.session.prompt("/wiki-settings");
    const expected = {
      ...before,
      "llm-wiki": { ...before["llm-wiki"], autoRecall: false },
    };
    expect(readFileSync(projectFile(), "utf8")).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    expect(existsSync(globalFile())).toBe(false);
    const after = screens.screens[0]?.after[1] ?? [];
    expect(row(after, "autoRecall")).toEqual(["autoRecall", "project", "false"]);
    const text = flat(after);
    expect(text).toContain("autoRecall = false written to project settings");
    // The session read its settings at start: this key is honest about when it applies.
    expect(text).toContain("applies after /reload");
  });

  it("`global` writes Pi's global settings file and leaves the project's alone", async () => {
    writeJson(globalFile(), { defaultProvider: "faux", "llm-wiki": { autoRecall: false } });
    const screens = plainScreens();
    const pi = await fixture.start({ ui: screens.ui });
    const down = Array.from({ length: ROW("retrievalMode") }, () => DOWN);
    screens.keys(...down, ENTER, ESC);
    await pi.session.prompt("/wiki-settings global");
    expect(readJson(globalFile())).toEqual({
      defaultProvider: "faux",
      "llm-wiki": { autoRecall: false, retrievalMode: "quality" },
    });
    expect(existsSync(projectFile())).toBe(false);
    const first = screens.screens[0]?.lines ?? [];
    expect(row(first, "write to")).toEqual(["write to", "global"]);
    expect(row(first, "autoRecall")).toEqual(["autoRecall", "global", "false"]);
    const after = screens.screens[0]?.after.at(-2) ?? [];
    expect(row(after, "retrievalMode")).toEqual(["retrievalMode", "global", "quality"]);
  });

  it("turning trajectories on from the screen adds the working-memory tools in this session", async () => {
    const screens = plainScreens();
    const pi = await fixture.start({ ui: screens.ui });
    for (const name of TRAJECTORY_TOOLS)
      expect(pi.session.getActiveToolNames()).not.toContain(name);
    // Up from the first row wraps to the last one, trajectories.
    expect(ROW("trajectories")).toBe(settingIds().length);
    screens.keys(UP, ENTER, ESC);
    await pi.session.prompt("/wiki-settings");
    expect(readJson(projectFile())).toEqual({ "llm-wiki": { trajectories: true } });
    for (const name of TRAJECTORY_TOOLS) expect(pi.session.getActiveToolNames()).toContain(name);
    expect(flat(screens.screens[0]?.after[1] ?? [])).toContain("applies now");
  });

  it("`set` and `unset` change one key without a screen; an invalid value is refused and nothing written", async () => {
    const original = writeJson(projectFile(), { "llm-wiki": { turnBudgetMs: 900 } });
    const pi = await fixture.start();
    await pi.session.prompt("/wiki-settings set turnBudgetMs 10");
    expect(pi.notices.at(-1)).toEqual({
      message: "llm-wiki: not written: turnBudgetMs must be >= 50",
      type: "warning",
    });
    await pi.session.prompt("/wiki-settings set retrievalMode fastest");
    expect(pi.notices.at(-1)?.message).toBe(
      "llm-wiki: not written: retrievalMode must be one of lexical, hybrid, adaptive, quality",
    );
    await pi.session.prompt("/wiki-settings set noSuchKey 1");
    expect(pi.notices.at(-1)?.message).toContain(
      '"noSuchKey" is not a setting; one of: autoRecall',
    );
    expect(readFileSync(projectFile(), "utf8")).toBe(original);

    await pi.session.prompt("/wiki-settings set captureAllowHosts wiki.corp, 10.1.0.0/16 --global");
    expect(pi.notices.at(-1)?.type).toBe("info");
    expect(readJson(globalFile())).toEqual({
      "llm-wiki": { captureAllowHosts: ["wiki.corp", "10.1.0.0/16"] },
    });
    await pi.session.prompt("/wiki-settings unset turnBudgetMs");
    expect(pi.notices.at(-1)?.message).toContain("turnBudgetMs removed from project settings");
    expect(pi.notices.at(-1)?.message).toContain("now 1500 (default)");
    expect(readJson(projectFile())).toEqual({ "llm-wiki": {} });
    await pi.session.prompt("/wiki-settings set autoRecall");
    expect(pi.notices.at(-1)?.message).toMatch(/^usage: \/wiki-settings/);
    expect(pi.requests).toEqual([]);
  });

  it("in an untrusted project, .pi/settings.json is not read, and project changes still go to the project's own file", async () => {
    writeJson(piProjectFile(), { "llm-wiki": { autoRecall: false } });
    const screens = plainScreens();
    const pi = await fixture.start({ ui: screens.ui, projectTrusted: false });
    screens.keys(DOWN, ENTER, ESC);
    await pi.session.prompt("/wiki-settings");
    const first = screens.screens[0]?.lines ?? [];
    expect(row(first, "write to")).toEqual(["write to", "project"]);
    expect(row(first, "autoRecall")).toEqual(["autoRecall", "default", "true"]);
    expect(readJson(projectFile())).toEqual({ "llm-wiki": { autoRecall: false } });
    expect(row(screens.screens[0]?.after[1] ?? [], "autoRecall")).toEqual([
      "autoRecall",
      "project",
      "false",
    ]);
    // Pi's project file is neither written nor needed: nothing there asks Pi for trust.
    expect(readJson(piProjectFile())).toEqual({ "llm-wiki": { autoRecall: false } });
    expect(existsSync(globalFile())).toBe(false);
  });

  it("a trusted project's .pi/settings.json is still read; the project's own file wins, and unset clears both", async () => {
    writeJson(piProjectFile(), {
      theme: "dark",
      "llm-wiki": { turnBudgetMs: 700, autoRecall: false },
    });
    writeJson(projectFile(), { "llm-wiki": { turnBudgetMs: 900 } });
    const pi = await fixture.start({ projectTrusted: true });
    const files = settingFiles(
      { cwd: fixture.dirs.project, isProjectTrusted: () => true },
      fixture.dirs.agentDir,
    );
    const listed = settingsText(files);
    expect(listed).toMatch(/\nturnBudgetMs +project +900\n/);
    expect(listed).toMatch(/\nautoRecall +project +false\n/);
    await pi.session.prompt("/wiki-settings unset autoRecall");
    expect(pi.notices.at(-1)?.message).toContain("now true (default)");
    expect(readJson(piProjectFile())).toEqual({ theme: "dark", "llm-wiki": { turnBudgetMs: 700 } });
    await pi.session.prompt("/wiki-settings unset turnBudgetMs");
    expect(pi.notices.at(-1)?.message).toContain("now 1500 (default)");
    expect(readJson(piProjectFile())).toEqual({ theme: "dark", "llm-wiki": {} });
    expect(readJson(projectFile())).toEqual({ "llm-wiki": {} });
  });
});

describe("the settings screen", () => {
  it("switches scope on its first row; a global value the project overrides is said to stay overridden", () => {
    writeJson(projectFile(), { "llm-wiki": { sessionPriming: false } });
    const screen = openScreen();
    screen.keys(ENTER);
    expect(row(screen.lines(), "write to")).toEqual(["write to", "global"]);
    screen.keys(...Array.from({ length: ROW("sessionPriming") }, () => DOWN), ENTER);
    expect(readJson(globalFile())).toEqual({ "llm-wiki": { sessionPriming: true } });
    expect(readJson(projectFile())).toEqual({ "llm-wiki": { sessionPriming: false } });
    const lines = screen.lines();
    expect(row(lines, "sessionPriming")).toEqual(["sessionPriming", "project", "false"]);
    expect(flat(lines)).toContain("the project value false still applies here");
    screen.keys(ESC);
    expect(screen.closed()).toBe(true);
  });

  it("refuses an invalid number in the schema's words, writes nothing, and takes a valid one", () => {
    const original = writeJson(projectFile(), { "llm-wiki": { recallMaxChars: 4000 } });
    const seed = Math.floor(Math.random() * 2 ** 31);
    const random = mulberry32(seed);
    const tooSmall = String(Math.floor(random() * 50));
    const tooLarge = String(60_001 + Math.floor(random() * 1e6));
    const fraction = `${100 + Math.floor(random() * 1000)}.5`;
    const screen = openScreen();
    screen.keys(...Array.from({ length: ROW("turnBudgetMs") }, () => DOWN), ENTER);
    expect(flat(screen.lines())).toContain("turnBudgetMs (now 1500, from default): a whole number");
    const cases: Array<[string, string]> = [
      [tooSmall, "turnBudgetMs must be >= 50"],
      [tooLarge, "turnBudgetMs must be <= 60000"],
      [fraction, "turnBudgetMs must be integer"],
      ["fast", "turnBudgetMs must be integer"],
    ];
    for (const [value, message] of cases) {
      screen.type(value);
      screen.keys(ENTER);
      const text = flat(screen.lines());
      expect(text, `seed ${seed}: ${value}`).toContain(`not written: ${message}`);
      // Still editing: the input stays open until a value is taken or Esc.
      expect(text).toContain("Enter writes it to the project settings");
      expect(readFileSync(projectFile(), "utf8")).toBe(original);
      screen.keys(...Array.from(value, () => BACKSPACE));
    }
    const good = String(50 + Math.floor(random() * 59_950));
    screen.type(good);
    screen.keys(ENTER);
    expect(readJson(projectFile())).toEqual({
      "llm-wiki": { recallMaxChars: 4000, turnBudgetMs: Number(good) },
    });
    expect(row(screen.lines(), "turnBudgetMs")).toEqual(["turnBudgetMs", "project", good]);
    screen.keys(ESC);
    expect(screen.closed()).toBe(true);
  });
});

describe("hostile settings files", () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const random = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const word = () =>
    Array.from({ length: int(3, 8) }, () => String.fromCharCode(int(97, 122))).join("");
  /** A control byte (C0, DEL, C1), an escape sequence or a bidi control. */
  const hostile = () =>
    pick([
      () => String.fromCharCode(pick([int(0, 0x1f), 0x7f, int(0x80, 0x9f)])),
      () => `\u001b[${int(0, 107)}m`,
      () => `\u001b]8;;http://127.0.0.1/${word()}\u0007${word()}\u001b]8;;\u0007`,
      () => `\u001b[${int(1, 9)}J`,
      () => pick(["\u202e", "\u2066", "\u2028", "\u200f"]),
    ])();
  const hostileText = () => `${word()}${hostile()}${word()}${hostile()}`;

  /** One file per shape, made afresh each run; `writes` says whether changing another key may write it. */
  const shapes: Array<{
    name: string;
    text: () => string;
    diagnostic: RegExp;
    writes: boolean;
  }> = [
    {
      name: "malformed JSON",
      text: () => `{"llm-wiki": {"autoRecall": ${hostileText()}`,
      diagnostic: /invalid JSON \(.*\); ignored/,
      writes: false,
    },
    {
      name: "JSON that is not an object",
      text: () => JSON.stringify(pick([[hostileText()], hostileText(), int(0, 99)])),
      diagnostic: /not a JSON object; ignored/,
      writes: false,
    },
    {
      name: "an llm-wiki entry that is not an object",
      text: () => JSON.stringify({ "llm-wiki": pick([hostileText(), [hostileText()], true]) }),
      diagnostic: /"llm-wiki" must be an object/,
      writes: false,
    },
    {
      name: "values of the wrong type and control bytes in strings",
      text: () =>
        JSON.stringify({
          [hostileText()]: hostileText(),
          "llm-wiki": {
            sessionPriming: hostileText(),
            turnBudgetMs: pick([-int(1, 99), hostileText(), 1.5]),
            models: { embed: hostileText() },
            captureAllowHosts: [hostileText()],
            [hostileText()]: int(0, 9),
          },
        }),
      diagnostic: /invalid value .* for "sessionPriming"; using the default true/,
      writes: true,
    },
  ];

  for (const shape of shapes) {
    it(`${shape.name}: named in a diagnostic, never replaced, nothing raw on screen`, () => {
      const original = shape.text();
      writeText(projectFile(), original);
      const screen = openScreen();
      const at = `seed ${seed}, file ${JSON.stringify(original)}`;
      const first = screen.lines();
      expect(flat(first), at).toMatch(shape.diagnostic);
      expect(row(first, "sessionPriming"), at).toEqual(["sessionPriming", "default", "true"]);
      // Change another key in the same file.
      screen.keys(DOWN, ENTER);
      const after = screen.lines();
      for (const line of [...first, ...after]) expect(line, at).not.toMatch(UNSAFE);
      if (shape.writes) {
        const written = readJson(projectFile());
        const before = JSON.parse(original) as Record<string, Record<string, unknown>>;
        expect(written, at).toEqual({
          ...before,
          "llm-wiki": { ...before["llm-wiki"], autoRecall: false },
        });
        expect(row(after, "autoRecall"), at).toEqual(["autoRecall", "project", "false"]);
        // A string the schema takes is shown, neutralised.
        expect(row(after, "models.embed")[1], at).toBe("project");
      } else {
        expect(readFileSync(projectFile(), "utf8"), at).toBe(original);
        expect(flat(after), at).toContain("was left unchanged");
        expect(row(after, "autoRecall"), at).toEqual(["autoRecall", "default", "true"]);
      }
    });
  }

  it("without a screen the list is a notice with the same diagnostic, and nothing raw", async () => {
    const original = shapes[3]?.text() ?? "";
    writeText(globalFile(), original);
    const notices: Array<{ message: string; type: string | undefined }> = [];
    const memory: WorkingMemory = {
      enabled: () => false,
      usable: () => false,
      enable: () => undefined,
      disable: () => undefined,
      onSessionStart: () => undefined,
    };
    const ctx = {
      cwd: fixture.dirs.project,
      hasUI: false,
      isProjectTrusted: () => true,
      ui: { notify: (message: string, type?: string) => notices.push({ message, type }) },
    } as unknown as ExtensionCommandContext;
    await createSettingsCommand(memory, createCommandOutput()).handler("", ctx);
    const at = `seed ${seed}, file ${JSON.stringify(original)}`;
    expect(notices, at).toHaveLength(1);
    const notice = notices[0];
    expect(notice?.type).toBe("warning");
    const text = notice?.message ?? "";
    expect(text, at).toMatch(/^llm-wiki settings \(setting, from, value\):\n/);
    expect(text, at).toMatch(/\nautoRecall +default +true\n/);
    expect(text, at).toMatch(/\nmodels\.embed +global +\S/);
    expect(text, at).toMatch(/invalid value .* for "sessionPriming"/);
    expect(text, at).toContain(`global:  ${globalFile()}`);
    for (const line of text.split("\n")) expect(line, at).not.toMatch(UNSAFE);
    expect(readFileSync(globalFile(), "utf8")).toBe(original);
  });
});
