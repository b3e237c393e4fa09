/**
 * `llm-wiki setup` through the real CLI process, as a person runs it in a
 * project: `--dry-run` prints the change and writes nothing, the first run
 * writes, the second says "already set up" and leaves the bytes, `--remove`
 * restores the user's own file, a broken file is refused untouched (exit 1),
 * and usage mistakes exit 2. The command it writes runs: the hook it wrote
 * answers a real hook input. A project's files (the default scope, which a
 * team commits) name the commands, never this machine's paths: a teammate
 * with another HOME and the package installed elsewhere runs them as they
 * are, and setting up again from that install changes nothing.
 */
import { execSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join, relative, sep } from "node:path";
import { parse } from "smol-toml";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./helpers/cli.ts";
import {
  answered,
  initializeRequest,
  responseTo,
  SERVER,
  spawnRawProcess,
} from "./helpers/mcp-child.ts";
import { commandsOnPath } from "./helpers/path-commands.ts";
import { type StagedPackage, stagePackage } from "./helpers/staged-package.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");

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
    // A project's file is shared: it names the command, not this machine's paths.
    expect(mcp.mcpServers["llm-wiki"]).toEqual({
      type: "stdio",
      command: "llm-wiki-mcp",
      args: [],
    });
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

  it("--user: the hook command it writes (this install's absolute paths) runs and exits 0 (no vault here: nothing on stdout)", () => {
    const { project, home, env } = dirs();
    expect(runCli(["setup", "claude-code", "--user"], { cwd: project, env }).status).toBe(0);
    const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
    expect(settings.hooks.UserPromptSubmit[0].hooks[0].command).toContain(process.execPath);
    const command = settings.hooks.UserPromptSubmit[0].hooks[0].command as string;
    const out = execSync(command, {
      cwd: project,
      input: JSON.stringify({ cwd: project, prompt: "anything", session_id: "s" }),
      // No warm hook process: it would outlive the spec.
      env: { PATH: process.env.PATH ?? "", HOME: env.HOME, LLM_WIKI_HOOK_SERVER: "off" },
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

/** Every command word a client's config names for our server and hooks, whatever the client's format. */
function commandWords(path: string): string[] {
  const text = readFileSync(path, "utf8");
  if (path.endsWith(".toml")) {
    const server = (parse(text) as { mcp_servers: Record<string, { command: string }> })
      .mcp_servers["llm-wiki"];
    return [server?.command ?? "none"];
  }
  const data = JSON.parse(text) as Record<string, unknown>;
  const words: string[] = [];
  const servers = (data.mcpServers ?? data.mcp ?? {}) as Record<string, Record<string, unknown>>;
  const ours = servers["llm-wiki"];
  if (ours) {
    const command = ours.command;
    words.push(...(Array.isArray(command) ? (command as string[]) : [String(command)]));
    words.push(...((ours.args as string[] | undefined) ?? []));
  }
  const hooks = (data.hooks ?? {}) as Record<string, Array<{ hooks: Array<{ command: string }> }>>;
  for (const groups of Object.values(hooks))
    for (const group of groups) for (const h of group.hooks) words.push(...h.command.split(" "));
  return words;
}

describe("a project's files work on every teammate's machine", () => {
  const clients = ["claude-code", "codex", "gemini", "cursor", "opencode"];
  let teammate: StagedPackage | undefined;
  beforeAll(async () => {
    // The teammate's install: the package staged at a path of its own, not this checkout.
    teammate = await stagePackage();
  }, 300_000);
  afterAll(() => teammate?.remove());

  it("name the commands, no machine's path; the commands resolve and run where a teammate installed them", async () => {
    const project = join(makeTempDir("llm-wiki-setup-team-"), "acme-notes");
    cpSync(EXAMPLE, project, {
      recursive: true,
      filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
    });
    const home = makeTempDir("llm-wiki-setup-home-");
    const mine = commandsOnPath({ cli: CLI, mcp: SERVER });
    const env = { HOME: home, PATH: `${mine}${delimiter}${process.env.PATH ?? ""}` };
    const before = new Set(snapshotFiles(project).keys());
    for (const client of clients) {
      const out = runCli(["setup", client], { cwd: project, env });
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).not.toContain("not on this machine's PATH");
    }
    const written = [...snapshotFiles(project).keys()].filter((f) => !before.has(f));
    expect(written.length).toBeGreaterThanOrEqual(clients.length);
    for (const file of written) {
      const path = join(project, file);
      const text = readFileSync(path, "utf8");
      for (const machine of [REPO, process.execPath, home, project, mine, tmpdir()])
        expect(text, `${file} holds ${machine}`).not.toContain(machine);
      for (const word of commandWords(path))
        expect(isAbsolute(word), `${file}: ${word}`).toBe(false);
    }

    // The teammate: another HOME, the package installed elsewhere, its commands on PATH.
    const theirHome = makeTempDir("llm-wiki-setup-teammate-");
    const packageDir = teammate?.packageDir ?? "";
    const theirs = commandsOnPath({
      cli: join(packageDir, "bin", "llm-wiki.js"),
      mcp: join(packageDir, "bin", "llm-wiki-mcp.js"),
    });
    const theirEnv = {
      HOME: theirHome,
      PATH: `${theirs}${delimiter}/usr/bin${delimiter}/bin`,
      LLM_WIKI_HOOK_DEADLINE_MS: "600000",
      // No warm hook process: it would outlive the spec.
      LLM_WIKI_HOOK_SERVER: "off",
    };
    const settings = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8"));
    const hookCommand = settings.hooks.UserPromptSubmit[0].hooks[0].command as string;
    const asked = { cwd: project, prompt: "how do we keep the cache consistent", session_id: "t" };
    const recall = spawnSync("sh", ["-c", hookCommand], {
      cwd: project,
      env: theirEnv,
      input: JSON.stringify(asked),
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(recall.status, recall.stderr).toBe(0);
    expect(recall.stdout).toContain("concepts/cache-invalidation");
    const server = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8")).mcpServers[
      "llm-wiki"
    ] as { command: string; args: string[] };
    const raw = spawnRawProcess(server.command, server.args, { cwd: project, env: theirEnv });
    try {
      await raw.send(initializeRequest(1));
      await raw.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await raw.waitFor(answered(2));
      expect(responseTo(raw.messages, 1).result?.serverInfo).toMatchObject({ name: "llm-wiki" });
    } finally {
      raw.child.kill();
    }
    // Set up again from the teammate's install (elsewhere): the shared files stay as they are.
    const snapshot = snapshotFiles(project);
    const again = spawnSync("sh", ["-c", "llm-wiki setup claude-code && llm-wiki setup codex"], {
      cwd: project,
      env: theirEnv,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("already set up");
    expect(snapshotFiles(project)).toEqual(snapshot);
  }, 300_000);

  it("says so when this machine's PATH lacks the commands the files name", () => {
    const { project, env } = dirs();
    const out = runCli(["setup", "gemini"], {
      cwd: project,
      env: { ...env, PATH: `/usr/bin${delimiter}/bin` },
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/llm-wiki and llm-wiki-mcp are not on this machine's PATH/);
    expect(out.stdout).toContain("node scripts/install.js");
  });

  it("codex and gemini say what the client needs before it runs the hooks", () => {
    for (const scope of [[], ["--user"]]) {
      const { project, env } = dirs();
      const codex = runCli(["setup", "codex", ...scope], { cwd: project, env });
      expect(codex.stdout).toMatch(/open \/hooks and trust the llm-wiki hooks/);
      const gemini = runCli(["setup", "gemini", ...scope], { cwd: project, env });
      expect(gemini.stdout).toMatch(/trust .*folder/);
    }
  });
});
