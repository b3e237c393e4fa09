/**
 * Commit linkage and hostile pages: a commit naming `[[concepts/x]]` or
 * `wiki: concepts/x` is the page's last linked commit in recall and status;
 * names read from a page reach git only as checked paths after `--`, never
 * as options, and nothing a page says ever runs.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractCodeRefs, safeRepoPath } from "../extensions/llm-wiki/lib/code-refs/extract.ts";
import { idsInMessage } from "../extensions/llm-wiki/lib/code-refs/git-history.ts";
import type { LintResult } from "../extensions/llm-wiki/lib/lint/types.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import type { StatusResult } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { commitAll, initRepo, loggingGit } from "./helpers/code-repo.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

function repo(pages: Record<string, string>): { root: string; home: string } {
  const root = makeTempDir("llm-wiki-repo-");
  const home = makeTempDir("llm-wiki-home-");
  initRepo(root);
  writeFileSync(join(root, ".gitignore"), ".llm-wiki/meta/\n");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src/cache.ts"), "export const ttl = 60;\n");
  makeTempVault({ root, pages });
  commitAll(root, "Initial", "2025-01-05T12:00:00Z");
  return { root, home };
}

function cli(root: string, home: string, args: string[], path?: string) {
  return runCli([...args, "--vault", root, "--json"], {
    cwd: root,
    env: { HOME: home, ...(path ? { PATH: path } : {}) },
  });
}

describe("commit linkage", () => {
  it("reads [[id]], [[id|label]] and wiki: lines from commit messages", () => {
    expect(
      idsInMessage(
        "Fix TTL [[concepts/cache-ttl|the TTL note]]\n\nwiki: decisions/ttl, wiki/concepts/other.md",
      ),
    ).toEqual(["concepts/cache-ttl", "decisions/ttl", "concepts/other"]);
    expect(idsInMessage("[[../../etc/passwd]] wiki: --exec")).toEqual([]);
  });

  it("the newest commit naming a page shows in recall and status", () => {
    const { root, home } = repo({
      "concepts/cache-ttl": pageText(
        { type: "concept", title: "Cache TTL", updated: "2025-01-10" },
        "# Cache TTL\n\nThe cache TTL is set in `src/cache.ts`.\n",
      ),
    });
    writeFileSync(join(root, "src/cache.ts"), "export const ttl = 61;\n");
    commitAll(root, "Tune TTL per [[concepts/cache-ttl]]", "2025-02-01T09:00:00Z");
    writeFileSync(join(root, "src/cache.ts"), "export const ttl = 62;\n");
    const sha = commitAll(
      root,
      "Tune TTL again\n\nwiki: concepts/cache-ttl",
      "2025-02-02T09:00:00Z",
    );
    writeFileSync(join(root, "README"), "x\n");
    commitAll(root, "Unrelated", "2025-02-03T09:00:00Z");

    const recall = JSON.parse(cli(root, home, ["recall", "cache ttl"]).stdout) as RecallResult;
    const item = recall.results.find((r) => r.id === "concepts/cache-ttl");
    expect(item?.lastCommit).toEqual({
      sha,
      short: sha.slice(0, 7),
      subject: "Tune TTL again",
      date: "2025-02-02",
    });
    expect(recall.rendered).toContain(
      `last commit: ${sha.slice(0, 7)} "Tune TTL again" (2025-02-02)`,
    );

    const status = JSON.parse(cli(root, home, ["status"]).stdout) as StatusResult;
    expect(status.vault?.lastCommit).toMatchObject({ page: "concepts/cache-ttl", sha });
  });
});

describe("hostile pages", () => {
  const HOSTILE = [
    "`--upload-pack=touch SENTINEL`",
    "`--output=SENTINEL`",
    "`../../etc/passwd`",
    "`/etc/passwd`",
    "`$(touch SENTINEL)`",
    "`;touch SENTINEL;.ts`",
    "`src/a.ts;touch SENTINEL`",
    "`:(exclude)*`",
    "`*.ts`",
    "`src/\u001b[31mred.ts`",
    "`src/\u0000nul.ts`",
    "`-c.ts`",
    "[x](--exec=touch%20SENTINEL)",
    "[y](../../../../etc/passwd)",
    "`` `touch SENTINEL` ``",
  ];

  it("extraction keeps only safe repository paths", () => {
    const refs = extractCodeRefs(
      `# H\n\n${HOSTILE.join("\n")}\n\`src/cache.ts\`\n`,
      ".llm-wiki/wiki/concepts",
    );
    expect(refs.paths).toEqual(["src/cache.ts"]);
    for (const s of refs.symbols) expect(s).toMatch(/^[A-Za-z_$][\w$.:#]*$/);
    for (const bad of ["--x", "../a", "/a", "a/../b", "a//b", ".git/config", "a\\b", "a b"])
      expect(safeRepoPath(bad)).toBeUndefined();
  });

  it("never reach git as options and never run anything", () => {
    // Where a command a page smuggled in would leave its mark.
    const trap = makeTempDir("llm-wiki-trap-");
    const { root, home } = repo({
      "concepts/evil": pageText(
        { type: "concept", title: "Evil", updated: "2025-01-10" },
        `# Evil\n\n${HOSTILE.map((h) => h.replaceAll("SENTINEL", join(trap, "pwned"))).join("\n")}\n\nAlso \`src/cache.ts\`.\n`,
      ),
    });
    const gitLog = loggingGit();
    const path = `${gitLog.bin}:${process.env.PATH ?? ""}`;
    const lint = JSON.parse(cli(root, home, ["lint"], path).stdout) as LintResult;
    expect(lint.vaults).toHaveLength(1);
    const recall = cli(root, home, ["recall", "evil"], path);
    expect(recall.status).toBe(0);
    expect(readdirSync(trap)).toEqual([]);
    expect(existsSync(join(root, "SENTINEL"))).toBe(false);
    const calls = gitLog.calls();
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      // What follows `--` are paths; before it, only the fixed arguments.
      const before = call.split(" -- ")[0] ?? "";
      expect(before).not.toMatch(/upload-pack|--output|--exec|passwd|SENTINEL|pwned|exclude/);
      const after = call.includes(" -- ") ? call.slice(call.indexOf(" -- ") + 4) : "";
      for (const arg of after.split(" ").filter(Boolean)) expect(safeRepoPath(arg)).toBe(arg);
    }
  });
});
