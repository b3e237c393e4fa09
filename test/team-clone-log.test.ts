/**
 * Where events go in a vault inside git: each clone appends to its own file
 * per commit, `meta/events/<clone>-<commit>.jsonl`, so the file appended to
 * between commits is never tracked and a plain pull never meets a local
 * change of ours. The clone's id lives in its git folder (never committed);
 * a copy of the clone and a linked worktree take their own. A vault outside
 * git, and one `@zosmaai/pi-llm-wiki` keeps, stay on `meta/events.jsonl`.
 * Readers take the old log and every clone's file as one log, by time; a
 * link committed among the files is not read.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recentChanges } from "../extensions/llm-wiki/lib/temporal/recent.ts";
import { bootstrapVault } from "../extensions/llm-wiki/lib/vault/bootstrap.ts";
import { eventLogFiles } from "../extensions/llm-wiki/lib/vault/event-log-files.ts";
import { appendEvent } from "../extensions/llm-wiki/lib/vault/events.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { git } from "./helpers/git-repo.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

/** A repository with a vault committed in it. */
function repoWithVault(): string {
  const root = makeTempDir("llm-wiki-clone-log-");
  git(root, "init", "-q", "-b", "main");
  bootstrapVault({ root });
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "vault");
  return root;
}

function logNames(root: string): string[] {
  const dir = join(root, ".llm-wiki", "meta", "events");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

const CLONE_LOG = /^([0-9a-f]{12})-([0-9a-f]{12}|unborn)\.jsonl$/;

function idOf(name: string | undefined): string | undefined {
  return name === undefined ? undefined : CLONE_LOG.exec(name)?.[1];
}

/** `git status` lines for tracked files with changes (modified, staged). */
function trackedChanges(root: string): string[] {
  return git(root, "status", "--porcelain")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("??"));
}

describe("the event log of a vault inside git", () => {
  it("is the clone's own file per commit: never a tracked file changed, the id never in the work tree", () => {
    const root = repoWithVault();
    const paths = vaultPaths(root, "project");
    // `init` logged before the first commit: the unborn file, now committed.
    const [first] = logNames(root);
    expect(first).toMatch(CLONE_LOG);
    expect(first).toMatch(/-unborn\.jsonl$/);
    const head = git(root, "rev-parse", "HEAD").trim();

    appendEvent(paths, { kind: "note_made", title: randomWord() });
    const afterCommit = logNames(root).filter((n) => n !== first);
    expect(afterCommit).toEqual([`${idOf(first)}-${head.slice(0, 12)}.jsonl`]);
    expect(trackedChanges(root)).toEqual([]);

    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "work");
    appendEvent(paths, { kind: "note_made", title: randomWord() });
    // The committed file is left as committed: the next event starts another.
    expect(trackedChanges(root)).toEqual([]);
    expect(logNames(root)).toHaveLength(3);
    expect(new Set(logNames(root).map(idOf)).size).toBe(1);
    // The id is kept in the git folder, never where git would commit it.
    expect(existsSync(join(root, ".git", "llm-wiki-clone.json"))).toBe(true);
    expect(git(root, "ls-files", "--others", "--exclude-standard")).not.toContain("clone.json");
    expect(git(root, "ls-files")).not.toContain("clone.json");
  });

  it("gives a copy of the clone and a linked worktree ids of their own", () => {
    const root = repoWithVault();
    const id = idOf(logNames(root)[0]);
    const copy = join(makeTempDir("llm-wiki-clone-copy-"), "copy");
    cpSync(root, copy, { recursive: true });
    appendEvent(vaultPaths(copy, "project"), { kind: "note_made" });
    appendEvent(vaultPaths(root, "project"), { kind: "note_made" });
    const copyIds = new Set(logNames(copy).map(idOf));
    expect(copyIds.size).toBe(2);
    const copyId = [...copyIds].find((x) => x !== id);
    expect(copyId).toBeDefined();
    // The original keeps its id.
    expect(new Set(logNames(root).map(idOf))).toEqual(new Set([id]));

    const tree = join(makeTempDir("llm-wiki-worktree-"), "tree");
    git(root, "worktree", "add", "-q", "-b", "side", tree);
    appendEvent(vaultPaths(tree, "project"), { kind: "note_made" });
    const treeIds = new Set(logNames(tree).map(idOf));
    expect(treeIds.size).toBe(2);
    expect([...treeIds].some((x) => x !== id)).toBe(true);
  });

  it("reads no link committed among the clones' files", () => {
    const root = repoWithVault();
    const paths = vaultPaths(root, "project");
    const outside = join(makeTempDir("llm-wiki-outside-"), "elsewhere.jsonl");
    const title = randomWord();
    writeFileSync(
      outside,
      `${JSON.stringify({ ts: new Date().toISOString(), kind: "page_created", id: `concepts/${title}` })}\n`,
    );
    symlinkSync(outside, join(root, ".llm-wiki", "meta", "events", `${randomWord()}.jsonl`));
    expect(eventLogFiles(paths).some((f) => f.includes("elsewhere"))).toBe(false);
    expect(eventLogFiles(paths)).toHaveLength(1);
    expect(recentChanges(paths).entries.some((e) => e.page === `concepts/${title}`)).toBe(false);
  });

  it("stays meta/events.jsonl outside git and in a vault the older system keeps", () => {
    const outside = makeTempDir("llm-wiki-no-git-");
    bootstrapVault({ root: outside });
    const plain = vaultPaths(outside, "project");
    appendEvent(plain, { kind: "note_made" });
    expect(eventLogFiles(plain)).toEqual([plain.events]);

    const older = makeTempDir("llm-wiki-older-");
    git(older, "init", "-q");
    mkdirSync(join(older, ".llm-wiki", "meta"), { recursive: true });
    writeFileSync(join(older, ".llm-wiki", "meta", "registry.json"), '{"pages":{}}\n');
    bootstrapVault({ root: older });
    const kept = vaultPaths(older, "project");
    appendEvent(kept, { kind: "note_made" });
    expect(eventLogFiles(kept)).toEqual([kept.events]);
  });

  it("is read with the older meta/events.jsonl as one log, by time", () => {
    const root = repoWithVault();
    const paths = vaultPaths(root, "project");
    const [a, b, c] = [randomWord(), randomWord(), randomWord()];
    const now = Date.now();
    appendEvent(paths, { kind: "page_created", id: `concepts/${b}` }, new Date(now - 2 * 3600_000));
    // A line an earlier version (or a teammate on it) wrote to the old log, before and after.
    writeFileSync(
      paths.events,
      [
        {
          ts: new Date(now - 3 * 3600_000).toISOString(),
          kind: "page_created",
          id: `concepts/${a}`,
        },
        { ts: new Date(now - 3600_000).toISOString(), kind: "page_created", id: `concepts/${c}` },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(""),
    );
    expect(eventLogFiles(paths).map((f) => basename(f))[0]).toBe("events.jsonl");
    const recent = recentChanges(paths, { now: new Date(now) });
    expect(recent.entries.map((e) => e.page).filter((p) => p !== undefined)).toEqual([
      `concepts/${c}`,
      `concepts/${b}`,
      `concepts/${a}`,
    ]);
  });
});
