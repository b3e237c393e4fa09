/**
 * Mirror files of a rebuild's new generation are created exclusively
 * (lib/index/fresh-write.ts): never through a symbolic link, never over
 * anything already there, and the content lands whole.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { freshFileWriter } from "../extensions/llm-wiki/lib/index/fresh-write.ts";
import { randomWords } from "./helpers/random-text.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-fresh-"));
  dirs.push(dir);
  return dir;
}

describe("freshFileWriter", () => {
  it("creates each file, and the folders on its way, with exactly the content given", async () => {
    const root = temp();
    const writer = freshFileWriter();
    const write = writer.write;
    const texts = [randomWords(30), randomWords(5), `# ${randomWords(3)}\n\n${randomWords(200)}\n`];
    texts.forEach((text, i) => {
      write(join(root, "documents", `canonical-${i % 2}`, "concepts", `p${i}.md`), text);
    });
    await writer.drain();
    texts.forEach((text, i) => {
      expect(
        readFileSync(join(root, "documents", `canonical-${i % 2}`, "concepts", `p${i}.md`), "utf8"),
      ).toBe(text);
    });
  });

  it("refuses a symbolic link planted where a file goes, live or dangling, and writes nothing through it", async () => {
    const root = temp();
    const outside = join(temp(), "victim.txt");
    const before = randomWords(6);
    writeFileSync(outside, before);
    mkdirSync(join(root, "docs"), { recursive: true });
    symlinkSync(outside, join(root, "docs", "live.md"));
    symlinkSync(join(temp(), "nothing-here.md"), join(root, "docs", "dangling.md"));
    for (const name of ["live.md", "dangling.md"]) {
      const writer = freshFileWriter();
      writer.write(join(root, "docs", name), randomWords(4));
      const thrown = await writer.drain().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(WikiError);
      expect((thrown as WikiError).diagnostic.code).toBe("write_through_link");
    }
    expect(readFileSync(outside, "utf8")).toBe(before);
    expect(existsSync(join(root, "docs", "dangling.md"))).toBe(false);
  });

  it("never replaces a file that is already there, and fails the writes after it", async () => {
    const root = temp();
    const file = join(root, "a.md");
    const first = randomWords(5);
    writeFileSync(file, first);
    const writer = freshFileWriter();
    writer.write(file, randomWords(5));
    await expect(writer.drain()).rejects.toThrow(/EEXIST/);
    expect(() => writer.write(join(root, "b.md"), randomWords(5))).toThrow(/EEXIST/);
    expect(readFileSync(file, "utf8")).toBe(first);
    expect(existsSync(join(root, "b.md"))).toBe(false);
  });
});
