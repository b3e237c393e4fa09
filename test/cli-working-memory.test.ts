/**
 * Working memory from the command line (real CLI child processes, a real
 * temporary vault and settings file): every command is refused with
 * `trajectories_off` while the setting is off, writing nothing;
 * `trajectory on|off` writes the setting and keeps the file's other keys
 * (`--pi`: the Pi extension's own file for the project instead); `trajectory capture`
 * takes the steps as MCP does (secrets redacted, control bytes gone, a bad
 * step refused in MCP's words; a long task keeps its first and last steps,
 * says how many were left out, and cuts an oversized output with a marker);
 * `trajectory distill` hands the batch out and
 * marks only after a cited skill page exists; `skills` lists and recalls it.
 * Words and secrets are fresh each run.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.

import { randomInt } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { piProjectSettingsPath } from "../extensions/llm-wiki/lib/pi-settings-files.ts";
import { MAX_STEPS, OUTPUT_CHARS } from "../extensions/llm-wiki/lib/trajectories/steps.ts";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  removeTempDirs,
  type TempVault,
} from "./helpers/temp-vault.ts";

let vault: TempVault;
let settings: string;

beforeEach(() => {
  vault = makeTempVault();
  settings = join(makeTempDir("llm-wiki-wm-settings-"), "settings.json");
});
afterEach(() => removeTempDirs());

function cli(args: string[], input?: string) {
  return runCli(args, {
    cwd: vault.root,
    env: {
      HOME: vault.root,
      WIKI_HOME: join(vault.root, "no-personal"),
      LLM_WIKI_SETTINGS: settings,
    },
    ...(input !== undefined ? { input } : {}),
  });
}

function json(run: ReturnType<typeof cli>): Record<string, unknown> {
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

const codes = (run: ReturnType<typeof cli>) =>
  ((json(run).diagnostics ?? []) as Array<{ code: string }>).map((d) => d.code);

const trajectoryDir = () => join(vault.paths.wiki, "trajectories");

/** A task's steps as an MCP client passes them, with a secret and escape bytes in the output. */
function steps(word: string, token: string) {
  return [
    { role: "user", text: `rotate the ${word} key` },
    {
      role: "tool",
      tool: "bash",
      args: { command: `rotate ${word}` },
      text: `new key ${token}\u001b[2J\u0007 done`,
    },
  ];
}

const ghToken = () => `ghp_${Array.from({ length: 36 }, () => randomWord(1, 1)).join("")}`;

describe("working memory off (the default)", () => {
  it("refuses every working-memory command with trajectories_off and writes nothing", () => {
    const state = cli(["trajectory", "--json"]);
    expect(state.status).toBe(0);
    expect(json(state).trajectories).toBe(false);
    const word = randomWord();
    const runs = [
      cli(["trajectory", "capture", "--steps", "-", "--json"], JSON.stringify(steps(word, "x"))),
      cli(["trajectory", "distill", "--json"]),
      cli([
        "trajectory",
        "distill",
        "--mark",
        "trajectories/TRJ-1",
        "--pages",
        "skills/x",
        "--json",
      ]),
      cli(["skills", "--json"]),
      cli(["skills", "recall", word, "--json"]),
    ];
    for (const run of runs) {
      expect(run.status).toBe(1);
      expect(codes(run)).toEqual(["trajectories_off"]);
      expect(run.stderr).toContain("llm-wiki trajectory on");
    }
    expect(existsSync(trajectoryDir())).toBe(false);
    expect(existsSync(settings)).toBe(false);
  });
});

describe("trajectory on|off", () => {
  it("writes the setting, keeping the file's other keys, and off refuses again", () => {
    const other = randomWord();
    writeFileSync(
      settings,
      JSON.stringify({ [other]: { keep: true }, "llm-wiki": { retrievalMode: "lexical" } }),
    );
    const on = cli(["trajectory", "on"]);
    expect(on.status).toBe(0);
    expect(on.stdout).toContain("working memory on");
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual({
      [other]: { keep: true },
      "llm-wiki": { retrievalMode: "lexical", trajectories: true },
    });
    expect(json(cli(["trajectory", "--json"])).trajectories).toBe(true);

    expect(cli(["trajectory", "off"]).status).toBe(0);
    expect(JSON.parse(readFileSync(settings, "utf8"))["llm-wiki"].trajectories).toBe(false);
    expect(codes(cli(["skills", "--json"]))).toEqual(["trajectories_off"]);
  });

  it("--pi writes the Pi extension's own file for the project, not .pi/settings.json (which would make Pi ask for trust), leaving the CLI's setting as it was", () => {
    const run = cli(["trajectory", "on", "--pi", "--json"]);
    expect(run.status).toBe(0);
    const pi = piProjectSettingsPath(join(vault.root, ".pi", "agent"), vault.root);
    expect(json(run).path).toBe(pi);
    expect(JSON.parse(readFileSync(pi, "utf8"))).toEqual({ "llm-wiki": { trajectories: true } });
    expect(existsSync(join(vault.root, ".pi", "settings.json"))).toBe(false);
    expect(existsSync(settings)).toBe(false);
    expect(json(cli(["trajectory", "--json"])).trajectories).toBe(false);
  });

  it("refuses a settings file that is not a JSON object, leaving it unchanged", () => {
    const broken = `{ ${randomWords(3)}`;
    writeFileSync(settings, broken);
    const run = cli(["trajectory", "on", "--json"]);
    expect(run.status).toBe(1);
    expect(codes(run)).toEqual(["settings_not_written"]);
    expect(readFileSync(settings, "utf8")).toBe(broken);
  });

  it("refuses an unknown sub-command with a usage error", () => {
    const run = cli(["trajectory", randomWord()]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("unknown sub-command");
  });
});

describe("working memory on", () => {
  beforeEach(() => {
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { trajectories: true } }));
  });

  it("captures steps, hands them out, marks after a cited skill page, and lists and recalls it", () => {
    const word = `zq${randomWord(7, 9)}`;
    const token = ghToken();
    const stepsFile = join(makeTempDir("llm-wiki-wm-steps-"), "steps.json");
    writeFileSync(stepsFile, JSON.stringify(steps(word, token)));
    const captured = cli([
      "trajectory",
      "capture",
      "--steps",
      stepsFile,
      "--title",
      `Rotate ${word}`,
      "--json",
    ]);
    expect(captured.status).toBe(0);
    const [file] = readdirSync(trajectoryDir());
    const page = readFileSync(join(trajectoryDir(), file as string), "utf8");
    expect(page).toContain(word);
    expect(page).not.toContain(token);
    expect(page).not.toMatch(/[\u0007\u001b]/);
    const id = `trajectories/${(file as string).replace(/\.md$/, "")}`;
    expect(json(captured).id).toBe(id);

    const batch = cli(["trajectory", "distill"]);
    expect(batch.status).toBe(0);
    expect(batch.stdout).toContain(`<trajectory id="${id}"`);

    const early = cli(["trajectory", "distill", "--mark", id, "--json"]);
    expect(early.status).toBe(1);
    expect(readFileSync(join(trajectoryDir(), file as string), "utf8")).toBe(page);

    const skillTitle = `Rotating ${word} keys`;
    const skillId = `skills/rotating-${word}-keys`;
    const written = cli([
      "page",
      "--type",
      "skill",
      "--title",
      skillTitle,
      "--content",
      `1. Rotate the key.\n\nFrom [[${id}]].`,
    ]);
    expect(written.status).toBe(0);
    const marked = cli(["trajectory", "distill", "--mark", id, "--pages", skillId]);
    expect(marked.status).toBe(0);
    expect(marked.stdout).toContain(`Marked [[${id}]] distilled into [[${skillId}]]`);
    expect(readFileSync(join(trajectoryDir(), file as string), "utf8")).toContain(
      `distilled_into: ["${skillId}"]`,
    );
    expect(cli(["trajectory", "distill"]).stdout).toContain("Every trajectory is distilled");

    const listed = cli(["skills", "list", "--json"]);
    expect(listed.status).toBe(0);
    const skills = json(listed).skills as Array<{ id: string }>;
    expect(skills.map((s) => s.id)).toEqual([skillId]);

    const recalled = cli(["skills", "recall", "rotating", word, "keys", "--json"]);
    expect(recalled.status).toBe(0);
    const results = json(recalled).results as Array<{ id: string; type: string }>;
    expect(results.map((r) => r.id)).toContain(skillId);
    for (const r of results) expect(["skill", "case"]).toContain(r.type);
  });

  it("takes steps from standard input, whole MCP arguments too, and refuses a bad step in MCP's words", () => {
    const word = `zq${randomWord(7, 9)}`;
    const args = { title: `Fix ${word}`, outcome: "partial", steps: steps(word, ghToken()) };
    const run = cli(["trajectory", "capture", "--steps", "-", "--json"], JSON.stringify(args));
    expect(run.status).toBe(0);
    const page = readFileSync(join(vault.paths.dir, json(run).path as string), "utf8");
    expect(page).toContain(`title: Fix ${word}\n`);
    expect(page).toContain("outcome: partial");

    const bad = cli(
      ["trajectory", "capture", "--steps", "-"],
      JSON.stringify([{ role: randomWord(), text: word }]),
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("steps/0/role must be one of");
    const notJson = cli(["trajectory", "capture", "--steps", "-"], `[${randomWords(2)}`);
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toContain("not JSON");
    expect(readdirSync(trajectoryDir())).toHaveLength(1);
  });

  it("keeps a long task's first and last steps, says how many were left out, and cuts an oversized output", () => {
    const word = `zq${randomWord(7, 9)}`;
    const total = MAX_STEPS + randomInt(1, 80);
    // A marker per step that no other step's marker contains.
    const marker = (i: number) => `m${i}x${word}`;
    const given: Array<Record<string, unknown>> = [
      { role: "user", text: `${marker(0)} deploy it` },
    ];
    for (let i = 1; i < total - 1; i++) {
      given.push({ role: "tool", tool: "bash", args: { n: i }, text: `${marker(i)} ok` });
    }
    // The last step, always kept, prints far more than a step may keep.
    const lost = `tail${randomWord(8, 10)}`;
    given.push({
      role: "tool",
      tool: "bash",
      text: `${marker(total - 1)} ${randomWords(OUTPUT_CHARS)} ${lost}`,
    });
    const run = cli(["trajectory", "capture", "--steps", "-", "--json"], JSON.stringify(given));
    expect(run.status, run.stderr).toBe(0);
    const result = json(run);
    const omitted = total - MAX_STEPS;
    expect(result.omitted).toBe(omitted);
    expect(result.stepCount).toBe(MAX_STEPS);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ code: "trajectory_trimmed", severity: "info" }),
    );
    const page = readFileSync(join(vault.paths.dir, result.path as string), "utf8");
    expect(page).toContain(`step_count: ${MAX_STEPS}\n`);

    // What is kept is a run from the start and a run to the end; the middle is gone.
    const kept = Array.from({ length: total }, (_, i) => page.includes(marker(i)));
    const head = kept.indexOf(false);
    expect(head).toBeGreaterThan(0);
    expect(kept.lastIndexOf(false)).toBe(head + omitted - 1);
    expect(kept.filter(Boolean)).toHaveLength(MAX_STEPS);
    expect(kept[total - 1]).toBe(true);
    expect(page).toContain(`_${omitted} steps in the middle of the task were left out._`);

    // The oversized output: its start kept, its end cut off, and the cut marked.
    const last = page.split("\n").find((l) => l.includes(marker(total - 1))) ?? "";
    expect(last).toContain("…[cut]");
    expect(page).not.toContain(lost);
  });
});
