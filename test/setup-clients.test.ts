/**
 * `llm-wiki setup <client>`, file format by file format: our entries are
 * added next to whatever the file holds (unknown keys, other servers, other
 * hooks, TOML comments), a second run leaves the bytes as they are,
 * `remove` takes out only ours, and a file that cannot be read is refused
 * with a diagnostic and left untouched. Randomised hostile contents are
 * generated afresh each run (the seed is printed on failure).
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { applyPlan } from "../extensions/llm-wiki/lib/setup/apply-plan.ts";
import { clientPlan, SETUP_CLIENTS } from "../extensions/llm-wiki/lib/setup/clients.ts";
import { editCodexToml } from "../extensions/llm-wiki/lib/setup/codex-toml.ts";
import { isOurHandler } from "../extensions/llm-wiki/lib/setup/hooks-json.ts";
import { shellWord } from "../extensions/llm-wiki/lib/setup/launch-command.ts";
import type { SetupCommand, SetupScope } from "../extensions/llm-wiki/lib/setup/setup-types.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const NODE = "/opt/node 22/bin/node";
const CLI = "/opt/it's here/dist/cli/llm-wiki.js";
const MCP = "/opt/it's here/dist/mcp/index.js";
const COMMAND: SetupCommand = { cli: [NODE, CLI], mcp: [NODE, MCP] };

function places() {
  const root = makeTempDir("llm-wiki-setup-");
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(project);
  mkdirSync(home);
  return { project, home, env: {} as NodeJS.ProcessEnv };
}

function plan(client: string, scope: SetupScope, where: ReturnType<typeof places>) {
  const p = clientPlan(client, scope, COMMAND, where);
  if (!p) throw new Error(`no plan for ${client}`);
  return p;
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

describe.each(Object.keys(SETUP_CLIENTS))("setup %s", (client) => {
  for (const scope of ["project", "user"] as const) {
    it(`(${scope}) adds ours, keeps the rest, is idempotent, and remove restores the files`, () => {
      const where = places();
      const files = plan(client, scope, where).files.map((f) => f.path);
      // Every file already holds someone else's content.
      for (const path of files) {
        mkdirSync(join(path, ".."), { recursive: true });
        if (path.endsWith(".toml")) {
          writeFileSync(
            path,
            '# mine\nmodel = "o3" # keep me\n\n[mcp_servers.other]\ncommand = "x"\n',
          );
        } else {
          const other = { hooks: [{ type: "command", command: "echo hi" }] };
          writeFileSync(
            path,
            `${JSON.stringify(
              {
                theme: "dark",
                mcpServers: { other: { command: "x" } },
                mcp: { other: { type: "local", command: ["x"] } },
                hooks: { SessionStart: [other], Stop: [other] },
              },
              null,
              2,
            )}\n`,
          );
        }
      }
      const before = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
      const first = applyPlan(plan(client, scope, where), "add", false);
      expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
      expect(first.files.every((f) => f.change === "written")).toBe(true);
      for (const path of files) {
        const text = readFileSync(path, "utf8");
        if (path.endsWith(".toml")) {
          expect(text).toContain("# keep me");
          const data = parse(text) as { mcp_servers: Record<string, unknown> };
          expect(data.mcp_servers.other).toEqual({ command: "x" });
          expect(data.mcp_servers["llm-wiki"]).toEqual({ command: NODE, args: [MCP] });
          continue;
        }
        const data = readJson(path);
        expect(data.theme).toBe("dark");
        expect(JSON.stringify(data)).toContain('"echo hi"');
        expect(text.includes(MCP) || text.includes("hook session-start")).toBe(true);
      }
      const written = snapshotFiles(where.project);
      const writtenHome = snapshotFiles(where.home);
      const second = applyPlan(plan(client, scope, where), "add", false);
      expect(second.files.map((f) => f.change)).toEqual(files.map(() => "unchanged"));
      expect(snapshotFiles(where.project)).toEqual(written);
      expect(snapshotFiles(where.home)).toEqual(writtenHome);
      const removed = applyPlan(plan(client, scope, where), "remove", false);
      expect(removed.ok).toBe(true);
      for (const path of files) {
        const original = before.get(path) ?? "";
        const now = readFileSync(path, "utf8");
        if (path.endsWith(".toml")) expect(now).toBe(original);
        else expect(JSON.parse(now)).toEqual(JSON.parse(original));
      }
    });
  }

  it("--dry-run shows the lines it would add and writes nothing", () => {
    const where = places();
    const result = applyPlan(plan(client, "project", where), "add", true);
    expect(result.ok).toBe(true);
    expect(result.files.some((f) => f.diff.includes("+ ") && f.diff.includes("index.js"))).toBe(
      true,
    );
    expect(snapshotFiles(where.project).size).toBe(0);
  });

  it("a malformed file is refused with a diagnostic naming it; no file of the plan is written", () => {
    const where = places();
    const files = plan(client, "project", where).files.map((f) => f.path);
    const broken = files[0] as string;
    mkdirSync(join(broken, ".."), { recursive: true });
    writeFileSync(broken, broken.endsWith(".toml") ? "[mcp_servers\nx = " : '{ "a": 1, // note\n}');
    const before = snapshotFiles(where.project);
    const result = applyPlan(plan(client, "project", where), "add", false);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toBe("setup_config_unreadable");
    expect(result.diagnostics[0]?.message).toContain(broken);
    expect(snapshotFiles(where.project)).toEqual(before);
  });

  it("never writes through a symbolic link in the project", () => {
    const where = places();
    const outside = makeTempDir("llm-wiki-setup-outside-");
    const first = plan(client, "project", where).files[0]?.path as string;
    const parent = join(first, "..");
    if (parent === where.project) symlinkSync(join(outside, "target"), first);
    else symlinkSync(outside, parent);
    const result = applyPlan(plan(client, "project", where), "add", false);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toBe("write_through_link");
    expect(snapshotFiles(outside).size).toBe(0);
  });
});

describe("hooks", () => {
  it("replaces an older llm-wiki hook (another install's path) instead of adding a second", () => {
    const where = places();
    const path = join(where.project, ".claude", "settings.json");
    mkdirSync(join(path, ".."));
    const old = { type: "command", command: "npx -y -p llm-wiki-memory llm-wiki hook user-prompt" };
    const mine = { type: "command", command: "my-own-hook" };
    writeFileSync(path, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [old, mine] }] } }));
    applyPlan(plan("claude-code", "project", where), "add", false);
    const groups = (readJson(path).hooks as Record<string, Array<{ hooks: unknown[] }>>)
      .UserPromptSubmit as Array<{ hooks: Array<{ command: string }> }>;
    const commands = groups.flatMap((g) => g.hooks.map((h) => h.command));
    expect(commands.filter((c) => c.includes("hook user-prompt"))).toHaveLength(1);
    expect(commands).toContain("my-own-hook");
    expect(commands.find((c) => c.includes("hook user-prompt"))).toContain(shellWord(CLI));
  });

  it("gives Codex's SessionEnd hook the 3 s Codex runs it for, and replaces a longer one written before", () => {
    const timeouts = (path: string) =>
      Object.fromEntries(
        Object.entries(readJson(path).hooks as Record<string, Array<{ hooks: unknown[] }>>).map(
          ([event, groups]) => [
            event,
            groups.flatMap((g) => g.hooks as Array<{ command: string; timeout: number }>),
          ],
        ),
      );
    const where = places();
    const path = join(where.project, ".codex", "hooks.json");
    mkdirSync(join(path, ".."));
    // What an earlier setup wrote: Codex clamped it and warned on every start.
    const earlier = { type: "command", command: "llm-wiki hook session-end", timeout: 10 };
    writeFileSync(path, JSON.stringify({ hooks: { SessionEnd: [{ hooks: [earlier] }] } }));
    applyPlan(plan("codex", "project", where), "add", false);
    const codex = timeouts(path);
    expect(codex.SessionEnd?.map((h) => h.timeout)).toEqual([3]);
    for (const event of ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact"])
      expect(
        codex[event]?.map((h) => h.timeout),
        event,
      ).toEqual([10]);
    // Claude Code gives SessionEnd its 10 s.
    applyPlan(plan("claude-code", "project", where), "add", false);
    const claude = timeouts(join(where.project, ".claude", "settings.json"));
    expect(claude.SessionEnd?.map((h) => h.timeout)).toEqual([10]);
  });

  it("quotes every word of the command for the shell", () => {
    expect(shellWord("/a b/it's")).toBe(`'/a b/it'\\''s'`);
    expect(shellWord("/plain/path.js")).toBe("/plain/path.js");
    expect(
      isOurHandler({
        command: `${shellWord(NODE)} ${shellWord(CLI)} hook session-start`,
      }),
    ).toBe(true);
    expect(isOurHandler({ command: "llm-wiki-other hookish" })).toBe(false);
  });

  it("refuses hooks that are not a list, untouched", () => {
    const where = places();
    const path = join(where.project, ".claude", "settings.json");
    mkdirSync(join(path, ".."));
    writeFileSync(path, '{"hooks": {"SessionStart": "rm -rf /"}}');
    const result = applyPlan(plan("claude-code", "project", where), "add", false);
    expect(result.ok).toBe(false);
    expect(readFileSync(path, "utf8")).toBe('{"hooks": {"SessionStart": "rm -rf /"}}');
  });
});

describe("hostile JSON", () => {
  it("keeps __proto__ and constructor keys as data and pollutes no prototype", () => {
    const where = places();
    const path = join(where.project, ".cursor", "mcp.json");
    mkdirSync(join(path, ".."));
    const text =
      '{"__proto__":{"polluted":true},"mcpServers":{"__proto__":{"x":1},"constructor":2}}';
    writeFileSync(path, text);
    expect(applyPlan(plan("cursor", "project", where), "add", false).ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const after = readFileSync(path, "utf8");
    // Edited in place: the user's own bytes stay as written.
    expect(after).toContain('{"__proto__":{"polluted":true},"mcpServers":{"__proto__":{"x":1}');
    expect(after).toContain('"constructor":2');
    applyPlan(plan("cursor", "project", where), "remove", false);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(JSON.parse(text));
  });
});

describe("codex config.toml, edited as text", () => {
  // Ours by its shape: an install's Node running the bundled server.
  const entry = { command: "/n/node", args: ["/m/llm-wiki/dist/mcp/index.js"] };

  it("refuses an llm-wiki entry written inline rather than guess", () => {
    const text = 'mcp_servers = { llm-wiki = { command = "llm-wiki-mcp" } }\n';
    expect(() => editCodexToml("/c.toml", text, entry, "add")).toThrow(/cannot be edited safely/);
  });

  it("rewrites our table's command in place, keeps its subtables, not a header-like line inside a multi-line string", () => {
    const text = [
      'note = """',
      "[mcp_servers.llm-wiki]",
      '"""',
      "[mcp_servers.llm-wiki]",
      'command = "/old/bin/llm-wiki-mcp"',
      "[mcp_servers.llm-wiki.env]",
      'A = "1"',
      "[after]",
      "x = 1 # kept",
      "",
    ].join("\n");
    const next = editCodexToml("/c.toml", text, entry, "add") ?? "";
    const data = parse(next) as Record<string, unknown>;
    expect(data.note).toBe("[mcp_servers.llm-wiki]\n");
    expect(data.after).toEqual({ x: 1 });
    expect((data.mcp_servers as Record<string, unknown>)["llm-wiki"]).toEqual({
      ...entry,
      env: { A: "1" },
    });
    expect(next).toContain("x = 1 # kept");
  });

  it("keeps random comments and tables byte for byte through add then remove", () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    let state = seed;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const pieces = [
      "# comment ]]] [mcp_servers.llm-wiki]",
      'k = "v # not a comment"',
      "n = 3",
      "[t]",
      "arr = [\n  1,\n  2,\n]",
      "[mcp_servers.x]\ncommand = 'y'",
    ];
    const lines: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < 12; i += 1) {
      const piece = (pieces[rand(pieces.length)] as string).replace(/^(k|n|arr) =/, `$1${i} =`);
      if (piece.startsWith("[") && seen.has(piece)) continue;
      if (piece.startsWith("[")) seen.add(piece);
      else if (seen.size > 0 && !piece.startsWith("#")) continue;
      lines.push(piece);
    }
    const text = `${lines.join("\n")}\n`;
    const added = editCodexToml("/c.toml", text, entry, "add");
    const removed = editCodexToml("/c.toml", added, entry, "remove");
    expect(removed, `seed ${seed}\n${text}`).toBe(text);
  });
});
