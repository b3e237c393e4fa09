/**
 * The README's first screen: what the project is, then how to install it
 * for each client — Pi, Claude Code's plugin, Codex and Gemini CLI through
 * `setup`, and any MCP client through an `mcpServers` block that parses and
 * names a bin the package ships — before the rest of the README.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "..");
const README = readFileSync(join(REPO, "README.md"), "utf8");
const PACKAGE = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  bin: Record<string, string>;
};
/** Up to the first section after the install section. */
const FIRST = README.slice(0, README.indexOf("\n## ", README.indexOf("## Install") + 1));

describe("the README's first screen", () => {
  it("says what the project is, then installs it for each client", () => {
    expect(README.indexOf("## Install")).toBeGreaterThan(0);
    expect(README.slice(0, README.indexOf("## Install"))).toMatch(/memory for coding agents/i);
    expect(FIRST).toContain(`pi install npm:${PACKAGE.name}`);
    expect(FIRST).toMatch(/\/plugin marketplace add .+\n\/plugin install llm-wiki@llm-wiki/);
    expect(FIRST).toMatch(/llm-wiki setup codex/);
    expect(FIRST).toMatch(/llm-wiki setup gemini/);
  });

  it("gives any MCP client an mcpServers block that parses and runs a shipped bin", () => {
    const block = /```json\n([\s\S]*?)```/.exec(FIRST)?.[1];
    expect(block).toBeDefined();
    const doc = JSON.parse(block ?? "") as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const server = doc.mcpServers["llm-wiki"];
    expect(server && Object.hasOwn(PACKAGE.bin, server.command)).toBe(true);
  });
});
