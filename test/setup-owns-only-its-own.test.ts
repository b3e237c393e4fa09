/**
 * `llm-wiki setup` edits what it owns and nothing else, through the real
 * CLI: a 0600 file holding another server's token stays 0600 (and a new
 * user file is made 0600); a read-only file is refused untouched, still
 * read-only; a set-up that fails half-way (a read-only `.claude/`) changes
 * no file; a different server named `llm-wiki` is replaced only with
 * `--force` and never removed; the user's `[mcp_servers.llm-wiki.env]`,
 * numbers beyond a double, duplicate keys and key order survive, `--remove`
 * giving back the bytes; and a user hook whose program merely contains
 * "llm-wiki" survives set-up and `--remove`. Tokens and names are drawn
 * afresh on each run.
 */
import { randomBytes, randomInt } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOurHookCommand, isOurServer } from "../extensions/llm-wiki/lib/setup/ownership.ts";
import { runCli } from "./helpers/cli.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";
import {
  giveToUnprivileged,
  makeWritable,
  openToEveryone,
  runCliUnprivileged,
} from "./helpers/unprivileged.ts";

afterEach(removeTempDirs);

const token = () => `tok_${randomBytes(12).toString("hex")}`;
const modeOf = (path: string) => statSync(path).mode & 0o777;

function dirs() {
  const project = makeTempDir("llm-wiki-setup-own-project-");
  const home = makeTempDir("llm-wiki-setup-own-home-");
  return { project, home, env: { HOME: home, CODEX_HOME: "", CLAUDE_CONFIG_DIR: "" } };
}

describe("setup keeps the user's files as the user made them", () => {
  it("--user keeps 0600 on files holding another server's token, and makes new ones 0600", () => {
    const { project, home, env } = dirs();
    const secret = token();
    const other = randomWord();
    const claude = join(home, ".claude.json");
    writeFileSync(
      claude,
      `${JSON.stringify({ mcpServers: { [other]: { command: "x", env: { TOKEN: secret } } } }, null, 2)}\n`,
      { mode: 0o600 },
    );
    chmodSync(claude, 0o600);
    mkdirSync(join(home, ".gemini"));
    const gemini = join(home, ".gemini", "settings.json");
    writeFileSync(gemini, `{"mcpServers": {"${other}": {"command": "y"}}}\n`);
    chmodSync(gemini, 0o600);
    mkdirSync(join(home, ".codex"));
    const codex = join(home, ".codex", "config.toml");
    writeFileSync(codex, `[mcp_servers.${other}]\ncommand = "z"\nenv = { TOKEN = "${secret}" }\n`);
    chmodSync(codex, 0o600);
    for (const client of ["claude-code", "gemini", "codex"]) {
      const run = runCli(["setup", client, "--user"], { cwd: project, env });
      expect(run.status, run.stderr).toBe(0);
    }
    for (const file of [claude, gemini, codex]) expect(modeOf(file), file).toBe(0o600);
    expect(readFileSync(claude, "utf8")).toContain(secret);
    // Files setup created in the user's folders: the owner's alone.
    expect(modeOf(join(home, ".claude", "settings.json"))).toBe(0o600);
    expect(modeOf(join(home, ".codex", "hooks.json"))).toBe(0o600);
  });

  it("a read-only file is refused, untouched and still read-only; no other file is written", () => {
    const { project, env } = dirs();
    const mcp = join(project, ".mcp.json");
    const own = `{"mcpServers": {"${randomWord()}": {"command": "x"}}}\n`;
    writeFileSync(mcp, own);
    chmodSync(mcp, 0o444);
    const run = runCli(["setup", "claude-code"], { cwd: project, env });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("is read-only");
    expect(run.stderr).toContain(mcp);
    expect(readFileSync(mcp, "utf8")).toBe(own);
    expect(modeOf(mcp)).toBe(0o444);
    expect(existsSync(join(project, ".claude"))).toBe(false);
  });

  it("a set-up that fails half-way (a read-only .claude/) changes no file", () => {
    const { project, home } = dirs();
    openToEveryone(project);
    openToEveryone(home);
    giveToUnprivileged(project);
    giveToUnprivileged(home);
    mkdirSync(join(project, ".claude"));
    giveToUnprivileged(join(project, ".claude"));
    chmodSync(join(project, ".claude"), 0o555);
    const before = snapshotFiles(project);
    try {
      const run = runCliUnprivileged(["setup", "claude-code"], {
        cwd: project,
        env: { HOME: home },
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("every file of this set-up was left as it was");
      expect(existsSync(join(project, ".mcp.json"))).toBe(false);
      expect(snapshotFiles(project)).toEqual(before);
    } finally {
      makeWritable(project);
    }
  });

  it("another server named llm-wiki is replaced only with --force, and never removed", () => {
    const { project, env } = dirs();
    const mcp = join(project, ".mcp.json");
    const theirs = {
      mcpServers: { "llm-wiki": { command: "python3", args: ["-m", `${randomWord()}_wiki`] } },
    };
    const own = `${JSON.stringify(theirs, null, 2)}\n`;
    writeFileSync(mcp, own);
    const run = runCli(["setup", "claude-code"], { cwd: project, env });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("--force");
    expect(readFileSync(mcp, "utf8")).toBe(own);
    expect(existsSync(join(project, ".claude", "settings.json"))).toBe(false);
    const removed = runCli(["setup", "claude-code", "--remove"], { cwd: project, env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(mcp, "utf8")).toBe(own);
    const forced = runCli(["setup", "claude-code", "--force"], { cwd: project, env });
    expect(forced.status, forced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(mcp, "utf8")).mcpServers["llm-wiki"].command).toBe(
      "llm-wiki-mcp",
    );
  });

  it("keeps subtables, big numbers, duplicate keys and key order; --remove gives back the bytes", () => {
    const { project, env } = dirs();
    const secret = token();
    const big = `1${Array.from({ length: 19 }, () => randomInt(10)).join("")}`;
    const key = randomWord();
    mkdirSync(join(project, ".codex"));
    const codex = join(project, ".codex", "config.toml");
    const toml = [
      `# ${randomWord()} settings`,
      `zeta = ${big.slice(0, 18)}`,
      "alpha = true",
      "",
      "[mcp_servers.llm-wiki]",
      `command = "/old/install/node_modules/.bin/llm-wiki-mcp"`,
      "startup_timeout_sec = 30",
      "",
      "[mcp_servers.llm-wiki.env]",
      `TOKEN = "${secret}"`,
      "",
    ].join("\n");
    writeFileSync(codex, toml);
    expect(runCli(["setup", "codex"], { cwd: project, env }).status).toBe(0);
    const edited = readFileSync(codex, "utf8");
    expect(edited).toContain("[mcp_servers.llm-wiki.env]");
    expect(edited).toContain(`TOKEN = "${secret}"`);
    expect(edited).toContain("startup_timeout_sec = 30");
    expect(edited).toContain('command = "llm-wiki-mcp"');
    expect(edited.indexOf("zeta")).toBeLessThan(edited.indexOf("alpha"));
    expect(edited).toContain(`zeta = ${big.slice(0, 18)}`);

    mkdirSync(join(project, ".claude"));
    const settings = join(project, ".claude", "settings.json");
    const json = `{\n  "${key}": ${big},\n  "dup": 1,\n  "dup": 2,\n  "b": {"z": 1, "a": 2}\n}\n`;
    writeFileSync(settings, json);
    const set = runCli(["setup", "claude-code"], { cwd: project, env });
    expect(set.status, set.stderr).toBe(0);
    const after = readFileSync(settings, "utf8");
    expect(after.startsWith(json.slice(0, json.lastIndexOf("\n}")))).toBe(true);
    expect(after).toContain(big);
    const removed = runCli(["setup", "claude-code", "--remove"], { cwd: project, env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(json);
  });

  it("a user's hook whose program contains llm-wiki survives setup and --remove", () => {
    const { project, env } = dirs();
    mkdirSync(join(project, ".claude"));
    const settings = join(project, ".claude", "settings.json");
    const audit = `/usr/local/bin/my-llm-wiki-${randomWord()} hook stop`;
    const own = `${JSON.stringify(
      { hooks: { Stop: [{ hooks: [{ type: "command", command: audit, timeout: 5 }] }] } },
      null,
      2,
    )}\n`;
    writeFileSync(settings, own);
    const set = runCli(["setup", "claude-code"], { cwd: project, env });
    expect(set.status, set.stderr).toBe(0);
    const stop = JSON.parse(readFileSync(settings, "utf8")).hooks.Stop as Array<{
      hooks: Array<{ command: string }>;
    }>;
    expect(stop.flatMap((g) => g.hooks.map((h) => h.command))).toEqual([
      audit,
      "llm-wiki hook stop",
    ]);
    const removed = runCli(["setup", "claude-code", "--remove"], { cwd: project, env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(own);
  });

  it("knows its own entries by their exact shape", () => {
    const other = randomWord();
    const pkg = makeTempDir("llm-wiki-setup-own-pkg-");
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: other }));
    mkdirSync(join(pkg, "dist", "mcp"), { recursive: true });
    const foreign = join(pkg, "dist", "mcp", "index.js");
    writeFileSync(foreign, "");
    expect(isOurServer({ command: "node", args: [foreign] })).toBe(false);
    expect(isOurServer({ command: "uvx", args: [`${other}-mcp`] })).toBe(false);
    expect(isOurServer({ command: `/usr/local/bin/my-llm-wiki-mcp-${other}` })).toBe(false);
    for (const ours of [
      { command: "llm-wiki-mcp", args: [] },
      { command: "/usr/bin/node", args: ["/x/node_modules/llm-wiki-memory/dist/mcp/index.js"] },
      { command: "npx", args: ["-y", "llm-wiki-memory", "llm-wiki-mcp"] },
      { type: "local", command: ["llm-wiki-mcp"], enabled: true },
    ])
      expect(isOurServer(ours), JSON.stringify(ours)).toBe(true);
    for (const theirs of [
      `/usr/local/bin/my-llm-wiki-${other} hook stop`,
      `llm-wiki-${other} hook stop`,
      `llm-wiki hook stop; rm -rf ~/${other}`,
      `llm-wiki hook ${other}`,
      `echo llm-wiki hook stop`,
    ])
      expect(isOurHookCommand(theirs), theirs).toBe(false);
    for (const ours of [
      "llm-wiki hook stop",
      "llm-wiki hook user-prompt --json",
      "'/opt/node 22/bin/node' '/opt/x/llm-wiki-memory/dist/cli/llm-wiki.js' hook session-start",
      "npx -y llm-wiki-memory hook pre-compact",
    ])
      expect(isOurHookCommand(ours), ours).toBe(true);
  });
});
