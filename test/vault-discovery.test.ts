import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  findPersonalVault,
  findProjectVault,
  personalRoot,
  rootFromArg,
  VAULT_DIR,
  vaultFromArg,
  vaultPaths,
} from "../extensions/llm-wiki/lib/vault/paths.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

/** A home folder with no personal vault, so discovery never sees the real one. */
function emptyHome(): string {
  return makeTempDir("llm-wiki-home-");
}

describe("vaultPaths", () => {
  it("lays out config, wiki, raw and meta files under <root>/.llm-wiki", () => {
    const paths = vaultPaths("/r", "project");
    expect(paths.dir).toBe(join("/r", VAULT_DIR));
    expect(paths.config).toBe(join("/r", ".llm-wiki", "config.json"));
    expect(paths.wiki).toBe(join("/r", ".llm-wiki", "wiki"));
    expect(paths.raw).toBe(join("/r", ".llm-wiki", "raw"));
    expect(paths.registryCache).toBe(join("/r", ".llm-wiki", "meta", "cache", "registry"));
    expect(paths.backlinks).toBe(join("/r", ".llm-wiki", "meta", "backlinks.json"));
    expect(paths.events).toBe(join("/r", ".llm-wiki", "meta", "events.jsonl"));
    expect(paths.qmd).toBe(join("/r", ".llm-wiki", "meta", "qmd"));
  });
});

describe("findProjectVault", () => {
  it("finds the vault in the working directory itself", () => {
    const { root } = makeTempVault();
    const found = findProjectVault(root, { HOME: emptyHome() });
    expect(found?.root).toBe(root);
    expect(found?.kind).toBe("project");
  });

  it("walks up from a subfolder to the nearest .llm-wiki", () => {
    const { root } = makeTempVault();
    const deep = join(root, "src", "lib", "deep");
    mkdirSync(deep, { recursive: true });
    expect(findProjectVault(deep, { HOME: emptyHome() })?.root).toBe(root);
  });

  it("prefers the nearest of two nested vaults", () => {
    const outer = makeTempVault();
    const innerRoot = join(outer.root, "packages", "inner");
    mkdirSync(innerRoot, { recursive: true });
    makeTempVault({ root: innerRoot });
    const cwd = join(innerRoot, "src");
    mkdirSync(cwd);
    const env = { HOME: emptyHome() };
    expect(findProjectVault(cwd, env)?.root).toBe(innerRoot);
    expect(findProjectVault(join(outer.root, "packages"), env)?.root).toBe(outer.root);
  });

  it("returns undefined when no folder up to the filesystem root holds a vault", () => {
    const cwd = join(makeTempDir(), "a", "b");
    mkdirSync(cwd, { recursive: true });
    expect(findProjectVault(cwd, { HOME: emptyHome() })).toBeUndefined();
  });

  it("ignores a .llm-wiki that is a file rather than a folder", () => {
    const root = makeTempDir();
    writeFileSync(join(root, VAULT_DIR), "not a vault");
    expect(findProjectVault(root, { HOME: emptyHome() })).toBeUndefined();
  });

  it("never returns the personal vault as the project vault, from home or below it", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home, kind: "personal" });
    const work = join(home, "code", "app");
    mkdirSync(work, { recursive: true });
    expect(findProjectVault(home, { HOME: home })).toBeUndefined();
    expect(findProjectVault(work, { HOME: home })).toBeUndefined();
  });

  it("still finds a project vault nested inside the home folder that holds the personal vault", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home, kind: "personal" });
    const project = join(home, "code", "app");
    mkdirSync(project, { recursive: true });
    makeTempVault({ root: project });
    const cwd = join(project, "src");
    mkdirSync(cwd);
    expect(findProjectVault(cwd, { HOME: home })?.root).toBe(project);
  });

  it("skips the personal vault named by $WIKI_HOME even when HOME is elsewhere", () => {
    const wikiHome = makeTempDir("llm-wiki-wikihome-");
    makeTempVault({ root: wikiHome, kind: "personal" });
    const cwd = join(wikiHome, "notes");
    mkdirSync(cwd);
    expect(findProjectVault(cwd, { HOME: emptyHome(), WIKI_HOME: wikiHome })).toBeUndefined();
  });

  it("recognises the personal vault through a symlinked home path", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home, kind: "personal" });
    const links = makeTempDir();
    const linkedHome = join(links, "home-link");
    symlinkSync(home, linkedHome);
    expect(findProjectVault(home, { HOME: linkedHome })).toBeUndefined();
  });
});

describe("personal vault", () => {
  it("lives in ~/.llm-wiki when WIKI_HOME is unset", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home, kind: "personal" });
    const found = findPersonalVault({ HOME: home });
    expect(found?.root).toBe(home);
    expect(found?.dir).toBe(join(home, ".llm-wiki"));
    expect(found?.kind).toBe("personal");
  });

  it("lives in $WIKI_HOME/.llm-wiki when WIKI_HOME is set, ignoring ~/.llm-wiki", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home });
    const wikiHome = makeTempDir("llm-wiki-wikihome-");
    expect(findPersonalVault({ HOME: home, WIKI_HOME: wikiHome })).toBeUndefined();
    makeTempVault({ root: wikiHome, kind: "personal" });
    expect(findPersonalVault({ HOME: home, WIKI_HOME: wikiHome })?.root).toBe(wikiHome);
  });

  it("treats a blank WIKI_HOME as unset", () => {
    const home = makeTempDir("llm-wiki-home-");
    expect(personalRoot({ HOME: home, WIKI_HOME: "  " })).toBe(home);
  });

  it("is undefined when the personal root holds no .llm-wiki folder", () => {
    expect(findPersonalVault({ HOME: emptyHome() })).toBeUndefined();
  });
});

describe("vaultFromArg (--vault DIR)", () => {
  it("accepts the folder that holds .llm-wiki/", () => {
    const { root } = makeTempVault();
    const v = vaultFromArg(root, { HOME: emptyHome() });
    expect(v?.root).toBe(root);
    expect(v?.kind).toBe("project");
  });

  it("accepts the .llm-wiki folder itself, with or without a trailing slash", () => {
    const { root } = makeTempVault();
    const env = { HOME: emptyHome() };
    expect(vaultFromArg(join(root, ".llm-wiki"), env)?.root).toBe(root);
    expect(vaultFromArg(`${join(root, ".llm-wiki")}/`, env)?.root).toBe(root);
  });

  it("resolves a relative path against the process working directory", () => {
    const { root } = makeTempVault();
    const rel = relative(process.cwd(), root);
    expect(vaultFromArg(rel, { HOME: emptyHome() })?.root).toBe(root);
  });

  it("is undefined for a folder without a vault, and rootFromArg still names the root to create", () => {
    const root = makeTempDir();
    expect(vaultFromArg(root, { HOME: emptyHome() })).toBeUndefined();
    expect(vaultFromArg(join(root, ".llm-wiki"), { HOME: emptyHome() })).toBeUndefined();
    expect(rootFromArg(join(root, ".llm-wiki"))).toBe(root);
    expect(rootFromArg(root)).toBe(root);
  });

  it("marks the personal vault as personal when it is named explicitly", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home, kind: "personal" });
    expect(vaultFromArg(home, { HOME: home })?.kind).toBe("personal");
  });
});
