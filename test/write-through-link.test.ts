/**
 * No write through a link (issue 22, section 5): a repository can commit a
 * symbolic link anywhere llm-wiki writes, `.pi` pointing at the user's
 * `~/.pi/agent` (left alone: Pi settings go to the extension's own file in
 * Pi's agent folder, whose folders are checked instead), a folder of
 * an earlier OKF export at somewhere else. Each write is refused with
 * `write_through_link` naming the link, and the folder it points to (drawn
 * afresh each run, with random files in it) stays byte for byte as it was
 * (an OKF export refuses such a folder already as not its own; the write
 * helper refuses it again below the destination).
 * Everything runs through the real CLI.
 */
import { randomInt } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

/** A folder standing for something the user owns: a few random files, one a settings.json. */
function userFolder(): string {
  const dir = makeTempDir("llm-wiki-user-");
  writeFileSync(
    join(dir, "settings.json"),
    `${JSON.stringify({ [randomWord()]: randomWords(3), "llm-wiki": { trajectories: true } }, null, 2)}\n`,
  );
  for (let i = randomInt(1, 4); i > 0; i--) {
    writeFileSync(join(dir, `${randomWord()}.txt`), randomWords(randomInt(2, 20)));
  }
  return dir;
}

interface Json {
  ok: boolean;
  diagnostics: Array<{ code: string; message: string; path?: string }>;
}

function expectRefusedNaming(run: { status: number | null; stdout: string }, link: string): void {
  expect(run.status).toBe(1);
  const out = JSON.parse(run.stdout) as Json;
  expect(out.ok).toBe(false);
  const refusal = out.diagnostics.find((d) => d.code === "write_through_link");
  expect(refusal?.path).toBe(link);
  expect(refusal?.message).toContain(link);
}

describe("a project's Pi settings are never written through a link", () => {
  // `--pi` writes the extension's own file in Pi's agent folder: a repository's `.pi` is never written.
  for (const on of [false, true]) {
    it(`trajectory ${on ? "on" : "off"} --pi with .pi linked to the user's Pi folder: nothing written there`, () => {
      const project = makeTempDir("llm-wiki-project-");
      const agent = userFolder();
      const before = snapshotFiles(agent);
      symlinkSync(agent, join(project, ".pi"), "dir");
      const env = childEnv();
      const run = runCli(["trajectory", on ? "on" : "off", "--pi", "--json"], {
        cwd: project,
        env,
      });
      expect(run.status).toBe(0);
      expect(snapshotFiles(agent)).toEqual(before);
      const path = (JSON.parse(run.stdout) as { path: string }).path;
      expect(path.startsWith(join(env.HOME ?? "", ".pi", "agent", "llm-wiki", "projects"))).toBe(
        true,
      );
      expect(JSON.parse(readFileSync(path, "utf8"))["llm-wiki"]).toEqual({ trajectories: on });
    });
  }

  it("trajectory off --pi with the extension's projects folder linked elsewhere: refused, the target unchanged", () => {
    const project = makeTempDir("llm-wiki-project-");
    const target = userFolder();
    const before = snapshotFiles(target);
    const env = childEnv();
    const link = join(env.HOME ?? "", ".pi", "agent", "llm-wiki");
    mkdirSync(join(env.HOME ?? "", ".pi", "agent"), { recursive: true });
    symlinkSync(target, link, "dir");
    const run = runCli(["trajectory", "off", "--pi", "--json"], { cwd: project, env });
    expectRefusedNaming(run, link);
    expect(snapshotFiles(target)).toEqual(before);
  });
});

describe("an OKF export never writes through a link below its destination", () => {
  it("a folder of an earlier export replaced by a link: refused, the target unchanged", () => {
    const vault = makeTempVault({
      pages: {
        [`concepts/${randomWord(5, 10)}`]: `---\ntype: concept\ntitle: ${randomWords(3)}\n---\n${randomWords(20)}\n`,
      },
    });
    const env = childEnv();
    const dest = join(makeTempDir("llm-wiki-export-"), "bundle");
    const first = runCli(["export", "--okf", dest, "--json"], { cwd: vault.root, env });
    expect(first.status).toBe(0);
    // The exported folder moved elsewhere (as it was, so the export still
    // recognises its files) and a link left in its place.
    const folder = join(dest, "concepts");
    const elsewhere = join(makeTempDir("llm-wiki-user-"), randomWord());
    renameSync(folder, elsewhere);
    writeFileSync(join(elsewhere, `${randomWord()}.txt`), randomWords(8));
    symlinkSync(elsewhere, folder, "dir");
    vault.writePage(
      `concepts/${randomWord(11, 14)}`,
      `---\ntype: concept\ntitle: ${randomWords(3)}\n---\n${randomWords(20)}\n`,
    );
    const before = snapshotFiles(elsewhere);
    const again = runCli(["export", "--okf", dest, "--json"], { cwd: vault.root, env });
    expect(again.status).toBe(1);
    // Refused before writing (the link is not a file the export wrote), naming it.
    const out = JSON.parse(again.stdout) as Json;
    expect(out.ok).toBe(false);
    expect(out.diagnostics.map((d) => d.message).join("\n")).toMatch(/concepts/);
    expect(snapshotFiles(elsewhere)).toEqual(before);
  });
});
