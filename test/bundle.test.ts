/**
 * The published bins are bundles (scripts/build.ts), and the tests of the
 * sources never run them: here the package is staged as npm lays it out,
 * with `dist/` built fresh, and the smoke specification runs every host and
 * every capture format through it (test/helpers/smoke-spec.ts). Where the
 * packed tarball is installed with npm (CI, test/install-tarball.test.ts),
 * the same specification runs there against the package a user gets, which
 * holds the same `dist/` and more that can break (its dependencies as npm
 * installs them): the staged copy's run would only repeat it. The bundled
 * CLI also answers a recall exactly as the source CLI does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv } from "./helpers/index-services.ts";
import { installWanted } from "./helpers/installed-package.ts";
import { smokeSpec } from "./helpers/smoke-spec.ts";
import { type StagedPackage, stagePackage } from "./helpers/staged-package.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
let staged: StagedPackage | undefined;

function shipped(): StagedPackage {
  if (!staged) throw new Error("the package is staged in beforeAll");
  return staged;
}

beforeAll(async () => {
  staged = await stagePackage();
}, 180_000);
afterAll(() => {
  staged?.remove();
  removeTempDirs();
});

if (!installWanted) smokeSpec("dist", shipped);

describe("the bundled CLI beside the sources", () => {
  it("indexes and recalls exactly as the source CLI does", () => {
    const vault = makeTempVault({
      pages: {
        "concepts/crane": pageText(
          { type: "concept", title: "Harbour crane" },
          "The harbour crane schedule rotates weekly.\n",
        ),
      },
    }).root;
    const run = (entry: string, args: string[]) =>
      spawnSync(process.execPath, [entry, ...args], {
        encoding: "utf8",
        env: childEnv(),
        timeout: 120_000,
      });
    const bundled = join(shipped().packageDir, "dist", "cli", "llm-wiki.js");
    expect(run(bundled, ["reindex", "--vault", vault]).status).toBe(0);
    const args = ["recall", "harbour crane schedule", "--vault", vault, "--json"];
    const fromBundle = run(bundled, args);
    const fromSource = run(join(REPO, "cli", "llm-wiki.ts"), args);
    expect(fromBundle.status, fromBundle.stderr).toBe(0);
    const ids = (text: string) =>
      (JSON.parse(text) as { results: Array<{ id: string; score: number }> }).results.map((r) => [
        r.id,
        r.score,
      ]);
    expect(ids(fromBundle.stdout)).toEqual([["concepts/crane", expect.any(Number)]]);
    expect(ids(fromBundle.stdout)).toEqual(ids(fromSource.stdout));
  });
});

/** Pi's own TypeScript loader (jiti), as Pi loads an installed package's extension. */
function piLoader(): { import<T>(path: string): Promise<T> } {
  const pi = realpathSync(
    join(REPO, "node_modules", "@earendil-works", "pi-coding-agent", "package.json"),
  );
  const { createJiti } = createRequire(pi)("jiti") as {
    createJiti(from: string, options: object): { import<T>(path: string): Promise<T> };
  };
  return createJiti(import.meta.url, { moduleCache: false });
}

describe("the installed package's sources, as Pi loads them", () => {
  it("a rebuild's bulk load runs the bundle's worker: Node runs no TypeScript under node_modules", async () => {
    const lib = join(shipped().packageDir, "extensions", "llm-wiki", "lib", "index");
    const loader = piLoader();
    const { documentLoadWorker } = await loader.import<
      typeof import("../extensions/llm-wiki/lib/index/document-load.ts")
    >(join(lib, "document-load.ts"));
    expect(documentLoadWorker()?.href).toBe(
      pathToFileURL(join(shipped().packageDir, "dist", "chunks", "document-load-worker.js")).href,
    );
    const { openQmdStore } = await loader.import<
      typeof import("../extensions/llm-wiki/lib/index/qmd-store.ts")
    >(join(lib, "qmd-store.ts"));
    const { resolveModels } = await loader.import<
      typeof import("../extensions/llm-wiki/lib/index/models.ts")
    >(join(lib, "models.ts"));
    const root = mkdtempSync(join(tmpdir(), "llm-wiki-pi-load-"));
    const store = await openQmdStore({
      dbPath: join(root, "index.sqlite"),
      collections: [{ name: "canonical-0", dir: join(root, "docs"), role: "canonical" }],
      models: resolveModels({}),
      bulkLoad: true,
    });
    try {
      const text = "# Harbour crane\n\nThe harbour crane schedule rotates weekly.\n";
      await expect(
        store.applyDocuments([{ collection: "canonical-0", path: "crane.md", text }], []),
      ).resolves.toMatchObject({ indexed: 1 });
    } finally {
      await store.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
