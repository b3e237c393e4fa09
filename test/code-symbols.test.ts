/**
 * Notes that name code symbols: a page naming a function that a later
 * commit renames is reported by `lint` (`stale_reference`, the symbol as
 * target, where it was last seen) through the real CLI and labelled stale by
 * recall through the service; a symbol the repository never had, or one
 * already gone when the page was written, is not; hostile backtick spans
 * never reach git as arguments and run nothing; `git grep` runs once per
 * HEAD and what older commits held is reused after HEAD moves.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractCodeRefs } from "../extensions/llm-wiki/lib/code-refs/extract.ts";
import { termPresence } from "../extensions/llm-wiki/lib/code-refs/git-grep.ts";
import type { GitRunner } from "../extensions/llm-wiki/lib/code-refs/git-run.ts";
import { symbolPresent } from "../extensions/llm-wiki/lib/code-refs/stale-symbols.ts";
import {
  emptySymbolCache,
  staleSymbols,
} from "../extensions/llm-wiki/lib/code-refs/symbol-state.ts";
import type { LintFinding, LintResult } from "../extensions/llm-wiki/lib/lint/types.ts";
import { runCli } from "./helpers/cli.ts";
import { commitAll, initRepo, loggingGit } from "./helpers/code-repo.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** The engine file: 40 lines, so a one-function rename is far from a substantial change. */
function engine(merge: string): string {
  const filler = Array.from({ length: 30 }, (_, i) => `export const step${i} = ${i};`);
  return [
    `export const ERR_STALE_VECTOR = "stale";`,
    `export function ${merge}(a: number[], b: number[]): number[] {`,
    "  return [...a, ...b];",
    "}",
    "export class SyncEngine {",
    "  push(): void {}",
    "}",
    ...filler,
    "",
  ].join("\n");
}

function writeFile(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

const MERGE_PAGE = pageText(
  { type: "concept", title: "Offline merge", updated: "2025-01-10" },
  [
    "# Offline merge",
    "",
    "Offline batches are merged by `mergeOffline()`, which `SyncEngine.push` calls;",
    "a vector that moved on fails with `ERR_STALE_VECTOR`. Unlike `otherProjectMerger`",
    "in the upstream library, it is written in `TypeScript`.",
    "",
  ].join("\n"),
);

/** A repository with the engine (committed 2025-01-05) and a vault page about it, dated 2025-01-10. */
function repoWithPage(extra: Record<string, string> = {}): {
  root: string;
  home: string;
  initial: string;
} {
  const root = makeTempDir("llm-wiki-repo-");
  const home = makeTempDir("llm-wiki-home-");
  initRepo(root);
  writeFile(root, ".gitignore", ".llm-wiki/meta/\n");
  writeFile(root, "src/sync/engine.ts", engine("mergeOffline"));
  // The vault is committed too: its pages name every symbol and must not count as code.
  makeTempVault({ root, pages: { "concepts/offline-merge": MERGE_PAGE, ...extra } });
  const initial = commitAll(root, "Initial", "2025-01-05T12:00:00Z");
  return { root, home, initial };
}

function cli(root: string, home: string, args: string[], path?: string) {
  return runCli([...args, "--vault", root], {
    cwd: root,
    env: { HOME: home, ...(path ? { PATH: path } : {}) },
  });
}

function staleRefs(root: string, home: string, path?: string): LintFinding[] {
  const out = cli(root, home, ["lint", "--json"], path);
  const result = JSON.parse(out.stdout) as LintResult;
  return (result.vaults[0]?.findings ?? []).filter((f) => f.code === "stale_reference");
}

const grepCalls = (calls: string[]) => calls.filter((c) => / grep /.test(` ${c} `));

describe("staleness by code symbols", () => {
  it("a renamed function makes lint report the symbol and recall label the page stale; a symbol never in the repository, or gone before the page, does not", async () => {
    const { root, home, initial } = repoWithPage({
      // Written after the rename: it never described the old name at HEAD's expense.
      "concepts/late-note": pageText(
        { type: "concept", title: "Late note", updated: "2025-03-01" },
        "# Late note\n\nThe old `mergeOffline` is gone; see `mergeBatches`.\n",
      ),
    });
    writeFile(root, "src/sync/engine.ts", engine("mergeBatches"));
    commitAll(root, "Rename mergeOffline to mergeBatches", "2025-02-01T09:00:00Z");

    const findings = staleRefs(root, home);
    expect(findings.map((f) => [f.path, f.target])).toEqual([
      ["wiki/concepts/offline-merge.md", "mergeOffline"],
    ]);
    const [finding] = findings;
    expect(finding?.message).toContain(
      `symbol \`mergeOffline\` no longer found (last seen at the page's date, in ${initial.slice(0, 7)} (2025-01-05))`,
    );
    expect(finding?.repair).toBe("llm-wiki verify concepts/offline-merge");

    const service = serviceFor(root, { home });
    await service.reindex();
    const recall = await service.recall({ query: "offline merge batches" });
    const item = recall.results.find((r) => r.id === "concepts/offline-merge");
    expect(item?.freshness).toBe("stale");
    expect(item?.staleReason).toContain("symbol `mergeOffline` no longer found (last seen");
    expect(recall.rendered).toContain("STALE: symbol `mergeOffline` no longer found");
    const late = recall.results.find((r) => r.id === "concepts/late-note");
    if (late) expect(late.staleReason).toBeUndefined();

    // Verified after the rename: the page's date is now past it, nothing is stale.
    expect(
      cli(root, home, ["verify", "concepts/offline-merge", "--date", "2025-02-02"]).status,
    ).toBe(0);
    expect(staleRefs(root, home)).toEqual([]);
  });

  it("hostile backtick spans never become git options and never run anything", () => {
    const trap = makeTempDir("llm-wiki-trap-");
    const sentinel = join(trap, "pwned");
    const hostile = [
      "`-e`",
      "`--open-files-in-pager=touch SENTINEL`",
      "`$(touch SENTINEL)`",
      "`;touch SENTINEL`",
      `\`${"x".repeat(200)}Name\``,
      `\`${"a_".repeat(60)}b\``,
      "`bad\u0007Name`",
      "`evil\u001b[31mName`",
      "`-f/etc/passwd`",
      "`--no-index`",
    ].map((h) => h.replaceAll("SENTINEL", sentinel));
    const { root, home } = repoWithPage({
      "concepts/evil": pageText(
        { type: "concept", title: "Evil", updated: "2025-01-10" },
        `# Evil\n\n${hostile.join("\n")}\n\nAnd \`mergeOffline\`.\n`,
      ),
    });
    writeFile(root, "src/sync/engine.ts", engine("mergeBatches"));
    commitAll(root, "Rename", "2025-02-01T09:00:00Z");

    const gitLog = loggingGit();
    const path = `${gitLog.bin}:${process.env.PATH ?? ""}`;
    const found = staleRefs(root, home, path).map((f) => [f.path, f.target]);
    expect(found.sort()).toEqual([
      ["wiki/concepts/evil.md", "mergeOffline"],
      ["wiki/concepts/offline-merge.md", "mergeOffline"],
    ]);
    expect(cli(root, home, ["recall", "evil", "--json"], path).status).toBe(0);
    expect(readdirSync(trap)).toEqual([]);

    const greps = grepCalls(gitLog.calls());
    expect(greps.length).toBeGreaterThan(0);
    for (const call of greps) {
      // Every argument is fixed but the commit; patterns went on standard input.
      expect(call).toMatch(/ grep --no-color --no-textconv -I -F -w -o -z -f - [0-9a-f]{40} --$/);
    }
    for (const call of gitLog.calls())
      expect(call).not.toMatch(/SENTINEL|pwned|open-files|passwd|no-index|xxxx|a_a_|Name/);

    // The page's spans that reach the grep at all: identifier-shaped, short, printable.
    const body = `${hostile.join("\n")}\n\`mergeOffline\``;
    expect(extractCodeRefs(body).symbols).toEqual(["mergeOffline"]);
  });

  it("terms reach git only on standard input, checked again whatever the caller passes", () => {
    const seen: Array<{ args: readonly string[]; input?: string }> = [];
    const fake: GitRunner = (args, options) => {
      seen.push({ args, ...(options.input !== undefined ? { input: options.input } : {}) });
      return `${"a".repeat(40)}:src/x.ts\u0000SyncEngine.push\n${"a".repeat(40)}:.llm-wiki/wiki/p.md\u0000mergeOffline\n`;
    };
    const found = termPresence(
      fake,
      "/repo",
      "a".repeat(40),
      [
        "-e",
        "--open-files-in-pager=touch x",
        "$(touch x)",
        "ok\nname",
        "ctl\u0007x",
        "y".repeat(81),
        "SyncEngine.push",
        "SyncEngine",
        "push",
        "mergeOffline",
      ],
      ".llm-wiki",
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]?.input).toBe("SyncEngine\nSyncEngine.push\nmergeOffline\npush\n");
    expect(seen[0]?.args.at(-2)).toBe("a".repeat(40));
    expect(seen[0]?.args.at(-1)).toBe("--");
    expect(Object.fromEntries(found ?? [])).toEqual({
      SyncEngine: true,
      "SyncEngine.push": true,
      push: true,
      // Only the vault's own page names it.
      mergeOffline: false,
    });
    // Not a sha: no call at all.
    expect(termPresence(fake, "/repo", "--output=x", ["mergeOffline"])).toBeUndefined();
    expect(seen).toHaveLength(1);
    // A qualified name counts when written out, or when every segment is there.
    expect(symbolPresent({ "A.bee": false, A: true, bee: true }, "A.bee")).toBe(true);
    expect(symbolPresent({ "A.bee": false, A: false, bee: true }, "A.bee")).toBe(false);
  });

  it("names every object has (`__proto__`, `constructor`) are asked once like any other", () => {
    const head = "b".repeat(40);
    let calls = 0;
    const fake: GitRunner = () => {
      calls++;
      return `${head}:src/x.ts\u0000__proto__\n${head}:src/x.ts\u0000Foo.constructor\n${head}:x\u0000toString_\n`;
    };
    const cache = emptySymbolCache();
    const pages = new Map([
      ["concepts/a", { symbols: ["Foo.constructor", "__proto__", "toString_"], anchor: 0 }],
    ]);
    const ctx = { run: fake, root: "/repo", head };
    expect(staleSymbols(cache, ctx, pages).stale.size).toBe(0);
    expect(calls).toBe(1);
    expect(Object.hasOwn(cache.headTerms, "__proto__")).toBe(true);
    expect(staleSymbols(cache, ctx, pages).dirty).toBe(false);
    expect(calls).toBe(1);
  });

  it("git grep runs once per HEAD; what older commits held is reused after HEAD moves", () => {
    const { root, home } = repoWithPage();
    const gitLog = loggingGit();
    const path = `${gitLog.bin}:${process.env.PATH ?? ""}`;
    expect(staleRefs(root, home, path)).toEqual([]);
    // Every symbol is at HEAD: one grep, no need for the commit at the page's date.
    expect(grepCalls(gitLog.calls())).toHaveLength(1);
    const first = gitLog.calls().length;

    staleRefs(root, home, path);
    cli(root, home, ["recall", "offline merge", "--json"], path);
    cli(root, home, ["status", "--json"], path);
    expect(gitLog.calls()).toHaveLength(first);

    writeFile(root, "src/sync/engine.ts", engine("mergeBatches"));
    commitAll(root, "Rename", "2025-02-01T09:00:00Z");
    expect(staleRefs(root, home, path).map((f) => f.target)).toEqual(["mergeOffline"]);
    // HEAD, then the commit at the page's date for the one term HEAD lacks.
    const afterRename = gitLog.calls();
    expect(grepCalls(afterRename)).toHaveLength(3);
    expect(grepCalls(afterRename).at(-1)).toContain(" -f - ");

    const recall = cli(root, home, ["recall", "offline merge", "--json"], path);
    expect(recall.stdout).toContain("no longer found");
    expect(gitLog.calls()).toHaveLength(afterRename.length);

    writeFile(root, "README.md", "Notes.\n");
    commitAll(root, "Readme", "2025-02-03T09:00:00Z");
    expect(staleRefs(root, home, path).map((f) => f.target)).toEqual(["mergeOffline"]);
    // Only HEAD is asked again: the older commit's answer is in the cache.
    expect(grepCalls(gitLog.calls())).toHaveLength(4);
  });
});
