/**
 * `llm-wiki setup` through the real CLI process, as a person runs it in a
 * project: `--dry-run` prints the change and writes nothing, the first run
 * writes, the second says "already set up" and leaves the bytes, `--remove`
 * restores the user's own file, a broken file is refused untouched (exit 1),
 * and usage mistakes exit 2. The command it writes runs: the hook it wrote
 * answers a real hook input.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

function dirs() {
  const project = makeTempDir("llm-wiki-setup-project-");
  const home = makeTempDir("llm-wiki-setup-home-");
  return { project, home, env: { HOME: home } };
}

describe("llm-wiki setup", () => {
  it("dry-run, write, already set up, remove: each as the user sees it", () => {
    const { project, env } = dirs();
    const settings = join(project, ".claude", "settings.json");
    mkdirSync(join(project, ".claude"));
    const own = `${JSON.stringify({ permissions: { allow: ["Bash(ls)"] } }, null, 2)}\n`;
    writeFileSync(settings, own);

    const dry = runCli(["setup", "claude-code", "--dry-run"], { cwd: project, env });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("dry run: nothing was written");
    expect(dry.stdout).toMatch(/\+ .*hook session-start/);
    expect(readFileSync(settings, "utf8")).toBe(own);
    expect(existsSync(join(project, ".mcp.json"))).toBe(false);

    const first = runCli(["setup", "claude-code"], { cwd: project, env });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("claude-code: set up (project)");
    const mcp = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8"));
    expect(mcp.mcpServers["llm-wiki"].command).toBe(process.execPath);
    expect(JSON.parse(readFileSync(settings, "utf8")).permissions).toEqual({ allow: ["Bash(ls)"] });

    const before = snapshotFiles(project);
    const second = runCli(["setup", "claude-code"], { cwd: project, env });
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("already set up");
    expect(snapshotFiles(project)).toEqual(before);

    const removed = runCli(["setup", "claude-code", "--remove"], { cwd: project, env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual(JSON.parse(own));
    expect(existsSync(join(project, ".mcp.json"))).toBe(false);
  });

  it("the hook command it writes runs and exits 0 (no vault here: nothing on stdout)", () => {
    const { project, env } = dirs();
    expect(runCli(["setup", "claude-code"], { cwd: project, env }).status).toBe(0);
    const settings = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8"));
    const command = settings.hooks.UserPromptSubmit[0].hooks[0].command as string;
    const out = execSync(command, {
      cwd: project,
      input: JSON.stringify({ cwd: project, prompt: "anything", session_id: "s" }),
      env: { PATH: process.env.PATH ?? "", HOME: env.HOME },
      encoding: "utf8",
    });
    expect(out).toBe("");
  });

  it("--user writes under HOME, not into the project", () => {
    const { project, home, env } = dirs();
    const out = runCli(["setup", "gemini", "--user"], { cwd: project, env });
    expect(out.status, out.stderr).toBe(0);
    expect(existsSync(join(home, ".gemini", "settings.json"))).toBe(true);
    expect(snapshotFiles(project).size).toBe(0);
  });

  it("a broken config file: exit 1, a diagnostic naming it, the file untouched", () => {
    const { project, env } = dirs();
    mkdirSync(join(project, ".codex"));
    const config = join(project, ".codex", "config.toml");
    writeFileSync(config, "[mcp_servers\n# half-written\n");
    const out = runCli(["setup", "codex"], { cwd: project, env });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(config);
    expect(out.stderr).toContain("not valid TOML");
    expect(readFileSync(config, "utf8")).toBe("[mcp_servers\n# half-written\n");
    expect(existsSync(join(project, ".codex", "hooks.json"))).toBe(false);
  });

  it("usage mistakes exit 2 and write nothing", () => {
    const { project, env } = dirs();
    for (const args of [
      ["setup"],
      ["setup", "vscode"],
      ["setup", "codex", "--project", "--user"],
      ["setup", "codex", "gemini"],
    ]) {
      const out = runCli(args, { cwd: project, env });
      expect(out.status, args.join(" ")).toBe(2);
    }
    expect(snapshotFiles(project).size).toBe(0);
  });

  it("--json reports each file and what changed", () => {
    const { project, env } = dirs();
    const out = runCli(["setup", "cursor", "--json"], { cwd: project, env });
    const result = JSON.parse(out.stdout);
    expect(result.ok).toBe(true);
    expect(result.files).toEqual([
      expect.objectContaining({ path: join(project, ".cursor", "mcp.json"), change: "written" }),
    ]);
  });
});
