/**
 * The team at a size that runs in seconds (`pnpm benchmark:team` runs it
 * large): writers in their own clones of one bare repository, each writing
 * through one host's path — the MCP server a client keeps open, the CLI, a
 * real Pi session driven by Pi's scripted faux model — and recalling
 * between commits, with pulls (merge or `--rebase`) and pushes interleaved
 * at random (a fresh seed each run, printed). No plain pull is refused,
 * leaves a conflicted file or a changed tracked file, no event or page is
 * lost, each host's first recall after a pull finds the page a teammate
 * just pushed, and every clone's recall answers for every page after the
 * last pull.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runTeamScale } from "../scripts/bench/team-scale.ts";
import { CLI } from "./helpers/cli.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => {
  vi.unstubAllEnvs();
  removeTempDirs();
});

describe("a team of writers on every host", () => {
  it("merges every pull cleanly and loses nothing, and every recall follows", async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`team-scale seed ${seed}`);
    const root = makeTempDir("llm-wiki-team-scale-");
    // Pi's extension discovers vaults from the environment: a home holding none.
    const piHome = join(root, "pi-home");
    mkdirSync(piHome);
    vi.stubEnv("HOME", piHome);
    vi.stubEnv("WIKI_HOME", piHome);
    vi.stubEnv("XDG_CACHE_HOME", join(piHome, ".cache"));
    const report = await runTeamScale({
      root,
      writers: 4,
      writesPerWriter: 3,
      seed,
      hosts: ["pi", "mcp", "cli", "mcp"],
      cli: CLI,
      mcpServer: SERVER,
    });
    expect(report.writes).toBe(12);
    expect(report.conflicts).toEqual([]);
    expect(report.pulls.filter((p) => p.dirty.length > 0)).toEqual([]);
    // The agents' recalls between commits left lines no commit held when they pulled.
    expect(report.pulls.filter((p) => p.uncommittedEvents > 0).length).toBeGreaterThan(0);
    expect(report.repeatedLines).toBe(0);
    expect(report.lostEvents).toEqual([]);
    expect(report.lostPages).toEqual([]);
    expect(report.unanswered).toEqual([]);
    const followed = report.pulls.filter((p) => p.found !== undefined);
    expect(followed.length).toBeGreaterThan(0);
    expect(followed.filter((p) => !p.found)).toEqual([]);
  });
});
