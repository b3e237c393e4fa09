/**
 * The README's first screen: what the project is, then how to install it
 * for each client — Pi, Claude Code's plugin, Codex and Gemini CLI through
 * `setup`, and any MCP client through an `mcpServers` block that parses and
 * names a bin the package ships — before the rest of the README: the
 * command that works today (a clone's install script) and the registry's,
 * saying which applies, each in a lean form.
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

  it("gives a command that works today (from a clone) and the registry's, saying which applies; every one lean", () => {
    expect(FIRST).toContain("node scripts/install.js");
    expect(FIRST).toMatch(/not on the npm registry\s+yet/);
    const commands = [...FIRST.matchAll(/```(?:sh|text)\n([\s\S]*?)```/g)].flatMap((m) =>
      (m[1] ?? "").split("\n").filter((line) => /\bnpm (?:install|i)\b|pi install npm:/.test(line)),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const line of commands) {
      // npm ignores --omit=optional for a global install (npm/cli#8284): no -g line is lean.
      expect(line, line).not.toMatch(/\s-g\b|--global/);
      expect(line, line).toMatch(/--omit=optional|npm_config_omit=optional/);
    }
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
