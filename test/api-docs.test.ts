/**
 * `docs/api.md` lists everything the hosts offer, each as a row of its own
 * (a line starting `| \`name`): every tool and command the Pi extension
 * registers (read by running its entry point against a recording stand-in
 * for Pi), the working-memory tools (registered while the setting is on),
 * every prompt template the package ships, every tool and prompt the MCP
 * server offers, and every command the CLI's usage text names. Something
 * added without its row fails here.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { usageCommands } from "../cli/help.ts";
import llmWiki from "../extensions/llm-wiki/index.ts";
import { TRAJECTORY_TOOL_DESCRIPTIONS } from "../extensions/llm-wiki/lib/trajectories/tool-schemas.ts";
import { PROMPTS } from "../mcp/prompts.ts";
import { TOOLS } from "../mcp/tools.ts";
import { TRAJECTORY_MCP_TOOLS } from "../mcp/trajectory-tools.ts";
import { CLI } from "./helpers/cli.ts";

const REPO = join(import.meta.dirname, "..");
const API = readFileSync(join(REPO, "docs", "api.md"), "utf8");
const ROWS = API.split("\n").filter((line) => line.startsWith("| `"));

/** Whether a table row starts with `` `name`` (followed by a space, a backtick or an argument). */
function hasRow(name: string): boolean {
  return ROWS.some((row) => row.startsWith(`| \`${name}\``) || row.startsWith(`| \`${name} `));
}

/** What the Pi extension registers when Pi loads it: tool and command names. */
function piRegistrations(): { tools: string[]; commands: string[] } {
  const tools: string[] = [];
  const commands: string[] = [];
  const pi = new Proxy(
    {},
    {
      get(_target, key) {
        if (key === "registerTool") return (tool: { name: string }) => tools.push(tool.name);
        if (key === "registerCommand") return (name: string) => commands.push(name);
        // Event hooks and the rest: registered, never run here.
        return () => undefined;
      },
    },
  ) as ExtensionAPI;
  llmWiki(pi);
  return { tools, commands };
}

describe("docs/api.md", () => {
  it("has a row for every tool Pi and the MCP server register", () => {
    const pi = piRegistrations().tools;
    // An empty list would mean the stand-in no longer sees the registrations.
    expect(pi).toContain("wiki_recall");
    expect(pi).toContain("wiki_digest");
    const tools = new Set([
      ...pi,
      ...Object.keys(TRAJECTORY_TOOL_DESCRIPTIONS),
      ...TOOLS.map((t) => t.name),
      ...TRAJECTORY_MCP_TOOLS.map((t) => t.name),
    ]);
    expect(tools).toContain("wiki_prime");
    expect([...tools].filter((t) => !hasRow(t))).toEqual([]);
  });

  it("has a row for every Pi command and prompt template, and every MCP prompt", () => {
    const commands = piRegistrations().commands;
    expect(commands).toContain("wiki-query");
    const templates = readdirSync(join(REPO, "prompts"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.replace(/\.md$/, ""));
    expect(templates).toContain("wiki-run");
    const slashed = [...new Set([...commands, ...templates])].map((c) => `/${c}`);
    expect(slashed.filter((c) => !hasRow(c))).toEqual([]);
    const prompts = PROMPTS.map((p) => p.name);
    expect(prompts).toContain("prime");
    expect(prompts.filter((p) => !hasRow(p))).toEqual([]);
  });

  it("has a row for every command the CLI's usage text names", () => {
    const usage = execFileSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    const commands = usageCommands(usage);
    expect(commands).toContain("recall");
    expect(commands.filter((c) => !hasRow(c))).toEqual([]);
  });
});
