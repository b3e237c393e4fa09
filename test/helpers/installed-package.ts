/**
 * The package as a user gets it: packed with `pnpm pack` (whose prepack
 * builds the bundled bins), installed with npm from the tarball into an
 * empty project in a scratch folder outside the repository (so nothing
 * resolves from the checkout's node_modules), its bins run from
 * `node_modules/.bin`. npm downloads the dependencies (about 900 MB), so
 * callers run this once per file, where it is wanted (`installWanted`).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ShippedPackage } from "./shipped-package.ts";
import { manifest } from "./staged-package.ts";

const REPO = join(import.meta.dirname, "..", "..");

/** Where CI runs (`CI=true`) or when asked (`LLM_WIKI_TEST_INSTALL=1`). */
export const installWanted = process.env.CI === "true" || process.env.LLM_WIKI_TEST_INSTALL === "1";

export interface InstalledPackage extends ShippedPackage {
  /** The tarball's file name, as `pnpm pack` made it. */
  tarball: string;
  /** The scratch folder holding the tarball and the project. */
  work: string;
  /** Seconds spent packing and installing. */
  seconds: { pack: number; install: number };
  remove(): void;
}

function run(command: string, args: string[], cwd: string): void {
  const out = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: 900_000,
    env: process.env,
  });
  if (out.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${out.status}:\n${(out.stderr ?? "").slice(-2000)}`,
    );
  }
}

function timed(work: () => void): number {
  const start = performance.now();
  work();
  return Math.round((performance.now() - start) / 100) / 10;
}

/** Packs the checkout and installs the tarball into a fresh project; call `remove()` when done. */
export function installPackedPackage(): InstalledPackage {
  const pkg = manifest();
  const work = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-installed-")));
  const pack = timed(() => run("pnpm", ["pack", "--pack-destination", work], REPO));
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz")) ?? "no tarball";
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), '{ "name": "empty", "private": true }\n');
  const install = timed(() =>
    run("npm", ["install", "--no-audit", "--no-fund", join(work, tarball)], project),
  );
  const bin = (name: string) => ({
    command: join(project, "node_modules", ".bin", name),
    args: [],
  });
  return {
    label: "installed tarball",
    llmWiki: bin("llm-wiki"),
    mcp: bin("llm-wiki-mcp"),
    packageDir: join(project, "node_modules", pkg.name),
    tarball,
    work,
    seconds: { pack, install },
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}
