/**
 * The package staged as npm would lay it out, with a `dist/` of the current
 * sources: the files `package.json` publishes are copied to
 * `.cache/<tmp>/node_modules/llm-wiki-memory/`, and its `dist/` is the
 * project's own build (global setup's, copied when it is current). Under a
 * `node_modules/`, the bins run the bundles (bin/node-check.js), never the
 * TypeScript sources; inside the repository, the dependencies resolve from
 * its node_modules as they would from an install. Fast (no npm): it runs everywhere.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { TEST_BUNDLE } from "./cli.ts";
import type { ShippedPackage } from "./shipped-package.ts";
import { copyOrBuildBundle } from "./test-bundle.ts";

const REPO = join(import.meta.dirname, "..", "..");

interface Manifest {
  name: string;
  bin: Record<string, string>;
  files: string[];
}

/** `package.json` of the checkout. */
export function manifest(): Manifest {
  return JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as Manifest;
}

export interface StagedPackage extends ShippedPackage {
  /** Removes the staging folder. */
  remove(): void;
}

/** Stages the package with a `dist/` of the current sources; call `remove()` when done. */
export async function stagePackage(): Promise<StagedPackage> {
  const pkg = manifest();
  mkdirSync(join(REPO, ".cache"), { recursive: true });
  const base = mkdtempSync(join(REPO, ".cache", "staged-package-"));
  const packageDir = join(base, "node_modules", pkg.name);
  mkdirSync(packageDir, { recursive: true });
  cpSync(join(REPO, "package.json"), join(packageDir, "package.json"));
  for (const entry of pkg.files) {
    // The checkout's dist/ may be stale or absent: the build below makes it.
    if (entry === "dist") continue;
    cpSync(join(REPO, entry), join(packageDir, entry), { recursive: true });
  }
  // Global setup's bundle of the same sources is what a build here would
  // make (keyed by their content): copying it saves a build per spec file.
  await copyOrBuildBundle(TEST_BUNDLE, join(packageDir, "dist"));
  const bin = (name: string) => ({
    command: process.execPath,
    args: [join(packageDir, pkg.bin[name] ?? `no bin ${name}`)],
  });
  return {
    label: "dist",
    llmWiki: bin("llm-wiki"),
    mcp: bin("llm-wiki-mcp"),
    packageDir,
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}
