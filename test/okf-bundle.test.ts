/**
 * `llm-wiki export --okf` and `import --okf` as a person runs them (real
 * child processes, real vaults and indexes): the export never writes into a
 * directory that is not its own, the import is a review that writes nothing
 * until `--apply` and then only creates, and a hostile bundle (symlinks,
 * unsafe names, oversized files, code in front matter, documents that are
 * not pages, secrets) is
 * refused piece by piece with a diagnostic while the rest comes in.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  readEvents,
  removeTempDirs,
  snapshotFiles,
} from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

function cli(cwd: string, args: string[]) {
  return runCli(args, { cwd, env: { HOME: cwd, WIKI_HOME: join(cwd, "no-personal") } });
}

function json(run: ReturnType<typeof cli>): Record<string, unknown> {
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

interface Item {
  path: string;
  reason?: string;
}

const paths = (items: unknown) => (items as Item[]).map((i) => i.path).sort();

/** A vault with a concept, a foreign-typed page and a source with a raw packet; words fresh each run. */
function sourceVault() {
  const word = `zq${randomWord(6, 9)}`;
  const vault = makeTempVault({
    pages: {
      "concepts/ledger": `---\ntype: concept\ntitle: Ledger\nsources:\n  - id: SRC-1\ngenerated: {by: someone, at: 2026-01-01}\nx_vendor: [1, {a: b}]\n---\n# Ledger\n\n${randomWords(12)} ${word}\n`,
      "datasets/orders": `---\ntype: BigQuery Table\ntitle: Orders\n---\nOrders table ${word}.\n`,
      "sources/SRC-1": "---\ntype: source\ntitle: Notes\n---\nCaptured notes.\n",
    },
  });
  mkdirSync(join(vault.paths.raw, "sources", "SRC-1"), { recursive: true });
  writeFileSync(
    join(vault.paths.raw, "sources", "SRC-1", "extracted.md"),
    `raw ${randomWords(5)}\n`,
  );
  return { vault, word };
}

describe("llm-wiki export --okf", () => {
  it("writes pages byte for byte at their concept paths, an OKF root index, no meta/ and no raw unless asked", () => {
    const { vault } = sourceVault();
    const out = join(makeTempDir("okf-out-"), "bundle");
    const run = cli(vault.root, ["export", "--okf", out, "--json"]);
    expect(run.status).toBe(0);
    const result = json(run);
    expect(result.pages).toEqual(["concepts/ledger.md", "datasets/orders.md", "sources/SRC-1.md"]);
    for (const id of ["concepts/ledger", "datasets/orders", "sources/SRC-1"]) {
      expect(readFileSync(join(out, `${id}.md`)).equals(readFileSync(vault.pageFile(id)))).toBe(
        true,
      );
    }
    expect(readFileSync(join(out, "index.md"), "utf8")).toMatch(/^---\nokf_version: "0\.2"\n---\n/);
    expect(readFileSync(join(out, "datasets", "index.md"), "utf8")).toContain(
      "[Orders](orders.md)",
    );
    expect(existsSync(join(out, "meta"))).toBe(false);
    expect(existsSync(join(out, ".llm-wiki-raw"))).toBe(false);

    const withRaw = join(makeTempDir("okf-out-"), "bundle");
    expect(cli(vault.root, ["export", "--okf", withRaw, "--with-raw"]).status).toBe(0);
    expect(
      readFileSync(join(withRaw, ".llm-wiki-raw", "sources", "SRC-1", "extracted.md")),
    ).toEqual(readFileSync(join(vault.paths.raw, "sources", "SRC-1", "extracted.md")));
  });

  it("refuses a non-empty directory that is not its previous export, and one whose files were changed", () => {
    const { vault } = sourceVault();
    const out = makeTempDir("okf-out-");
    const theirs = `${randomWords(6)}\n`;
    writeFileSync(join(out, "notes.md"), theirs);
    const refused = cli(vault.root, ["export", "--okf", out, "--json"]);
    expect(refused.status).toBe(1);
    expect(json(refused).diagnostics).toEqual([
      expect.objectContaining({ code: "okf_export_target_not_empty" }),
    ]);
    expect(snapshotFiles(out)).toEqual(new Map([["notes.md", Buffer.from(theirs)]]));

    // Its own previous export is replaced; a page gone since is removed from it.
    const own = join(makeTempDir("okf-out-"), "b");
    expect(cli(vault.root, ["export", "--okf", own]).status).toBe(0);
    writeFileSync(
      vault.pageFile("concepts/ledger"),
      "---\ntype: concept\ntitle: Ledger v2\n---\nnew\n",
    );
    const again = json(cli(vault.root, ["export", "--okf", own, "--json"]));
    expect(again.ok).toBe(true);
    expect(again.replacedPrevious).toBe(true);
    expect(readFileSync(join(own, "concepts", "ledger.md"), "utf8")).toContain("Ledger v2");

    // Someone edits the export: it is theirs now, and left alone.
    const edited = `${randomWords(4)}\n`;
    writeFileSync(join(own, "concepts", "ledger.md"), edited);
    const before = snapshotFiles(own);
    const third = cli(vault.root, ["export", "--okf", own, "--json"]);
    expect(third.status).toBe(1);
    expect(JSON.stringify(json(third).diagnostics)).toContain("concepts/ledger.md");
    expect(snapshotFiles(own)).toEqual(before);
  });
});

describe("llm-wiki import --okf", () => {
  it("reviews first, then creates only: identical skipped, conflicts never overwritten, logged and indexed", () => {
    const { vault, word } = sourceVault();
    const bundle = join(makeTempDir("okf-b-"), "bundle");
    expect(cli(vault.root, ["export", "--okf", bundle, "--with-raw"]).status).toBe(0);

    const target = makeTempVault({
      pages: { "concepts/ledger": "---\ntype: concept\ntitle: Mine\n---\nmine\n" },
    });
    const mine = readFileSync(target.pageFile("concepts/ledger"));
    expect(cli(target.root, ["reindex"]).status).toBe(0);
    const wikiBefore = snapshotFiles(target.paths.wiki);
    const review = json(cli(target.root, ["import", "--okf", bundle, "--with-raw", "--json"]));
    expect(review.applied).toBe(false);
    expect(paths(review.creates)).toEqual([
      "raw/sources/SRC-1/extracted.md",
      "wiki/datasets/orders.md",
      "wiki/sources/SRC-1.md",
    ]);
    expect(paths(review.conflicts)).toEqual(["wiki/concepts/ledger.md"]);
    expect(snapshotFiles(target.paths.wiki)).toEqual(wikiBefore);
    expect(existsSync(join(target.paths.raw, "sources"))).toBe(false);

    const applied = cli(target.root, [
      "import",
      "--okf",
      bundle,
      "--with-raw",
      "--apply",
      "--json",
    ]);
    expect(applied.status).toBe(0);
    const result = json(applied);
    expect(result.indexed).toBe(true);
    expect(readFileSync(target.pageFile("concepts/ledger"))).toEqual(mine);
    expect(readFileSync(target.pageFile("datasets/orders"))).toEqual(
      readFileSync(vault.pageFile("datasets/orders")),
    );
    const event = readEvents(target.paths).find((e) => e.kind === "okf_import");
    expect(event).toMatchObject({
      created: 3,
      conflicts: 1,
      pages: ["datasets/orders", "sources/SRC-1"],
    });

    // The foreign-typed page is recallable at once.
    const recall = json(cli(target.root, ["recall", word, "--json"]));
    expect(
      (recall.results as Array<{ id: string; type: string }>).map((h) => [h.id, h.type]),
    ).toContainEqual(["datasets/orders", "BigQuery Table"]);

    const again = json(cli(target.root, ["import", "--okf", bundle, "--json"]));
    expect(again.creates).toEqual([]);
    expect(paths(again.identical)).toEqual(["wiki/datasets/orders.md", "wiki/sources/SRC-1.md"]);
  });

  it("refuses each hostile piece of a bundle with a diagnostic and imports the rest", () => {
    const bundle = makeTempDir("okf-hostile-");
    const outside = join(makeTempDir("okf-outside-"), "secret.md");
    writeFileSync(outside, "---\ntype: concept\n---\noutside the bundle\n");
    const good = `good-${randomWord(5, 8)}`;
    const files: Record<string, string | Buffer> = {
      [`concepts/${good}.md`]: `---\ntype: concept\n---\n${randomWords(8)}\n`,
      "concepts/no-type.md": "---\ntitle: nothing\n---\nbody\n",
      "concepts/tag.md":
        '---\ntype: concept\nrun: !!js/function "function () { return 1; }"\n---\n',
      "concepts/engine.md": '---js\n({ type: "concept" })\n---\nbody\n',
      [`concepts/ctl\u0007${randomWord(3, 5)}.md`]: "---\ntype: concept\n---\nx\n",
      "concepts/huge.md": `---\ntype: concept\n---\n${"x".repeat(1024 * 1024 + 1)}`,
      "concepts/key.md": `---\ntype: concept\n---\ntoken ghp_${randomBytes(18).toString("hex").slice(0, 36)}\n`,
      "index.md": '---\nokf_version: "0.2"\n---\n# Root\n',
      "concepts/LOG.md": "# log\n",
      "notes.txt": "not markdown",
    };
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(join(bundle, rel, ".."), { recursive: true });
      writeFileSync(join(bundle, rel), content);
    }
    symlinkSync(outside, join(bundle, "concepts", "link.md"));
    symlinkSync(join(outside, ".."), join(bundle, "linked-dir"));

    const target = makeTempVault();
    const run = cli(target.root, ["import", "--okf", bundle, "--apply", "--json"]);
    expect(run.status).toBe(0);
    const result = json(run);
    const codes = (result.diagnostics as Array<{ code: string; path?: string }>).map((d) => [
      d.code,
      d.path,
    ]);
    expect(codes).toContainEqual(["okf_path_symlink", "concepts/link.md"]);
    expect(codes).toContainEqual(["okf_path_symlink", "linked-dir"]);
    expect(codes).toContainEqual(["okf_limit_file_size", "concepts/huge.md"]);
    expect(
      codes.some(([code, path]) => code === "okf_path_unsafe" && path?.includes("\u0007")),
    ).toBe(true);
    expect(codes).toContainEqual(["okf_import_redacted", "wiki/concepts/key.md"]);
    expect(paths(result.rejected)).toEqual([
      "wiki/concepts/engine.md",
      "wiki/concepts/no-type.md",
      "wiki/concepts/tag.md",
    ]);
    expect((result.reserved as string[]).sort()).toEqual(["concepts/LOG.md", "index.md"]);
    expect(paths(result.creates)).toEqual([`wiki/concepts/${good}.md`, "wiki/concepts/key.md"]);
    expect(readFileSync(target.pageFile("concepts/key"), "utf8")).not.toMatch(/ghp_[0-9a-f]{36}/);
    const written = [...snapshotFiles(target.paths.wiki).keys()].filter(
      (k) => !/(^|\/)(index|log)\.md$/.test(k),
    );
    expect(written.sort()).toEqual([`concepts/${good}.md`, "concepts/key.md"]);
  });

  it("never writes through a vault folder that is a symlink leading outside", () => {
    const bundle = makeTempDir("okf-b-");
    mkdirSync(join(bundle, "concepts"));
    writeFileSync(join(bundle, "concepts", "x.md"), "---\ntype: concept\n---\nx\n");
    const elsewhere = makeTempDir("okf-elsewhere-");
    const target = makeTempVault();
    symlinkSync(elsewhere, join(target.paths.wiki, "concepts"));
    const result = json(cli(target.root, ["import", "--okf", bundle, "--apply", "--json"]));
    // The vault is not opened at all with a link in its layout (layout-guard.ts).
    expect(JSON.stringify(result.diagnostics)).toContain("vault_layout_symlink");
    expect(snapshotFiles(elsewhere).size).toBe(0);
  });

  it("refuses a bundle that is not a directory, with a usage error for a missing --okf", () => {
    const target = makeTempVault();
    const file = join(makeTempDir("okf-f-"), "bundle.md");
    writeFileSync(file, "x");
    const run = cli(target.root, ["import", "--okf", file, "--json"]);
    expect(run.status).toBe(1);
    expect(json(run).diagnostics).toEqual([
      expect.objectContaining({ code: "okf_bundle_not_directory" }),
    ]);
    expect(cli(target.root, ["import"]).status).toBe(2);
    expect(cli(target.root, ["export"]).status).toBe(2);
  });
});
