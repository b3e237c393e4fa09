/**
 * Notes that know when the code moved on: a page naming a file that a later
 * commit deleted or rewrote is reported by `lint` (`stale_reference`, with
 * the path and the commit) and labelled stale by recall, through the real
 * CLI and the service; a small change is not; `verify` clears it; outside a
 * repository nothing is stale and no git runs; git runs again only when HEAD
 * moves.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LintFinding, LintResult } from "../extensions/llm-wiki/lib/lint/types.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { runCli } from "./helpers/cli.ts";
import { commitAll, initRepo, loggingGit } from "./helpers/code-repo.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const MERGE_LINES = Array.from({ length: 20 }, (_, i) => `export const step${i} = ${i};`);

function writeFile(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** A repository whose vault has one page about `src/sync/merge.ts`, dated 2025-01-10. */
function repoWithPage(extra: Record<string, string> = {}): { root: string; home: string } {
  const root = makeTempDir("llm-wiki-repo-");
  const home = makeTempDir("llm-wiki-home-");
  initRepo(root);
  writeFile(root, ".gitignore", ".llm-wiki/meta/\n");
  writeFile(root, "src/sync/merge.ts", `${MERGE_LINES.join("\n")}\n`);
  writeFile(root, "src/sync/other.ts", "export const other = 1;\n");
  makeTempVault({
    root,
    pages: {
      "concepts/sync-merge": pageText(
        { type: "concept", title: "Sync merge", updated: "2025-01-10" },
        "# Sync merge\n\nThe merge of sync batches lives in `src/sync/merge.ts`; conflicts merge by timestamp.\n",
      ),
      "concepts/unrelated": pageText(
        { type: "concept", title: "Unrelated", updated: "2025-01-10" },
        "# Unrelated\n\nNothing about code here.\n",
      ),
      ...extra,
    },
  });
  commitAll(root, "Initial", "2025-01-05T12:00:00Z");
  return { root, home };
}

function cli(root: string, home: string, args: string[], path?: string) {
  return runCli([...args, "--vault", root], {
    cwd: root,
    env: { HOME: home, ...(path ? { PATH: path } : {}) },
  });
}

function lintFindings(root: string, home: string, path?: string): LintFinding[] {
  const out = cli(root, home, ["lint", "--json"], path);
  const result = JSON.parse(out.stdout) as LintResult;
  return result.vaults[0]?.findings ?? [];
}

const staleRefs = (findings: LintFinding[]) => findings.filter((f) => f.code === "stale_reference");

describe("staleness by code", () => {
  it("a deleted file makes lint report stale_reference and recall label the page stale (CLI and service)", async () => {
    const { root, home } = repoWithPage();
    expect(staleRefs(lintFindings(root, home))).toEqual([]);

    rmSync(join(root, "src/sync/merge.ts"));
    const sha = commitAll(root, "Remove the old merge", "2025-02-01T09:00:00Z");

    const [finding, ...rest] = staleRefs(lintFindings(root, home));
    expect(rest).toEqual([]);
    expect(finding?.path).toBe("wiki/concepts/sync-merge.md");
    expect(finding?.target).toBe("src/sync/merge.ts");
    expect(finding?.message).toContain(
      `was deleted in ${sha.slice(0, 7)} "Remove the old merge" (2025-02-01)`,
    );
    expect(finding?.repair).toBe("llm-wiki verify concepts/sync-merge");

    const out = cli(root, home, ["recall", "sync merge conflicts", "--json"]);
    const recall = JSON.parse(out.stdout) as RecallResult;
    const item = recall.results.find((r) => r.id === "concepts/sync-merge");
    expect(item?.freshness).toBe("stale");
    expect(item?.staleReason).toContain("`src/sync/merge.ts` was deleted in");
    expect(item?.staleReason).toContain(sha.slice(0, 7));
    expect(recall.rendered).toContain("STALE: `src/sync/merge.ts` was deleted in");
    expect(cli(root, home, ["recall", "sync merge conflicts"]).stdout).toContain(
      "stale: `src/sync/merge.ts` was deleted",
    );

    const service = serviceFor(root, { home });
    await service.reindex();
    const viaService = await service.recall({ query: "sync merge conflicts" });
    const same = viaService.results.find((r) => r.id === "concepts/sync-merge");
    expect(same?.staleReason).toBe(item?.staleReason);
    expect(staleRefs((await service.lint()).vaults[0]?.findings ?? [])).toHaveLength(1);
  });

  it("a stale page keeps 94% of its score: it falls behind an equal current page, and a named page keeps its place", async () => {
    // Twins but for the file each names: the query's words score them alike.
    const body = (file: string) =>
      `# Notes\n\nBatches of edits are reconciled by timestamp; the code is in \`${file}\`.\n`;
    const { root, home } = repoWithPage({
      "concepts/a-merge-notes": pageText(
        { type: "concept", title: "Alpha notes", updated: "2025-01-10" },
        body("src/sync/merge.ts"),
      ),
      "concepts/b-other-notes": pageText(
        { type: "concept", title: "Beta notes", updated: "2025-01-10" },
        body("src/sync/other.ts"),
      ),
    });
    const query = "batches reconciled by timestamp";
    const service = serviceFor(root, { home });
    await service.reindex();
    const scores = async (q: string) =>
      (await service.recall({ query: q, assembly: false })).results.map(
        (r) => [r.id, r.score] as const,
      );
    const before = await scores(query);
    expect(before.slice(0, 2).map(([id]) => id)).toEqual([
      "concepts/a-merge-notes",
      "concepts/b-other-notes",
    ]);
    const [, scoreA] = before[0] ?? [];
    const [, scoreB] = before[1] ?? [];
    expect(scoreA).toBe(scoreB);

    rmSync(join(root, "src/sync/merge.ts"));
    commitAll(root, "Remove the old merge", "2025-02-01T09:00:00Z");
    const after = new Map(await scores(query));
    expect([...after.keys()].slice(0, 2)).toEqual([
      "concepts/b-other-notes",
      "concepts/a-merge-notes",
    ]);
    expect(after.get("concepts/b-other-notes")).toBe(scoreB);
    expect(after.get("concepts/a-merge-notes")).toBeCloseTo(Number(scoreA) * 0.94, 3);
    // A page the query names is what was asked for: stale or not, it stays first.
    const named = await scores("Alpha notes batches reconciled by timestamp");
    expect(named[0]?.[0]).toBe("concepts/a-merge-notes");
  });

  it("a deletion not yet committed is stale too, without a commit", () => {
    const { root, home } = repoWithPage();
    rmSync(join(root, "src/sync/merge.ts"));
    const [finding] = staleRefs(lintFindings(root, home));
    expect(finding?.message).toContain(
      "`src/sync/merge.ts` was deleted in the work tree (not committed)",
    );
  });

  it("a substantial later change is stale; a one-line fix is not", () => {
    const { root, home } = repoWithPage();
    writeFile(root, "src/sync/merge.ts", `${["// fix", ...MERGE_LINES.slice(1)].join("\n")}\n`);
    commitAll(root, "Typo", "2025-02-01T09:00:00Z");
    expect(staleRefs(lintFindings(root, home))).toEqual([]);

    const rewritten = MERGE_LINES.map((l, i) => (i < 8 ? `export const moved${i} = ${i};` : l));
    writeFile(root, "src/sync/merge.ts", `${rewritten.join("\n")}\n`);
    const sha = commitAll(root, "Rewrite merge", "2025-03-01T09:00:00Z");
    const [finding] = staleRefs(lintFindings(root, home));
    expect(finding?.target).toBe("src/sync/merge.ts");
    // 2 lines of the typo commit + 16 of the rewrite, of 20.
    expect(finding?.message).toContain("18 lines changed of 20 over 2 commit(s)");
    expect(finding?.message).toContain(`last in ${sha.slice(0, 7)} "Rewrite merge"`);
  });

  it("a change before the page's date does not count", () => {
    const { root, home } = repoWithPage();
    writeFile(root, "src/sync/merge.ts", "export const all = 'new';\n");
    // The same day as `updated: 2025-01-10`: a note written that day describes it.
    commitAll(root, "Rewrite merge", "2025-01-10T18:00:00Z");
    expect(staleRefs(lintFindings(root, home))).toEqual([]);
  });

  it("verify sets only the verified: line and clears the finding", () => {
    const { root, home } = repoWithPage();
    rmSync(join(root, "src/sync/merge.ts"));
    commitAll(root, "Remove the old merge", "2025-02-01T09:00:00Z");
    expect(staleRefs(lintFindings(root, home))).toHaveLength(1);

    const file = join(root, ".llm-wiki/wiki/concepts/sync-merge.md");
    const before = readFileSync(file, "utf8");
    const out = cli(root, home, [
      "verify",
      "concepts/sync-merge",
      "--date",
      "2025-02-02",
      "--json",
    ]);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ok: true,
      verified: "2025-02-02",
      changed: true,
    });
    const after = readFileSync(file, "utf8");
    expect(after).toBe(
      before.replace("updated: 2025-01-10\n", "updated: 2025-01-10\nverified: 2025-02-02\n"),
    );
    expect(staleRefs(lintFindings(root, home))).toEqual([]);

    // Again: the line is replaced in place, nothing else moves.
    expect(cli(root, home, ["verify", "concepts/sync-merge", "--date", "2025-02-03"]).status).toBe(
      0,
    );
    expect(readFileSync(file, "utf8")).toBe(
      after.replace("verified: 2025-02-02", "verified: 2025-02-03"),
    );

    const missing = cli(root, home, ["verify", "concepts/nope"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("no page concepts/nope");
  });

  it("outside a repository nothing is stale by code and git never runs", async () => {
    const home = makeTempDir("llm-wiki-home-");
    const vault = makeTempVault({
      pages: {
        "concepts/sync-merge": pageText(
          { type: "concept", title: "Sync merge", updated: "2025-01-10" },
          "# Sync merge\n\nSee `src/sync/merge.ts`.\n",
        ),
      },
    });
    const gitLog = loggingGit();
    const path = `${gitLog.bin}:${process.env.PATH ?? ""}`;
    expect(staleRefs(lintFindings(vault.root, home, path))).toEqual([]);
    const out = cli(vault.root, home, ["recall", "sync merge", "--json"], path);
    expect(out.status).toBe(0);
    const recall = JSON.parse(out.stdout) as RecallResult;
    expect(recall.results[0]?.freshness).toBe("current");
    expect(recall.results[0]?.staleReason).toBeUndefined();
    expect(cli(vault.root, home, ["status"], path).status).toBe(0);
    expect(gitLog.calls()).toEqual([]);
  });

  it("git runs once per HEAD: later lints, recalls and status reuse the cache", () => {
    const { root, home } = repoWithPage();
    const gitLog = loggingGit();
    const path = `${gitLog.bin}:${process.env.PATH ?? ""}`;
    lintFindings(root, home, path);
    const first = gitLog.calls().length;
    expect(first).toBeGreaterThan(0);

    lintFindings(root, home, path);
    cli(root, home, ["recall", "sync merge", "--json"], path);
    cli(root, home, ["status", "--json"], path);
    expect(gitLog.calls()).toHaveLength(first);

    writeFile(root, "src/sync/other.ts", "export const other = 2;\n");
    commitAll(root, "Touch other", "2025-02-01T09:00:00Z");
    lintFindings(root, home, path);
    expect(gitLog.calls().length).toBeGreaterThan(first);
  });
});
