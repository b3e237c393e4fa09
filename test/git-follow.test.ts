/**
 * The index follows git: in a host that stays up (Pi, the MCP server),
 * after `git pull`, `git checkout` or `git merge` the next recall —
 * automatic included — sees exactly the new tree: a teammate's new page is
 * found, a deleted page is gone, a changed page answers with its new words
 * (even when git rewrote it at the same size), and the clone's generated
 * views follow as they follow a write.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { indexLayout } from "../extensions/llm-wiki/lib/index/layout.ts";
import { acquireLock } from "../extensions/llm-wiki/lib/index/lock.ts";
import {
  findGitRepo,
  type GitRepo,
  headCommit,
} from "../extensions/llm-wiki/lib/vault/git-state.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runGit, setUpTeam } from "../scripts/bench/team-sim.ts";
import { CLI } from "./helpers/cli.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** Two clones of one vault; the first has a warm service, the second writes. */
function team() {
  const root = makeTempDir("llm-wiki-git-follow-");
  const { clones } = setUpTeam(root, 2, CLI);
  const home = join(root, "home");
  const [reader, writer] = clones as [string, string];
  const git = (clone: string, ...args: string[]) => runGit(clone, home, args);
  const page = (clone: string, id: string, title: string, body: string) => {
    const file = join(clone, ".llm-wiki", "wiki", `${id}.md`);
    // A clone holds no empty folder: git keeps files only.
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, pageText({ type: "concept", title }, `${body}\n`));
  };
  return { reader, writer, git, page };
}

async function ids(service: WikiService, query: string, automatic = false): Promise<string[]> {
  const result = await service.recall({
    query,
    mode: "lexical",
    ...(automatic ? { policy: "automatic" } : {}),
  });
  return result.results.map((r) => r.id);
}

describe("a long-running host after git changes the tree", () => {
  it("finds a pulled page on the first automatic recall, drops a deleted one and reads a changed one", async () => {
    const { reader, writer, git, page } = team();
    const [kept, gone, fresh, before, after] = [1, 2, 3, 4, 5].map(() => randomWord(8, 10)) as [
      string,
      string,
      string,
      string,
      string,
    ];
    // Same length: git rewrites the page at the same size.
    const same = after.slice(0, before.length).padEnd(before.length, "q");
    page(writer, "concepts/kept", `Kept ${kept}`, `The ${kept} runbook says ${before}.`);
    page(writer, "concepts/gone", `Gone ${gone}`, `The ${gone} note.`);
    git(writer, "add", "-A");
    git(writer, "commit", "-q", "-m", "pages");
    git(writer, "push", "-q", "origin", "HEAD:main");
    git(reader, "pull", "-q", "--no-edit", "origin", "main");

    const service = serviceFor(reader);
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    expect(await ids(service, `${kept} runbook`, true)).toEqual(["concepts/kept"]);
    expect(await ids(service, gone, true)).toEqual(["concepts/gone"]);

    page(writer, "concepts/fresh", `Fresh ${fresh}`, `The ${fresh} decision.`);
    page(writer, "concepts/kept", `Kept ${kept}`, `The ${kept} runbook says ${same}.`);
    rmSync(join(writer, ".llm-wiki", "wiki", "concepts", "gone.md"));
    git(writer, "add", "-A");
    git(writer, "commit", "-q", "-m", "teammate");
    git(writer, "push", "-q", "origin", "HEAD:main");
    git(reader, "pull", "-q", "--no-edit", "origin", "main");

    // The first prompt after the pull, on the automatic policy.
    expect(await ids(service, fresh, true)).toEqual(["concepts/fresh"]);
    expect(await ids(service, same, true)).toEqual(["concepts/kept"]);
    expect(await ids(service, before, true)).toEqual([]);
    expect(await ids(service, gone, true)).toEqual([]);

    // The views (each clone's own, not committed) follow the pull as they follow a write.
    await service.close();
    const catalog = readFileSync(join(reader, ".llm-wiki", "meta", "index.md"), "utf8");
    expect(catalog).toContain(`Fresh ${fresh}`);
    expect(catalog).not.toContain(`Gone ${gone}`);
  });

  it("follows a checkout back and forth and a merge of a branch", async () => {
    const { reader, writer, git, page } = team();
    const [one, two] = [randomWord(8, 10), randomWord(8, 10)] as [string, string];
    const service = serviceFor(reader);
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    const start = git(reader, "rev-parse", "HEAD").trim();

    page(writer, "concepts/one", `One ${one}`, `The ${one} plan.`);
    git(writer, "add", "-A");
    git(writer, "commit", "-q", "-m", "one");
    git(writer, "push", "-q", "origin", "HEAD:main");
    git(reader, "fetch", "-q", "origin");
    git(reader, "merge", "-q", "--no-edit", "origin/main");
    expect(await ids(service, one, true)).toEqual(["concepts/one"]);

    git(reader, "checkout", "-q", start);
    expect(await ids(service, one, true)).toEqual([]);
    git(reader, "checkout", "-q", "main");
    expect(await ids(service, one, true)).toEqual(["concepts/one"]);

    git(reader, "checkout", "-q", "-b", "side");
    page(reader, "concepts/two", `Two ${two}`, `The ${two} plan.`);
    git(reader, "add", "-A");
    git(reader, "commit", "-q", "-m", "two");
    git(reader, "checkout", "-q", "main");
    expect(await ids(service, two, true)).toEqual([]);
    git(reader, "merge", "-q", "--no-edit", "side");
    expect(await ids(service, two, true)).toEqual(["concepts/two"]);
  });
});

describe("a pull met by a busy index", () => {
  it("answers from the index as it is, and catches up on the next recall", async () => {
    const { reader, writer, git, page } = team();
    const word = randomWord(8, 10);
    const service = serviceFor(reader);
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    page(writer, "concepts/late", `Late ${word}`, `The ${word} note.`);
    git(writer, "add", "-A");
    git(writer, "commit", "-q", "-m", "late");
    git(writer, "push", "-q", "origin", "HEAD:main");
    git(reader, "pull", "-q", "--no-edit", "origin", "main");

    // Another process is indexing this vault right now.
    const lock = await acquireLock(indexLayout(vaultPaths(reader, "project")).lock, {
      op: "another process",
    });
    try {
      expect(await ids(service, word, true)).toEqual([]);
    } finally {
      lock.release();
    }
    expect(await ids(service, word, true)).toEqual(["concepts/late"]);
  });
});

describe("the commit checked out, read as files", () => {
  it("follows loose and packed refs, a detached HEAD and a linked worktree, as git rev-parse does", () => {
    const root = makeTempDir("llm-wiki-git-head-");
    const git = (cwd: string, ...args: string[]) => runGit(cwd, root, args);
    git(root, "init", "-q", "-b", "main");
    git(root, "config", "user.name", "x");
    git(root, "config", "user.email", "x@example.invalid");
    for (const n of [1, 2]) {
      writeFileSync(join(root, "f.txt"), `${n}\n`);
      git(root, "add", "f.txt");
      git(root, "commit", "-q", "-m", `c${n}`);
    }
    const head = () => headCommit(findGitRepo(root) as GitRepo);
    expect(head()).toBe(git(root, "rev-parse", "HEAD").trim());
    git(root, "pack-refs", "--all");
    expect(head()).toBe(git(root, "rev-parse", "HEAD").trim());
    git(root, "checkout", "-q", "HEAD~1");
    expect(head()).toBe(git(root, "rev-parse", "HEAD").trim());
    const linked = join(makeTempDir("llm-wiki-git-wt-"), "wt");
    git(root, "worktree", "add", "-q", "-b", "side", linked, "main");
    const repo = findGitRepo(join(linked, "sub")) as GitRepo;
    expect(repo.workTree).toBe(linked);
    expect(headCommit(repo)).toBe(git(linked, "rev-parse", "HEAD").trim());
    expect(findGitRepo(makeTempDir("llm-wiki-no-git-"))).toBeUndefined();
  });
});
