/**
 * What `init` commits for a team: `.llm-wiki/.gitattributes` merges the
 * event log as a union of lines, `.llm-wiki/.gitignore` keeps every derived
 * file (index, caches, generated views, digests) out of git while pages,
 * `raw/` and the log stay tracked — as git itself reads them. A .gitignore
 * an earlier version wrote is completed; a person's own is left alone; in a
 * vault `@zosmaai/pi-llm-wiki` keeps too, the views it writes stay tracked.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bootstrapVault } from "../extensions/llm-wiki/lib/vault/bootstrap.ts";
import { git } from "./helpers/git-repo.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const OLD_GITIGNORE =
  "# Derived by llm-wiki; rebuildable, never authoritative.\nmeta/qmd/\nmeta/cache/\nmeta/registry.json\nmeta/backlinks.json\nmeta/*.lock\n";

const DERIVED = [
  ".llm-wiki/meta/index.md",
  ".llm-wiki/meta/log.md",
  ".llm-wiki/meta/lint-report.md",
  ".llm-wiki/wiki/index.md",
  ".llm-wiki/wiki/log.md",
  ".llm-wiki/wiki/concepts/index.md",
  ".llm-wiki/wiki/concepts/deep/index.md",
  ".llm-wiki/outputs/digest-2026-12-01.md",
  ".llm-wiki/meta/qmd/index.sqlite",
];
const TRACKED = [
  ".llm-wiki/meta/events.jsonl",
  ".llm-wiki/meta/events/0a1b2c3d4e5f-89abcdef0123.jsonl",
  ".llm-wiki/config.json",
  ".llm-wiki/wiki/concepts/rag.md",
  ".llm-wiki/raw/sources/SRC-2026-12-01-001/source.md",
];

/** The paths of `paths` git ignores in `root`. */
function ignored(root: string, paths: readonly string[]): string[] {
  return paths.filter((p) => {
    try {
      git(root, "check-ignore", "-q", "--no-index", p);
      return true;
    } catch {
      return false;
    }
  });
}

describe("the files init writes for a team", () => {
  it("ignores what each clone derives, tracks what is authoritative, merges the log as a union", () => {
    const root = makeTempDir();
    git(root, "init", "-q");
    const result = bootstrapVault({ root });
    expect(result.createdPaths).toEqual(expect.arrayContaining([".gitignore", ".gitattributes"]));
    expect(ignored(root, DERIVED)).toEqual(DERIVED);
    expect(ignored(root, TRACKED)).toEqual([]);
    expect(git(root, "check-attr", "merge", "--", ".llm-wiki/meta/events.jsonl")).toBe(
      ".llm-wiki/meta/events.jsonl: merge: union\n",
    );
    const cloneLog = ".llm-wiki/meta/events/0a1b2c3d4e5f-89abcdef0123.jsonl";
    expect(git(root, "check-attr", "merge", "--", cloneLog)).toBe(`${cloneLog}: merge: union\n`);
    expect(git(root, "check-attr", "merge", "--", ".llm-wiki/wiki/concepts/rag.md")).toBe(
      ".llm-wiki/wiki/concepts/rag.md: merge: unspecified\n",
    );
  });

  it("completes the .gitignore an earlier version wrote and leaves a person's own alone", () => {
    const earlier = makeTempDir();
    mkdirSync(join(earlier, ".llm-wiki"));
    writeFileSync(join(earlier, ".llm-wiki", ".gitignore"), OLD_GITIGNORE);
    writeFileSync(join(earlier, ".llm-wiki", "config.json"), '{"name":"x"}\n');
    git(earlier, "init", "-q");
    bootstrapVault({ root: earlier });
    const text = readFileSync(join(earlier, ".llm-wiki", ".gitignore"), "utf8");
    expect(text.startsWith(OLD_GITIGNORE)).toBe(true);
    expect(ignored(earlier, DERIVED)).toEqual(DERIVED);

    const own = makeTempDir();
    mkdirSync(join(own, ".llm-wiki"));
    const mine = `# mine ${Math.random()}\n*.bak\n`;
    writeFileSync(join(own, ".llm-wiki", ".gitignore"), mine);
    bootstrapVault({ root: own });
    expect(readFileSync(join(own, ".llm-wiki", ".gitignore"), "utf8")).toBe(mine);
  });

  it("leaves the views @zosmaai/pi-llm-wiki writes tracked in a vault it keeps", () => {
    const root = makeTempDir();
    mkdirSync(join(root, ".llm-wiki", "meta"), { recursive: true });
    writeFileSync(join(root, ".llm-wiki", "meta", "registry.json"), '{"pages":{}}\n');
    git(root, "init", "-q");
    bootstrapVault({ root });
    const shared = DERIVED.filter((p) => /\/(index|log)\.md$/.test(p));
    expect(ignored(root, shared)).toEqual([]);
    expect(ignored(root, [".llm-wiki/meta/lint-report.md"])).toEqual([
      ".llm-wiki/meta/lint-report.md",
    ]);
  });
});
