/**
 * `docs/api.md` lists every tool the hosts register (Pi's one file per tool,
 * the MCP server's tool lists) and every command the CLI's usage text names,
 * each as a row of its table: a tool or command added without its line in
 * the reference fails here.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { usageCommands } from "../cli/help.ts";
import { CLI } from "./helpers/cli.ts";

const REPO = join(import.meta.dirname, "..");
const API = readFileSync(join(REPO, "docs", "api.md"), "utf8");

/** Tool names registered in the TypeScript files of a folder (Pi's `name: "wiki_…"`, MCP's `defineTool("wiki_…"`). */
function registeredTools(dir: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(join(REPO, dir))) {
    if (!file.endsWith(".ts")) continue;
    const text = readFileSync(join(REPO, dir, file), "utf8");
    for (const m of text.matchAll(/(?:\bname:\s*|defineTool\(\s*)"(wiki_[a-z_]+)"/g))
      names.add(m[1] ?? "");
  }
  return [...names].sort();
}

describe("docs/api.md", () => {
  it("has a row for every tool Pi and the MCP server register", () => {
    const tools = [
      ...new Set([...registeredTools("extensions/llm-wiki/pi"), ...registeredTools("mcp")]),
    ];
    // Both hosts are read: an empty list would mean the pattern no longer finds them.
    expect(tools).toContain("wiki_recall");
    expect(tools).toContain("wiki_prime");
    const missing = tools.filter((t) => !API.includes(`| \`${t}\` |`));
    expect(missing).toEqual([]);
  });

  it("has a row for every command the CLI's usage text names", () => {
    const usage = execFileSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    const commands = usageCommands(usage);
    expect(commands).toContain("recall");
    const missing = commands.filter((c) => !API.includes(`| \`${c}`));
    expect(missing).toEqual([]);
  });
});
