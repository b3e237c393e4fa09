/**
 * Conflict resolutions made at the same moment by separate processes (two
 * agents, a person and an agent): the vault ends with one active decision
 * for the pair, never two, and every other caller is refused or told the
 * same decision is already in force.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliAsync } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

describe("concurrent conflict resolutions", () => {
  it("leave exactly one resolution of a pair when processes decide differently at once", async () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}-other`;
    const root = makeTempVault({
      config: { name: "race", vault_id: `vault-${randomWord()}` },
      pages: {
        [a]: pageText({ type: "concept", title: randomWords(2) }, `# A\n\nOne claim.\n`),
        [b]: pageText({ type: "concept", title: randomWords(2) }, `# B\n\nAnother claim.\n`),
      },
    }).root;
    const home = makeTempDir("llm-wiki-race-home-");
    const choices = [
      ["--selected", a, "--other", b, "--relation", "supersedes"],
      ["--selected", b, "--other", a, "--relation", "supersedes"],
      ["--selected", a, "--other", b, "--relation", "applies_under", "--scope", "CI only"],
      ["--selected", b, "--other", a, "--relation", "qualifies"],
    ];
    const runs = await Promise.all(
      choices.map((args) =>
        runCliAsync(["resolve-conflict", "--vault", root, ...args, "--json"], {
          env: { HOME: home, WIKI_HOME: home },
        }),
      ),
    );
    const written = runs.filter((r) => r.status === 0);
    expect(written).toHaveLength(1);
    for (const refused of runs.filter((r) => r.status !== 0)) {
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(
        /already have an active resolution|resolution_busy|holds its lock/,
      );
    }
    const pages = readdirSync(join(root, ".llm-wiki", "wiki", "analyses")).filter((n) =>
      n.endsWith(".md"),
    );
    expect(pages).toHaveLength(1);
  });
});
