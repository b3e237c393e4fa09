/**
 * `llm-wiki digest` as a person runs it (a real child process) on a real
 * vault: what changed in the period (sources captured, pages created and
 * updated), the lint trend against the previous digest, written to
 * `.llm-wiki/outputs/digest-YYYY-MM-DD.md` and logged. A digest file is
 * never overwritten: a second one the same day is `-2`, and a file that is
 * not ours keeps its bytes.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DigestResult } from "../extensions/llm-wiki/lib/digest/digest.ts";
import { runCli } from "./helpers/cli.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const DAY_MS = 86_400_000;

function cli(root: string, args: string[]) {
  const home = makeTempDir("llm-wiki-digest-home-");
  return runCli(args, { cwd: root, env: { HOME: home, WIKI_HOME: home } });
}

function digest(vault: TempVault, args: string[] = []): DigestResult {
  const out = cli(vault.root, ["digest", "--json", ...args]);
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as DigestResult;
}

function event(vault: TempVault, ageMs: number, fields: Record<string, unknown>): void {
  mkdirSync(vault.paths.meta, { recursive: true });
  const ts = new Date(Date.now() - ageMs).toISOString();
  appendFileSync(vault.paths.events, `${JSON.stringify({ ts, ...fields })}\n`);
}

const outputs = (vault: TempVault) => join(vault.paths.dir, "outputs");

describe("llm-wiki digest", () => {
  it("lists the week's captures, created and updated pages, and the lint counts", () => {
    const today = new Date().toISOString().slice(0, 10);
    const vault = makeTempVault({
      pages: {
        "concepts/fresh": pageText({ type: "concept", title: "Fresh idea" }, "[[concepts/gone]]\n"),
        "concepts/edited": pageText({ type: "concept", title: "Edited note", updated: today }),
      },
    });
    event(vault, 3 * DAY_MS, { kind: "page_created", id: "concepts/fresh", type: "concept" });
    event(vault, 20 * DAY_MS, { kind: "page_created", id: "concepts/old", type: "concept" });
    expect(cli(vault.root, ["capture", "--text", "Raft notes.", "--title", "Raft"]).status).toBe(0);

    const result = digest(vault);
    expect(result.ok).toBe(true);
    expect(result.period).toBe("weekly");
    expect(result.path).toBe(`outputs/digest-${today}.md`);
    expect(result.activity?.pagesCreated.map((p) => p.id)).toEqual(["concepts/fresh"]);
    expect(result.activity?.pagesUpdated.map((p) => p.id)).toEqual(["concepts/edited"]);
    expect(result.activity?.sourcesCaptured).toHaveLength(1);
    expect(result.queue).toBe(1);
    expect(result.lint?.trend).toBe("first");
    // The link to a missing page is one of lint's findings.
    expect((result.lint?.now.error ?? 0) + (result.lint?.now.warning ?? 0)).toBeGreaterThanOrEqual(
      1,
    );

    const file = readFileSync(join(vault.paths.dir, result.path ?? ""), "utf8");
    expect(file).toMatch(/^---\ntype: digest\nperiod: weekly\n/);
    expect(file).toContain(`lint:\n  error: ${result.lint?.now.error}\n`);
    expect(file).toContain("## Sources captured (1)");
    expect(file).toContain("## Pages created (1)\n- [[concepts/fresh]] Fresh idea");
    expect(file).toContain("## Pages updated (1)\n- [[concepts/edited]] Edited note");
    expect(file).not.toContain("concepts/old");
    expect(file).toContain("- first digest: no previous counts to compare");

    const logged = readEvents(vault.paths).filter((e) => e.kind === "digest_generated");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ path: result.path, period: "weekly" });

    const text = cli(vault.root, ["digest"]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(
      `digest (weekly) written to .llm-wiki/outputs/digest-${today}-2.md`,
    );
  });

  it("a daily digest covers the last day only", () => {
    const vault = makeTempVault({
      pages: { "concepts/a": pageText({ type: "concept", title: "A" }) },
    });
    event(vault, 3 * DAY_MS, { kind: "page_created", id: "concepts/a", type: "concept" });
    expect(digest(vault, ["--period", "daily"]).activity?.pagesCreated).toEqual([]);
    expect(digest(vault, ["--period", "weekly"]).activity?.pagesCreated).toEqual([
      { id: "concepts/a", title: "A" },
    ]);
  });

  it("never overwrites: the same day's next digest takes the next free suffix and compares with the last", () => {
    const today = new Date().toISOString().slice(0, 10);
    const vault = makeTempVault({
      pages: { "concepts/a": pageText({ type: "concept", title: "A" }, "[[concepts/missing]]\n") },
    });
    const first = digest(vault);
    const firstBytes = readFileSync(join(vault.paths.dir, first.path ?? ""));
    // A file of the user's own under the name a digest would take next.
    writeFileSync(join(outputs(vault), `digest-${today}-2.md`), "my own notes\n");
    vault.writePage("concepts/a", pageText({ type: "concept", title: "A" }, "fixed\n"));

    const second = digest(vault);
    expect(second.path).toBe(`outputs/digest-${today}-3.md`);
    expect(readFileSync(join(vault.paths.dir, first.path ?? ""))).toEqual(firstBytes);
    expect(readFileSync(join(outputs(vault), `digest-${today}-2.md`), "utf8")).toBe(
      "my own notes\n",
    );
    // Compared with the newest digest that recorded counts (the user's file has none).
    expect(second.lint?.previous?.path).toBe(first.path);
    expect(second.lint?.previous?.lint).toEqual(first.lint?.now);
    expect(second.lint?.trend).toBe("improved");
    expect(readdirSync(outputs(vault)).sort()).toEqual([
      `digest-${today}-2.md`,
      `digest-${today}-3.md`,
      `digest-${today}.md`,
    ]);
  });

  it("writes hostile titles neutralised, without links or control bytes", () => {
    const vault = makeTempVault({
      pages: {
        "concepts/evil": pageText({
          type: "concept",
          title: JSON.stringify("Evil \u001b[31m]] [[concepts/other <b>"),
        }),
      },
    });
    event(vault, 1000, { kind: "page_created", id: "concepts/evil", type: "concept" });
    const result = digest(vault);
    const file = readFileSync(join(vault.paths.dir, result.path ?? ""), "utf8");
    expect(file).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(file).toContain("- [[concepts/evil]] Evil \\]\\] \\[\\[concepts/other \\<b\\>");
    const text = cli(vault.root, ["digest"]);
    expect(text.stdout).not.toContain("\u001b");
  });

  it("refuses an outputs/ that leads outside the vault, writing nothing there", () => {
    const vault = makeTempVault({
      pages: { "concepts/a": pageText({ type: "concept", title: "A" }) },
    });
    const elsewhere = makeTempDir("llm-wiki-digest-elsewhere-");
    symlinkSync(elsewhere, outputs(vault));
    const out = cli(vault.root, ["digest", "--json"]);
    expect(out.status).toBe(1);
    // The vault is not opened at all with a link in its layout (layout-guard.ts).
    expect((JSON.parse(out.stdout) as DigestResult).diagnostics[0]?.code).toBe(
      "vault_layout_symlink",
    );
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readEvents(vault.paths).some((e) => e.kind === "digest_generated")).toBe(false);
  });

  it("answers usage errors with exit 2 and a missing vault with exit 1", () => {
    const vault = makeTempVault();
    expect(cli(vault.root, ["digest", "--period", "monthly"]).status).toBe(2);
    const dir = join(makeTempDir("llm-wiki-digest-none-"), "empty");
    mkdirSync(dir);
    const none = cli(dir, ["digest"]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("llm-wiki init");
    expect(existsSync(join(dir, ".llm-wiki"))).toBe(false);
  });
});
