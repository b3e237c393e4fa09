/**
 * A bundle older than its sources says so: in a checkout, hooks and the MCP
 * server `setup` points at run `dist/`, and a pull without `pnpm build`
 * would otherwise leave them running old code silently. The build records
 * its inputs; a bin from `dist/` compares their times; an installed package
 * is never checked.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILD_INPUTS_FILE, staleBuildNotice } from "../extensions/llm-wiki/lib/stale-build.ts";
import { TEST_BUNDLE } from "./helpers/cli.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

/** Writes each file of `files` (path relative to `root`), creating folders. */
function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

afterEach(removeTempDirs);

/** A checkout with `names` as sources, built at `builtAt`, every source older. */
function checkout(names: string[], builtAt: number, under = "") {
  const root = join(makeTempDir("llm-wiki-stale-"), under);
  writeFiles(root, {
    ...Object.fromEntries(names.map((n) => [n, `export const x = "${n}";\n`])),
    [`dist/${BUILD_INPUTS_FILE}`]: JSON.stringify({ builtAt, inputs: names }),
  });
  for (const n of names)
    utimesSync(join(root, n), new Date(builtAt - 60_000), new Date(builtAt - 60_000));
  return root;
}

describe("staleBuildNotice", () => {
  const now = Date.now();
  const names = Array.from({ length: 5 }, (_, i) => `lib/${randomWord()}-${i}.ts`);

  it("says nothing while every source is older than the build", () => {
    expect(staleBuildNotice(join(checkout(names, now), "dist"))).toBeUndefined();
  });

  it("names a source changed since the build, and how many more", () => {
    const root = checkout(names, now);
    const [first, second] = [names[3] as string, names[1] as string];
    utimesSync(join(root, first), new Date(now + 5_000), new Date(now + 5_000));
    expect(staleBuildNotice(join(root, "dist"))).toMatch(
      new RegExp(
        `older than its sources \\(${first.replace(/[.]/g, "\\.")} changed since it was built\\); run \`pnpm build\``,
      ),
    );
    utimesSync(join(root, second), new Date(now + 5_000), new Date(now + 5_000));
    expect(staleBuildNotice(join(root, "dist"))).toContain("and 1 more changed");
  });

  it("never checks an installed package, a bundle without a record, or sources not beside it", () => {
    const installed = checkout(names, now, "node_modules/llm-wiki-memory");
    utimesSync(join(installed, names[0] as string), new Date(now + 5_000), new Date(now + 5_000));
    expect(staleBuildNotice(join(installed, "dist"))).toBeUndefined();
    expect(staleBuildNotice(makeTempDir("llm-wiki-nodist-"))).toBeUndefined();
    const elsewhere = checkout([], now);
    writeFiles(elsewhere, {
      [`dist/${BUILD_INPUTS_FILE}`]: JSON.stringify({ builtAt: now, inputs: names }),
    });
    expect(staleBuildNotice(join(elsewhere, "dist"))).toBeUndefined();
  });

  it("is what the build records: the entry points among the bundle's inputs", () => {
    const record = JSON.parse(readFileSync(join(TEST_BUNDLE, BUILD_INPUTS_FILE), "utf8")) as {
      builtAt: number;
      inputs: string[];
    };
    expect(record.inputs).toEqual(expect.arrayContaining(["cli/llm-wiki.ts", "mcp/index.ts"]));
    expect(record.inputs.some((f) => f.includes("node_modules"))).toBe(false);
    expect(record.builtAt).toBeLessThanOrEqual(Date.now());
  });
});
