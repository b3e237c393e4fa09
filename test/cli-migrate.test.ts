/**
 * Layouts of `@zosmaai/pi-llm-wiki` through the real CLI: its old `.wiki/`
 * layout and a doubled `.llm-wiki/.llm-wiki/` are reported by `status` with
 * a structured diagnostic and the repair command, instead of passing for no
 * vault (or for an empty one); `llm-wiki migrate --dry-run` lists the moves
 * and changes nothing; `llm-wiki migrate` moves the vault into `.llm-wiki/`
 * byte for byte, merging folders, leaving everything else where it is, and
 * refuses the whole plan (nothing moved) when a destination exists or a
 * symbolic link is in the way. File names are hostile and new each run;
 * none of their bytes reaches the terminal raw.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, pageText, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/;

/** A file name a shell, a terminal and a line-based reader would all trip on; new each run. */
function hostileName(): string {
  const pieces = [
    `-${randomWord()}`,
    ` '$(touch ${randomWord()})'`,
    "\n",
    `\u001b[${randomInt(1, 9)}J`,
    "\u202e",
    `"${randomWord()}"`,
    "\u0007",
    " ünï ",
  ];
  const picked = pieces.filter(() => randomInt(2) === 1);
  return `${randomWord()}${picked.join("")}${randomWord()}`.replace(/\//g, "");
}

interface Dirs {
  root: string;
  env: NodeJS.ProcessEnv;
}

/** A project folder and a home holding no vault, so only the layout under test is seen. */
function dirs(): Dirs {
  const base = makeTempDir("llm-wiki-migrate-");
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { root, env: { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(base, "xdg") } };
}

function put(path: string, content: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

const cli = (d: Dirs, ...args: string[]) => runCli(args, { cwd: d.root, env: d.env });

function expectSafe(text: string): void {
  for (const line of text.split("\n")) expect(line).not.toMatch(UNSAFE);
}

/** Writes a vault in the old `.wiki/` layout at `root`; returns the names of its pages. */
function legacyVault(root: string): { pages: string[] } {
  put(join(root, ".wiki", "config.json"), `${JSON.stringify({ name: randomWords(2) })}\n`);
  put(join(root, ".wiki", "templates", "concept.md"), "# {{title}}\n");
  put(join(root, ".wiki", `${randomWord()} notes.txt`), "kept where it is\n");
  const pages = [hostileName(), hostileName(), randomWord()];
  for (const name of pages) {
    put(
      join(root, "wiki", "concepts", `${name}.md`),
      pageText({ type: "concept", title: randomWords(3) }, `${randomWords(12)}\n`),
    );
  }
  put(join(root, "raw", "sources", "SRC-2026-01-02-001", "source.md"), `${randomWords(20)}\n`);
  put(join(root, "meta", "events.jsonl"), '{"ts":"2026-01-02T00:00:00Z","kind":"page_created"}\n');
  put(join(root, "WIKI_SCHEMA.md"), "# Schema\n");
  // Not the vault's: never moved.
  put(join(root, "src", "app.ts"), "export {};\n");
  return { pages };
}

/** Writes a vault one level too deep, `root/.llm-wiki/.llm-wiki/`. */
function doubledVault(root: string): { pages: string[]; inner: string } {
  const inner = join(root, ".llm-wiki", ".llm-wiki");
  put(join(inner, "config.json"), `${JSON.stringify({ name: randomWords(2) })}\n`);
  const pages = [hostileName(), randomWord()];
  for (const name of pages) {
    put(
      join(inner, "wiki", "concepts", `${name}.md`),
      pageText({ type: "concept", title: randomWords(3) }, `${randomWords(12)}\n`),
    );
  }
  put(join(inner, hostileName()), "an entry with a hostile name\n");
  put(join(inner, "meta", "events.jsonl"), '{"ts":"2026-01-02T00:00:00Z","kind":"page_created"}\n');
  // What a host opening the outer folder may have made there: merged into, never replaced.
  put(join(root, ".llm-wiki", "meta", "cache", "note.txt"), "outer cache\n");
  return { pages, inner };
}

/** The snapshot of `root` with every `from` prefix renamed `to`: what a migration must leave. */
function moved(before: Map<string, Buffer>, renames: Array<[string, string]>): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [path, bytes] of before) {
    const rename = renames.find(([from]) => path === from || path.startsWith(`${from}/`));
    out.set(rename ? `${rename[1]}${path.slice(rename[0].length)}` : path, bytes);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe("legacy layouts are reported, not taken for no vault", () => {
  it("status names the old .wiki/ layout with its repair command", () => {
    const d = dirs();
    legacyVault(d.root);
    const text = cli(d, "status");
    expect(text.status).toBe(1);
    expect(text.stderr).toContain(
      `warning: ${d.root}: a vault in pi-llm-wiki's old layout (.wiki/config.json, its pages in wiki/ beside it); llm-wiki opens only .llm-wiki/, so it is not used (fix: llm-wiki migrate --vault ${d.root} --dry-run lists the moves; without --dry-run it makes them)`,
    );
    const json = cli(d, "status", "--json");
    const parsed = JSON.parse(json.stdout) as {
      diagnostics: Array<{ code: string; path?: string }>;
    };
    expect(parsed.diagnostics.map((x) => x.code)).toEqual([
      "vault_not_found",
      "vault_legacy_layout",
    ]);
    expect(parsed.diagnostics[1]?.path).toBe(d.root);
    // From a folder inside it too, as discovery walks up.
    const inside = runCli(["status", "--json"], { cwd: join(d.root, "src"), env: d.env });
    expect(JSON.parse(inside.stdout).diagnostics[1]).toMatchObject({ code: "vault_legacy_layout" });
  });

  it("status names a doubled .llm-wiki/.llm-wiki/ whose outer folder holds no pages", () => {
    const d = dirs();
    doubledVault(d.root);
    const json = cli(d, "status", "--json");
    const parsed = JSON.parse(json.stdout) as {
      vault?: { pages: number };
      diagnostics: Array<{ code: string; severity: string; repair?: string }>;
    };
    expect(parsed.vault?.pages).toBe(0);
    expect(parsed.diagnostics[0]).toMatchObject({
      code: "vault_doubled_layout",
      severity: "warning",
      repair: `llm-wiki migrate --vault ${d.root} --dry-run lists the moves; without --dry-run it makes them`,
    });
  });
});

describe("a doubled layout before migrate", () => {
  it("status writes nothing: no index, no meta file, no lock, in either folder", () => {
    const d = dirs();
    doubledVault(d.root);
    const before = snapshotFiles(d.root);
    const json = cli(d, "status", "--json");
    expect(JSON.parse(json.stdout).diagnostics[0]).toMatchObject({ code: "vault_doubled_layout" });
    cli(d, "status");
    expect([...snapshotFiles(d.root).keys()]).toEqual([...before.keys()]);
    expect(snapshotFiles(d.root)).toEqual(before);
  });
});

describe("llm-wiki migrate", () => {
  it("--dry-run lists the old layout's moves, neutralised, and changes nothing", () => {
    const d = dirs();
    legacyVault(d.root);
    const before = snapshotFiles(d.root);
    const run = cli(d, "migrate", "--dry-run");
    expect(run.status).toBe(0);
    expectSafe(run.stdout);
    expectSafe(run.stderr);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe(
      `${d.root}: pi-llm-wiki's old layout (.wiki/), would move 6 entries into .llm-wiki/`,
    );
    expect(lines).toContain("  .wiki/config.json → .llm-wiki/config.json");
    expect(lines).toContain("  wiki → .llm-wiki/wiki");
    expect(lines).toContain("  raw → .llm-wiki/raw");
    expect(lines).toContain("dry run: nothing was changed; run without --dry-run to move them");
    expect(snapshotFiles(d.root)).toEqual(before);
    expect(existsSync(join(d.root, ".llm-wiki"))).toBe(false);
  });

  it("moves the old layout into .llm-wiki/ byte for byte; the vault then opens with its pages", () => {
    const d = dirs();
    const { pages } = legacyVault(d.root);
    const before = snapshotFiles(d.root);
    const run = cli(d, "migrate", "--json");
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { ok: boolean; layout: string; left: string[] };
    expect(result).toMatchObject({ ok: true, layout: "dot_wiki" });
    expect(result.left).toHaveLength(1);
    expect(result.left[0]).toMatch(/^\.wiki\/\w+ notes\.txt$/);
    expect(snapshotFiles(d.root)).toEqual(
      moved(before, [
        [".wiki/config.json", ".llm-wiki/config.json"],
        [".wiki/templates", ".llm-wiki/templates"],
        ["wiki", ".llm-wiki/wiki"],
        ["raw", ".llm-wiki/raw"],
        ["meta", ".llm-wiki/meta"],
        ["WIKI_SCHEMA.md", ".llm-wiki/WIKI_SCHEMA.md"],
      ]),
    );
    const status = JSON.parse(cli(d, "status", "--json").stdout) as {
      ok: boolean;
      vault: { pages: number };
      diagnostics: Array<{ code: string }>;
    };
    expect(status.ok).toBe(true);
    expect(status.vault.pages).toBe(pages.length);
    expect(status.diagnostics.map((x) => x.code)).not.toContain("vault_legacy_layout");
    // Nothing left to migrate.
    const again = cli(d, "migrate");
    expect(again.status).toBe(0);
    expect(again.stderr).toBe("");
  });

  it("flattens a doubled vault, merging into the outer folder, and removes the emptied inner one", () => {
    const d = dirs();
    const { pages } = doubledVault(d.root);
    const before = snapshotFiles(d.root);
    const dry = cli(d, "migrate", "--dry-run");
    expect(dry.status).toBe(0);
    expectSafe(dry.stdout);
    expect(snapshotFiles(d.root)).toEqual(before);

    const run = cli(d, "migrate");
    expect(run.status).toBe(0);
    expectSafe(run.stdout);
    expect(run.stdout.split("\n")[0]).toMatch(
      /: a doubled \.llm-wiki\/\.llm-wiki\/, moved \d+ entries into \.llm-wiki\/$/,
    );
    expect(snapshotFiles(d.root)).toEqual(moved(before, [[".llm-wiki/.llm-wiki", ".llm-wiki"]]));
    expect(existsSync(join(d.root, ".llm-wiki", ".llm-wiki"))).toBe(false);
    expect(readFileSync(join(d.root, ".llm-wiki", "meta", "cache", "note.txt"), "utf8")).toBe(
      "outer cache\n",
    );
    const status = JSON.parse(cli(d, "status", "--json").stdout) as {
      vault: { pages: number };
      diagnostics: Array<{ code: string }>;
    };
    expect(status.vault.pages).toBe(pages.length);
    expect(status.diagnostics.map((x) => x.code)).not.toContain("vault_doubled_layout");
  });

  it("refuses the whole plan when a destination exists: nothing is moved or overwritten", () => {
    const d = dirs();
    const { inner } = doubledVault(d.root);
    const name = `${hostileName()}.md`;
    put(join(inner, "wiki", "concepts", name), "inner version\n");
    put(join(d.root, ".llm-wiki", "wiki", "concepts", name), "outer version\n");
    const before = snapshotFiles(d.root);
    const run = cli(d, "migrate");
    expect(run.status).toBe(1);
    expectSafe(run.stderr);
    expect(run.stderr).toMatch(
      /error: ".llm-wiki\/wiki\/concepts\/.*" exists already; it is never overwritten/,
    );
    expect(run.stdout).toContain("nothing was moved");
    expect(snapshotFiles(d.root)).toEqual(before);
  });

  it("neither follows nor moves a symbolic link, inside the plan or in place of a folder to merge into", () => {
    const d = dirs();
    const outside = join(dirname(d.root), "outside");
    put(join(outside, "secret.md"), "outside the vault\n");
    const { inner } = doubledVault(d.root);
    symlinkSync(outside, join(inner, "raw"));
    const before = snapshotFiles(d.root);
    const outsideBefore = snapshotFiles(outside);
    const linked = cli(d, "migrate");
    expect(linked.status).toBe(1);
    expect(linked.stderr).toContain(
      'error: ".llm-wiki/.llm-wiki/raw" is a symbolic link; it is neither followed nor moved (move it by hand)',
    );
    expect(snapshotFiles(d.root)).toEqual(before);

    // The outer folder's own wiki/ a link out: merging into it would write there.
    const e = dirs();
    doubledVault(e.root);
    symlinkSync(outside, join(e.root, ".llm-wiki", "wiki"));
    const merged = runCli(["migrate", "--vault", e.root], { cwd: dirname(e.root), env: e.env });
    expect(merged.status).toBe(1);
    expect(merged.stderr).toContain('".llm-wiki/wiki" exists already as a symbolic link');
    expect(snapshotFiles(outside)).toEqual(outsideBefore);
  });

  it("with nothing to migrate says so and changes nothing", () => {
    const d = dirs();
    put(join(d.root, "wiki", "notes.md"), "a folder named wiki is not a vault\n");
    const before = snapshotFiles(d.root);
    const run = cli(d, "migrate", "--json");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      moves: [],
      diagnostics: [{ code: "migrate_nothing" }],
    });
    expect(snapshotFiles(d.root)).toEqual(before);
  });
});
