/**
 * The package as a user gets it: packed with `pnpm pack` (which builds the
 * bundled bins) and installed with npm into an empty project, once for this
 * file; then the smoke specification runs every host and every capture
 * format through the installed bins and the installed package folder
 * (test/helpers/smoke-spec.ts), and the CLI recalls from a fresh copy of
 * the example vault as the README shows.
 *
 * npm downloads the package's dependencies (about 900 MB), so this runs
 * where CI runs (`CI=true`) or when asked (`LLM_WIKI_TEST_INSTALL=1`).
 */
import { cpSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv } from "./helpers/index-services.ts";
import {
  type InstalledPackage,
  installPackedPackage,
  installWanted,
} from "./helpers/installed-package.ts";
import { runBin } from "./helpers/shipped-package.ts";
import { smokeSpec } from "./helpers/smoke-spec.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
};
let installed: InstalledPackage | undefined;

function shipped(): InstalledPackage {
  if (!installed) throw new Error("the package is installed in beforeAll");
  return installed;
}

describe.runIf(installWanted)("the packed package installed with npm", () => {
  beforeAll(() => {
    installed = installPackedPackage();
    process.stderr.write(
      `install-tarball: pnpm pack ${installed.seconds.pack} s, npm install ${installed.seconds.install} s\n`,
    );
  }, 1_200_000);
  afterAll(() => {
    installed?.remove();
    removeTempDirs();
  });

  it("is the tarball pnpm pack names after the package, and its bin prints the package's version", async () => {
    expect(shipped().tarball).toBe(`${manifest.name}-${manifest.version}.tgz`);
    const version = await runBin(shipped().llmWiki, ["--version"], {
      cwd: shipped().work,
      env: childEnv(),
    });
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it("recalls automatically from a fresh copy of the example vault", async () => {
    const vault = join(makeTempDir("llm-wiki-install-"), "acme-notes");
    cpSync(join(REPO, "examples", "acme-notes"), vault, {
      recursive: true,
      filter: (src) => !src.split(sep).includes("meta"),
    });
    const recall = await runBin(
      shipped().llmWiki,
      ["recall", "--auto", "how do we keep the cache consistent", "--vault", vault],
      { cwd: vault, env: childEnv() },
    );
    expect(recall.status, recall.stderr).toBe(0);
    expect(recall.stdout).toContain('<wiki-recall source="llm-wiki">');
    expect(recall.stdout).toContain("concepts/cache-invalidation");
  });

  smokeSpec("installed tarball", shipped);
});
