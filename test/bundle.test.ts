/**
 * The published bins are bundles (scripts/build.ts), and the tests of the
 * sources never run them: here the package is staged as npm lays it out,
 * with `dist/` built fresh, and the smoke specification runs every host and
 * every capture format through it (test/helpers/smoke-spec.ts). The bundled
 * CLI also answers a recall exactly as the source CLI does.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv } from "./helpers/index-services.ts";
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

smokeSpec("dist", shipped);

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
