/**
 * The CLI's writing commands as a person runs them (a real child process):
 * the same service operations as the Pi and MCP tools, never overwriting,
 * with usage errors (exit 2) and operation errors (exit 1) told apart.
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** The CLI in `cwd`, its home the folder above (the personal vault under it, in personal/). */
function cli(cwd: string, args: string[], input?: string) {
  const home = join(cwd, "..");
  return runCli(args, { cwd, env: { HOME: home, WIKI_HOME: join(home, "personal") }, input });
}

function project(): string {
  const dir = join(makeTempDir("llm-wiki-cli-writing-"), "project");
  mkdirSync(dir, { recursive: true });
  expect(cli(dir, ["init"]).status).toBe(0);
  return dir;
}

describe("llm-wiki page", () => {
  it("creates pages, keeps two Chinese titles apart and never overwrites", () => {
    const dir = project();
    expect(
      cli(dir, ["page", "--type", "concept", "--title", "召回策略", "--content", "v1"]).status,
    ).toBe(0);
    expect(cli(dir, ["page", "--type", "concept", "--title", "召回评估"]).status).toBe(0);
    const again = cli(dir, [
      "page",
      "--type",
      "concept",
      "--title",
      "召回策略",
      "--content",
      "v2",
      "--json",
    ]);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      ok: true,
      created: false,
      id: "concepts/召回策略",
    });
    // Besides the pages, only the folder's generated OKF index (views follow writes).
    const concepts = readdirSync(join(dir, ".llm-wiki", "wiki", "concepts")).sort();
    expect(concepts).toEqual(["index.md", "召回策略.md", "召回评估.md"]);
    expect(
      readFileSync(join(dir, ".llm-wiki", "wiki", "concepts", "召回策略.md"), "utf8"),
    ).toContain("v1");
  });

  it("reads --content - from standard input", () => {
    const dir = project();
    const out = cli(
      dir,
      ["page", "--type", "skill", "--title", "Release steps", "--content", "-"],
      "1. tag\n2. push\n",
    );
    expect(out.status).toBe(0);
    expect(
      readFileSync(join(dir, ".llm-wiki", "wiki", "skills", "release-steps.md"), "utf8"),
    ).toContain("2. push");
  });
});

describe("llm-wiki observe, retro, log-event, ingest", () => {
  it("returns what the service returns for the same operation", () => {
    const viaCli = project();
    const out = cli(viaCli, [
      "observe",
      "--title",
      "Parser race",
      "--content",
      "The test races the watcher.",
      "--tag",
      "tests",
      "--json",
    ]);
    expect(out.status, out.stderr).toBe(0);
    const fromCli = JSON.parse(out.stdout) as Record<string, unknown>;

    const direct = project();
    const fromService = serviceFor(direct, { discover: true }).observe({
      title: "Parser race",
      content: "The test races the watcher.",
      tags: ["tests"],
    });
    const shape = (r: Record<string, unknown>) => ({
      ok: r.ok,
      created: r.created,
      id: r.id,
      path: r.path,
    });
    expect(shape(fromCli)).toEqual(shape(fromService as unknown as Record<string, unknown>));
    expect(fromCli.id).toMatch(/^sources\/obs-\d{4}-\d{2}-\d{2}-parser-race$/);
  });

  it("appends events and refuses a malformed kind with exit 1, leaving the log as it was", () => {
    const dir = project();
    expect(cli(dir, ["log-event", "deploy_done", "--detail", '{"version":"1.2"}']).status).toBe(0);
    const log = join(dir, ".llm-wiki", "meta", "events.jsonl");
    const before = readFileSync(log, "utf8");
    expect(before.trim().split("\n").at(-1)).toContain('"kind":"deploy_done"');
    const bad = cli(dir, ["log-event", "Deploy Done"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("snake_case");
    expect(readFileSync(log, "utf8")).toBe(before);
  });

  it("tells usage errors (exit 2) from operation errors", () => {
    const dir = project();
    expect(cli(dir, ["retro", "--title", "R"]).status).toBe(2);
    expect(cli(dir, ["log-event", "x", "--detail", "not json"]).status).toBe(2);
    expect(cli(dir, ["observe", "--title", "T"]).status).toBe(2);
    const retro = cli(dir, [
      "retro",
      "--title",
      "Release 1.2",
      "--lesson",
      "Pin QMD",
      "--went-well",
      "fast CI",
    ]);
    expect(retro.status).toBe(0);
    expect(retro.stdout).toMatch(/^recorded retro sources\/retro-/);
    // A recorded retro is no skeleton source: nothing waits to be ingested.
    const ingest = cli(dir, ["ingest", "--json"]);
    expect(ingest.status, ingest.stderr).toBe(0);
    expect(JSON.parse(ingest.stdout)).toMatchObject({
      ok: true,
      pending: [],
      diagnostics: [{ code: "ingest_nothing_waiting", severity: "info" }],
    });
  });
});
