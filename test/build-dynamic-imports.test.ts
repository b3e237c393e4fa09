/**
 * The bundled bins' build refuses the bundling mistake that broke HTML
 * capture in the built package: a dynamic import of a CommonJS package,
 * which in a split bundle gives only `default`, not the named exports Node
 * gives (scripts/build-dynamic-imports.ts). And every package the bins
 * import dynamically is one the smoke specification loads from the bundle
 * (test/helpers/smoke-spec.ts), so a new one comes with a smoke case.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binBuildOptions } from "../scripts/build.ts";
import {
  checkDynamicImports,
  importKey,
  packageDynamicImports,
  REVIEWED_COMMONJS_IMPORTS,
} from "../scripts/build-dynamic-imports.ts";

const REPO = join(import.meta.dirname, "..");
let work = "";

beforeAll(() => {
  // Inside the repository, so a probe's imports resolve from its node_modules.
  mkdirSync(join(REPO, ".cache"), { recursive: true });
  work = mkdtempSync(join(REPO, ".cache", "dynamic-imports-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A module that imports `specifier` dynamically, built as the bins are; its metafile and entry. */
async function buildProbe(specifier: string, write = false) {
  const source = join(work, `probe-${specifier.replace(/\W/g, "-")}.ts`);
  writeFileSync(source, `export const load = () => import(${JSON.stringify(specifier)});\n`);
  const out = join(work, "out");
  const result = await build({
    ...binBuildOptions(out),
    entryPoints: { probe: source },
    write,
  });
  return {
    metafile: result.metafile,
    importer: relative(REPO, source).split("\\").join("/"),
    entry: join(out, "probe.js"),
  };
}

describe("a dynamic import of a CommonJS package in the bundle", () => {
  it("gives only `default` in a split bundle, where Node gives the named exports too", async () => {
    const probe = await buildProbe("node-html-markdown", true);
    const bundled = (await import(pathToFileURL(probe.entry).href)) as {
      load(): Promise<Record<string, unknown>>;
    };
    expect(Object.keys(await bundled.load())).toEqual(["default"]);
    const fromNode = (await import("node-html-markdown")) as Record<string, unknown>;
    expect(Object.keys(fromNode)).toContain("NodeHtmlMarkdown");
  });

  it("fails the build, naming the importer, the package and the fix, unless reviewed", async () => {
    const probe = await buildProbe("node-html-markdown");
    expect(packageDynamicImports(probe.metafile)).toEqual([
      { importer: probe.importer, specifier: "node-html-markdown", external: false, format: "cjs" },
    ]);
    expect(() => checkDynamicImports(probe.metafile)).toThrow(
      `${probe.importer} → node-html-markdown`,
    );
    expect(() => checkDynamicImports(probe.metafile)).toThrow(/read the export from `default`/);
    const key = importKey({ importer: probe.importer, specifier: "node-html-markdown" });
    expect(() => checkDynamicImports(probe.metafile, [key])).not.toThrow();
  });

  it("of an ES module package passes the build", async () => {
    const probe = await buildProbe("unpdf");
    expect(packageDynamicImports(probe.metafile)).toMatchObject([{ format: "esm" }]);
    expect(() => checkDynamicImports(probe.metafile, [])).not.toThrow();
  });
});

describe("the bins' own dynamic imports of packages", () => {
  /** Each one, and the smoke case that loads it from the bundle. */
  const SMOKED: Record<string, string> = {
    "extensions/llm-wiki/lib/capture/extract.ts → node-html-markdown":
      "capture --file lock-gate.html (and --url, the MCP server's capture)",
    "extensions/llm-wiki/lib/capture/pdf-extract.ts → unpdf": "capture --file crane-ledger.pdf",
    "extensions/llm-wiki/lib/index/qmd-store.ts → @tobilu/qmd": "reindex, recall",
  };

  it("are each loaded by a smoke case, and the CommonJS ones are reviewed", async () => {
    const result = await build({ ...binBuildOptions(join(work, "bins")), write: false });
    const imports = packageDynamicImports(result.metafile);
    expect(imports.map(importKey).sort()).toEqual(Object.keys(SMOKED).sort());
    const commonJs = imports.filter((i) => i.format === "cjs").map(importKey);
    expect(commonJs).toEqual([...REVIEWED_COMMONJS_IMPORTS]);
    expect(() => checkDynamicImports(result.metafile)).not.toThrow();
  });
});
