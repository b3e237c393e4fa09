/**
 * In-place front-matter edits (verify, mark ingested, mark distilled) touch
 * only plain pages under wiki/, add only their own bytes, and lose to an
 * editor who saved in between: that editor's text stays, nothing is written.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import {
  appendToBlock,
  commitEdit,
  openFrontmatter,
} from "../extensions/llm-wiki/lib/writing/frontmatter-edit.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

function vaultWith(rel: string, text: string) {
  const vault = vaultPaths(makeTempDir(), "project");
  mkdirSync(join(vault.dir, rel, ".."), { recursive: true });
  writeFileSync(join(vault.dir, rel), text);
  return vault;
}

describe("front-matter edits", () => {
  it("adds lines at the end of the block, keeping the page's CRLF and every other byte", () => {
    const body = `# T\r\n\r\n${randomWords(12)}\r\n`;
    const text = `---\r\ntype: concept\r\ntitle: T\r\n---\r\n${body}`;
    const vault = vaultWith("wiki/concepts/t.md", text);
    const site = openFrontmatter(vault, "wiki/concepts/t.md");
    if (typeof site === "string") throw new Error(site);
    const after = appendToBlock(site, `verified: 2026-12-01${site.eol}`);
    expect(commitEdit(site, after)).toBe(true);
    expect(readFileSync(join(vault.dir, "wiki/concepts/t.md"), "utf8")).toBe(
      `---\r\ntype: concept\r\ntitle: T\r\nverified: 2026-12-01\r\n---\r\n${body}`,
    );
  });

  it("writes nothing when the page changed after it was read; the other save stands", () => {
    const vault = vaultWith("wiki/concepts/t.md", "---\ntype: concept\n---\nold\n");
    const site = openFrontmatter(vault, "wiki/concepts/t.md");
    if (typeof site === "string") throw new Error(site);
    const theirs = `---\ntype: concept\n---\n${randomWords(8)}\n`;
    writeFileSync(join(vault.dir, "wiki/concepts/t.md"), theirs);
    expect(commitEdit(site, appendToBlock(site, "verified: 2026-12-01\n"))).toBe(false);
    expect(readFileSync(join(vault.dir, "wiki/concepts/t.md"), "utf8")).toBe(theirs);
  });

  it("refuses a symlinked page, a path outside wiki/, and a page without front matter", () => {
    const vault = vaultWith("wiki/concepts/plain.md", `# Plain\n${randomWords(5)}\n`);
    const outside = join(makeTempDir(), "target.md");
    writeFileSync(outside, "---\ntype: concept\n---\n");
    symlinkSync(outside, join(vault.dir, "wiki/concepts/link.md"));
    writeFileSync(join(vault.dir, "notes.md"), "---\ntype: concept\n---\n");
    expect(openFrontmatter(vault, "wiki/concepts/link.md")).toBe("unsafe");
    expect(openFrontmatter(vault, "notes.md")).toBe("unsafe");
    expect(openFrontmatter(vault, "wiki/../notes.md")).toBe("unsafe");
    expect(openFrontmatter(vault, "wiki/concepts/plain.md")).toBe("no_frontmatter");
  });
});
