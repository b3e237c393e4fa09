/**
 * The real `pi` command, offline with Pi's faux model, in print mode (`-p`)
 * and RPC mode (`--mode rpc`). A setting changed by `/wiki-trajectories on`
 * or `/wiki-settings set` in one session is what the next session resolves,
 * in both modes, and nothing in the project asks Pi for project trust (no
 * `.pi/settings.json` is written; RPC gets no trust dialog). `/wiki-settings`
 * and `/wiki-dashboard` print their text: on standard error in print mode
 * (where notices go nowhere), as a notice in RPC mode (where no screen is drawn).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PiCliDirs, piPrint, piRpc, type RpcLine, rpcNotices } from "./helpers/pi-cli.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

function dirs(): PiCliDirs {
  const root = makeTempDir("llm-wiki-pi-modes-");
  const made = {
    home: join(root, "home"),
    agentDir: join(root, "agent"),
    project: join(root, `project-${randomWord(4, 8)}`),
  };
  for (const dir of Object.values(made)) mkdirSync(dir, { recursive: true });
  makeTempVault({ root: made.project });
  return made;
}

/** The row of `key` in the printed settings list: [key, source, value]. */
function settingRow(text: string, key: string): string[] | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${key} `));
  return line?.trim().split(/\s{2,}/);
}

const notice = (pattern: RegExp) => (line: RpcLine) =>
  line.type === "extension_ui_request" &&
  line.method === "notify" &&
  pattern.test(String(line.message));

describe("pi -p (print mode)", () => {
  it("a setting set in one session is the next session's, with no trust needed; /wiki-settings prints it", () => {
    const d = dirs();
    const budget = String(100 + Math.floor(Math.random() * 9000));
    const on = piPrint(d, "/wiki-trajectories on");
    expect(on.status, on.stderr).toBe(0);
    expect(on.stderr).toContain("llm-wiki working memory on");
    const set = piPrint(d, `/wiki-settings set turnBudgetMs ${budget}`);
    expect(set.status, set.stderr).toBe(0);
    expect(set.stderr).toContain(`turnBudgetMs = ${budget} written to project settings`);
    // Nothing that would make Pi gate the project behind trust.
    expect(existsSync(join(d.project, ".pi", "settings.json"))).toBe(false);

    const next = piPrint(d, "/wiki-settings");
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toContain("llm-wiki settings (setting, from, value):");
    expect(settingRow(next.stderr, "trajectories")).toEqual(["trajectories", "project", "true"]);
    expect(settingRow(next.stderr, "turnBudgetMs")).toEqual(["turnBudgetMs", "project", budget]);
    // The session itself has the working-memory state the setting says.
    const state = piPrint(d, "/wiki-trajectories");
    expect(state.stderr).toContain("llm-wiki working memory is on");
  }, 900_000);

  it("/wiki-dashboard prints the dashboard's text", () => {
    const d = dirs();
    const run = piPrint(d, "/wiki-dashboard");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^llm-wiki dashboard\n\nvault +\S/m);
    expect(run.stderr).toMatch(/\npages +\d/);
  }, 600_000);
});

describe("pi --mode rpc", () => {
  it("a setting set in one session is the next session's, with no trust dialog; /wiki-settings and /wiki-dashboard answer as notices", async () => {
    const d = dirs();
    const first = await piRpc(d, [
      {
        prompt: "/wiki-settings set autoRecall false",
        until: notice(/autoRecall = false written/),
      },
      { prompt: "/wiki-trajectories on", until: notice(/working memory on/) },
    ]);
    expect(existsSync(join(d.project, ".pi", "settings.json"))).toBe(false);

    const next = await piRpc(d, [
      { prompt: "/wiki-settings", until: notice(/^llm-wiki settings/) },
      { prompt: "/wiki-dashboard", until: notice(/^llm-wiki dashboard\n/) },
    ]);
    const listed = rpcNotices(next).find((m) => m.startsWith("llm-wiki settings")) ?? "";
    expect(settingRow(listed, "autoRecall")).toEqual(["autoRecall", "project", "false"]);
    expect(settingRow(listed, "trajectories")).toEqual(["trajectories", "project", "true"]);
    const dashboard = rpcNotices(next).find((m) => m.startsWith("llm-wiki dashboard")) ?? "";
    expect(dashboard).toMatch(/\npages +\d/);
    // No dialog of any kind was asked for, trust included.
    for (const line of [...first, ...next]) {
      if (line.type === "extension_ui_request") expect(line.method).not.toBe("select");
    }
  }, 600_000);
});
