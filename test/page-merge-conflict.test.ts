/**
 * Two teammates edit one page. Edits git can merge line by line are kept
 * (both show in recall). Edits of the same lines leave git's conflict
 * markers in the page: `lint`, `status` and recall report it as a conflict
 * to resolve, recall finds the page by either version's words and shows
 * both versions labelled, never the markers, and nothing rewrites the file.
 * Markers inside fenced code (a runbook about git) are content.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cloneHome, gitEnv, runGit, runTeamCli, setUpTeam } from "../scripts/bench/team-sim.ts";
import { CLI } from "./helpers/cli.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const MARKER = /^(<{7}|={7}|>{7}|\|{7})/m;

/** Two clones sharing one page, `concepts/plan`, of six lines of body. */
function sharedPage() {
  const root = makeTempDir("llm-wiki-page-merge-");
  const { clones } = setUpTeam(root, 2, CLI);
  const [alice, bob] = clones as [string, string];
  const home = join(root, "home");
  const git = (clone: string, ...args: string[]) => runGit(clone, home, args);
  const file = (clone: string) => join(clone, ".llm-wiki", "wiki", "concepts", "plan.md");
  const title = `Plan ${randomWord(6, 8)}`;
  const lines = Array.from({ length: 6 }, (_, i) => `Line ${i}: ${randomWord(7, 9)}.`);
  mkdirSync(dirname(file(alice)), { recursive: true });
  writeFileSync(file(alice), pageText({ type: "concept", title }, `${lines.join("\n\n")}\n`));
  git(alice, "add", "-A");
  git(alice, "commit", "-q", "-m", "plan");
  git(alice, "push", "-q", "origin", "HEAD:main");
  git(bob, "pull", "-q", "--no-edit", "origin", "main");
  const edit = (clone: string, from: string, to: string) => {
    const text = readFileSync(file(clone), "utf8");
    expect(text).toContain(from);
    writeFileSync(file(clone), text.replace(from, to));
    git(clone, "commit", "-q", "-am", `edit by ${clone}`);
  };
  const cli = (clone: string, args: string[]) =>
    runTeamCli(CLI, clone, cloneHome(root, clone === alice ? 0 : 1), args, [0, 1]);
  return { root, alice, bob, git, file, title, lines, edit, cli };
}

describe("two teammates editing one page", () => {
  it("keeps a merge git can do line by line", () => {
    const { alice, bob, git, file, lines, edit, cli } = sharedPage();
    const [a, b] = [randomWord(9, 11), randomWord(9, 11)];
    edit(alice, lines[0] as string, `Line 0: ${a}.`);
    git(alice, "push", "-q", "origin", "HEAD:main");
    edit(bob, lines[5] as string, `Line 5: ${b}.`);
    git(bob, "pull", "-q", "--no-edit", "origin", "main");
    const text = readFileSync(file(bob), "utf8");
    expect(text).toContain(a);
    expect(text).toContain(b);
    expect(text).not.toMatch(MARKER);
    const recall = JSON.parse(cli(bob, ["recall", `${a} ${b}`, "--json", "--mode", "lexical"]));
    expect(recall.results.map((r: { id: string }) => r.id)).toEqual(["concepts/plan"]);
    expect(recall.results[0].mergeConflicts).toBeUndefined();
  });

  it("reports a real conflict in lint, status and recall, shows both versions and rewrites nothing", () => {
    const { root, alice, bob, git, file, lines, edit, cli } = sharedPage();
    const [a, b] = [randomWord(9, 11), randomWord(9, 11)];
    edit(alice, lines[2] as string, `Line 2: we chose ${a}.`);
    git(alice, "push", "-q", "origin", "HEAD:main");
    edit(bob, lines[2] as string, `Line 2: we chose ${b}.`);
    const pull = spawnSync("git", ["pull", "-q", "--no-edit", "origin", "main"], {
      cwd: bob,
      env: gitEnv(join(root, "home")),
      encoding: "utf8",
    });
    expect(pull.status).not.toBe(0);
    const before = readFileSync(file(bob));
    expect(before.toString()).toMatch(MARKER);

    const lint = JSON.parse(cli(bob, ["lint", "--json"]));
    const findings = lint.vaults.flatMap((v: { findings: unknown[] }) => v.findings);
    expect(findings).toContainEqual(
      expect.objectContaining({
        check: "merge",
        code: "page_merge_conflict",
        path: "wiki/concepts/plan.md",
      }),
    );
    const status = JSON.parse(cli(bob, ["status", "--json"]));
    expect(status.vault.mergeConflicts).toEqual(["concepts/plan"]);
    expect(status.vault.malformed).toBe(0);

    for (const word of [a, b]) {
      const recall = JSON.parse(cli(bob, ["recall", word, "--json", "--mode", "lexical"]));
      expect(recall.results.map((r: { id: string }) => r.id)).toEqual(["concepts/plan"]);
      expect(recall.results[0].mergeConflicts).toBe(1);
      const text = cli(bob, ["recall", word, "--mode", "lexical"]);
      expect(text).toContain("UNRESOLVED MERGE CONFLICT");
      expect(text).not.toMatch(MARKER);
    }
    const shown = cli(bob, ["recall", a, "--mode", "lexical"]);
    expect(shown).toContain(a);
    expect(shown).toContain(b);
    expect(readFileSync(file(bob)).equals(before)).toBe(true);

    // Resolved and committed: an ordinary page again.
    writeFileSync(
      file(bob),
      before.toString().replace(/<{7}[^\n]*\n([^\n]*\n)={7}\n[^\n]*\n>{7}[^\n]*\n/, "$1"),
    );
    git(bob, "commit", "-q", "-am", "resolved");
    expect(JSON.parse(cli(bob, ["status", "--json"])).vault.mergeConflicts).toBeUndefined();
  });

  it("reads conflict markers inside fenced code as content", () => {
    const { alice, file, cli } = sharedPage();
    const word = randomWord(9, 11);
    writeFileSync(
      file(alice),
      pageText(
        { type: "concept", title: "Resolving conflicts" },
        `How ${word} looks:\n\n\`\`\`\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n\`\`\`\n`,
      ),
    );
    const status = JSON.parse(cli(alice, ["status", "--json"]));
    expect(status.vault.mergeConflicts).toBeUndefined();
    const recall = JSON.parse(cli(alice, ["recall", word, "--json", "--mode", "lexical"]));
    expect(recall.results[0].mergeConflicts).toBeUndefined();
  });
});
