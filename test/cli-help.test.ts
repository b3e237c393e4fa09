/**
 * The CLI as a person meets it (real child processes on real temporary
 * vaults): `llm-wiki <command> --help`, `-h` and `llm-wiki help <command>`
 * print that command's own usage lines, the common options and an example,
 * and exit 0, for every command the usage lists and for sub-commands
 * (`trajectory capture`, `hook session-start`) and `okf` (export and
 * import). An option's value may start with `-` (`page --content "-5
 * degrees"`, `--content=-5`), while an option left without a value is still
 * a usage error that names it. `trajectory capture` names the step roles it
 * accepts, in its usage and when a step's role is wrong. `capture --file`
 * outside the allowed folders says why and how to capture it anyway.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hasExample, usageCommands } from "../cli/help.ts";
import { type CliRun, runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

function setup() {
  const vault = makeTempVault();
  const home = makeTempDir("llm-wiki-home-");
  const env = {
    HOME: home,
    WIKI_HOME: join(home, "no-personal"),
    LLM_WIKI_SETTINGS: join(home, "settings.json"),
  };
  const run = (args: string[], input?: string): CliRun =>
    runCli(args, { cwd: vault.root, env, ...(input !== undefined ? { input } : {}) });
  return { vault, home, env, run };
}

describe("per-command help", () => {
  it("every command the usage lists has its own help, with an example, on --help; exit 0", () => {
    const { run } = setup();
    const usage = run(["help"]);
    expect(usage.status).toBe(0);
    const commands = usageCommands(usage.stdout);
    expect(commands).toEqual(expect.arrayContaining(["page", "capture", "trajectory", "hook"]));
    for (const command of commands) {
      const help = run([command, "--help"]);
      expect(help.status, command).toBe(0);
      expect(help.stdout, command).toMatch(
        new RegExp(`^usage: llm-wiki ${command} \\[options\\]\\n`),
      );
      // Its own lines of the usage, not the whole list.
      expect(help.stdout, command).toMatch(new RegExp(`\\n  ${command}\\b`));
      expect(help.stdout.length, command).toBeLessThan(usage.stdout.length / 2);
      expect(help.stdout, command).toContain("common options:");
      expect(hasExample(command), command).toBe(true);
      expect(help.stdout, command).toMatch(/\nexample:\n {2}\S/);
      expect(help.stderr, command).toBe("");
    }
    // One process per command: a loaded machine needs the room.
  }, 900_000);

  it("-h and `help <command>` print the same help as --help", () => {
    const { run } = setup();
    for (const command of ["page", "recall", "capture"]) {
      const long = run([command, "--help"]).stdout;
      expect(run([command, "-h"]).stdout).toBe(long);
      const viaHelp = run(["help", command]);
      expect(viaHelp.status).toBe(0);
      expect(viaHelp.stdout).toBe(long);
    }
  });

  it("sub-commands: trajectory capture alone, with the roles it accepts; okf is export and import; hook prints on stdout", () => {
    const { run } = setup();
    const capture = run(["trajectory", "capture", "--help"]);
    expect(capture.status).toBe(0);
    expect(capture.stdout).toMatch(/^usage: llm-wiki trajectory capture/);
    expect(capture.stdout).toContain('"role": "user"|"assistant"|"tool"');
    expect(capture.stdout).not.toContain("trajectory distill");
    expect(run(["help", "trajectory", "capture"]).stdout).toBe(capture.stdout);
    const okf = run(["okf", "--help"]);
    expect(okf.status).toBe(0);
    expect(okf.stdout).toContain("  export --okf DIR");
    expect(okf.stdout).toContain("  import --okf DIR");
    for (const args of [
      ["hook", "--help"],
      ["hook", "session-start", "-h"],
    ]) {
      const hook = run(args);
      expect(hook.status, args.join(" ")).toBe(0);
      expect(hook.stdout, args.join(" ")).toContain("  hook session-start|user-prompt");
      expect(hook.stdout, args.join(" ")).toContain("example:");
    }
  });

  it("an unknown command's help is a usage error with the whole usage", () => {
    const { run } = setup();
    const name = `no-${randomWord(5, 9)}`;
    const out = run(["help", name]);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(`unknown command "${name}"`);
    expect(out.stderr).toContain("usage: llm-wiki <command>");
  });
});

describe("option values that start with -", () => {
  it('page --content "-5 degrees…" and --content=-5 are the page\'s text', () => {
    const { vault, run } = setup();
    const body = `-5 degrees ${randomWords(3)}`;
    const spaced = run([
      "page",
      "--type",
      "concept",
      "--title",
      "Frost",
      "--content",
      body,
      "--json",
    ]);
    expect(spaced.status, spaced.stderr).toBe(0);
    const id = (JSON.parse(spaced.stdout) as { id: string }).id;
    expect(vault.readPage(id)).toContain(`\n${body}`);
    const joined = run(["page", "--type", "concept", "--title", "Thaw", "--content=-5", "--json"]);
    expect(joined.status, joined.stderr).toBe(0);
    const thaw = (JSON.parse(joined.stdout) as { id: string }).id;
    expect(vault.readPage(thaw)).toMatch(/\n-5\n?$/);
  });

  it("random values led by dashes are taken as values, not options", () => {
    const { vault, run } = setup();
    for (let i = 0; i < 3; i++) {
      // Not one of the command's options: one or two dashes, then words.
      const value = `${"-".repeat(1 + (i % 2))}${randomWord(3, 8)} ${randomWords(2)}`;
      const title = `T${randomWord(6, 10)}`;
      const out = run([
        "page",
        "--type",
        "concept",
        "--title",
        title,
        "--content",
        value,
        "--json",
      ]);
      expect(out.status, `value ${JSON.stringify(value)}: ${out.stderr}`).toBe(0);
      const id = (JSON.parse(out.stdout) as { id: string }).id;
      expect(vault.readPage(id)).toContain(value);
    }
    const limit = run(["search", "--limit", "-3", "anything"]);
    expect(limit.status).toBe(2);
    expect(limit.stderr).toContain("--limit takes a positive whole number");
  });

  it("an option without a value is still a usage error naming it", () => {
    const { run } = setup();
    for (const args of [
      ["page", "--type", "concept", "--title", "X", "--content"],
      ["page", "--type", "concept", "--title", "X", "--content", "--json"],
    ]) {
      const out = run(args);
      expect(out.status, args.join(" ")).toBe(2);
      expect(out.stderr.split("\n")[0]).toBe("llm-wiki: page: option --content needs a value");
      expect(out.stderr).toContain("usage: llm-wiki page [options]");
    }
  });
});

describe("errors that say what to do", () => {
  it("trajectory capture names the roles it accepts when a step's role is wrong", () => {
    const { env, vault, run } = setup();
    writeFileSync(env.LLM_WIKI_SETTINGS, JSON.stringify({ "llm-wiki": { trajectories: true } }));
    const steps = join(vault.root, "steps.json");
    writeFileSync(steps, JSON.stringify([{ role: randomWord(4, 9), text: randomWords(3) }]));
    const out = run(["trajectory", "capture", "--steps", steps]);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('role must be one of "user", "assistant", "tool"');
  });

  it("capture --file outside the allowed folders explains the rule and how to capture it anyway", () => {
    const { run } = setup();
    const outside = join(makeTempDir("llm-wiki-elsewhere-"), `${randomWord()}.md`);
    writeFileSync(outside, randomWords(10));
    const out = run(["capture", "--file", outside, "--json"]);
    expect(out.status).toBe(1);
    const result = JSON.parse(out.stdout) as {
      diagnostics: Array<{ code: string; message: string; repair?: string }>;
    };
    const refusal = result.diagnostics.find((d) => d.code === "capture_path_outside");
    expect(refusal?.message).toContain(outside);
    expect(refusal?.message).toContain("reads files only inside the project");
    expect(refusal?.repair).toContain("copy the file into the project");
    expect(refusal?.repair).toContain("llm-wiki capture --text - < FILE");
    const plain = run(["capture", "--file", outside]);
    expect(plain.stderr).toContain("(fix: copy the file into the project");
  });
});
