/**
 * Mirror files of a rebuild's new generation are created exclusively
 * (lib/index/fresh-write.ts): never through a symbolic link, never over
 * anything already there, and the content lands whole.
 */

import { createHook } from "node:async_hooks";
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

  it("waits on its running writes at a cost per file that does not grow with how many run", async () => {
    // A rebuild drains to two slices' worth after each slice. Racing every
    // running write at each wake-up made promises per file grow with that
    // number (~250 per file here), all kept alive until the writes ended.
    const root = temp();
    const writer = freshFileWriter();
    const files = 600;
    const batch = 100;
    const text = randomWords(40);
    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === "PROMISE") promises += 1;
      },
    });
    hook.enable();
    try {
      for (let at = 0; at < files; at += batch) {
        for (let i = at; i < at + batch; i += 1)
          writer.write(join(root, `d${i % 7}`, `p${i}.md`), text);
        await writer.drain(2 * batch);
      }
      await writer.drain();
    } finally {
      hook.disable();
    }
    expect(promises / files).toBeLessThan(60);
    for (const i of [0, 299, files - 1]) {
      expect(readFileSync(join(root, `d${i % 7}`, `p${i}.md`), "utf8")).toBe(text);
    }
  });

  it("wakes every waiting drain once its own bound is met", async () => {
    const root = temp();
    const writer = freshFileWriter();
    for (let i = 0; i < 50; i += 1) writer.write(join(root, `p${i}.md`), randomWords(10));
    const order: string[] = [];
    await Promise.all([
      writer.drain().then(() => order.push("all")),
      writer.drain(25).then(() => order.push("half")),
    ]);
    expect(order).toEqual(["half", "all"]);
    await writer.drain(10); // nothing running: returns at once
  });
});
