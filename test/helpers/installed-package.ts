/**
 * The package as a user gets it: packed with `pnpm pack` (whose prepack
 * builds the bundled bins), installed with npm from the tarball into an
 * empty project in a scratch folder outside the repository (so nothing
 * resolves from the checkout's node_modules), its bins run from
 * `node_modules/.bin`. npm downloads the dependencies (about 900 MB; the
 * lean form, `LEAN_FLAGS`, about 240 MB), so callers run this once per
 * file, where it is wanted (`installWanted`).
 */
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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
  /** Seconds spent packing (0 when the tarball was reused) and installing. */
  seconds: { pack: number; install: number };
  /** The npm flags it was installed with, beyond the defaults. */
  flags: string[];
  /** Bytes of files under the project's `node_modules` (apparent sizes, links not followed). */
  bytes: number;
  /** The project's `node_modules`. */
  modules: string;
  remove(): void;
}

/** Runs a command to completion in `cwd`; throws with the end of its stderr when it fails. */
export function runCommand(command: string, args: string[], cwd: string): void {
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

/** `runCommand` without blocking this process, so other work (a spec) can run meanwhile. */
export function runCommandAsync(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: process.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const guard = setTimeout(() => child.kill("SIGKILL"), 900_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(guard);
      if (status === 0) resolve();
      else
        reject(new Error(`${command} ${args.join(" ")} exited ${status}:\n${stderr.slice(-2000)}`));
    });
  });
}

/** Whether process `pid` is running (a signal 0 reaches it, or it is another user's). */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The scratch folder of the default install: `<tmp>/llm-wiki-installed`
 * on every run that finds it free, else a new folder. Pi compiles the
 * installed extension's TypeScript with jiti, which caches what it
 * compiled by file path (checking each source's hash): in a folder new on
 * every run, Pi's first load compiled all of it again (15 to 21 s on two
 * busy cores); at the same path it compiles only what changed. The folder
 * is claimed by renaming a new one holding this process's id onto that
 * path, which fails while another run holds it; one a killed run left is
 * taken over.
 */
function claimScratchFolder(): string {
  const stable = join(realpathSync(tmpdir()), "llm-wiki-installed");
  const owner = (dir: string) => {
    try {
      return Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      return 0;
    }
  };
  if (existsSync(stable) && !alive(owner(stable))) {
    const left = `${stable}-left-${process.pid}`;
    try {
      renameSync(stable, left);
      rmSync(left, { recursive: true, force: true });
    } catch {
      // Another run took it over first.
    }
  }
  const claim = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-installed-")));
  writeFileSync(join(claim, "owner.pid"), String(process.pid));
  try {
    renameSync(claim, stable);
    return stable;
  } catch {
    return claim;
  }
}

function seconds(start: number): number {
  return Math.round((performance.now() - start) / 100) / 10;
}

/** How to install: extra npm flags (the lean form's), and a tarball already packed to reuse. */
export interface InstallOptions {
  flags?: string[];
  from?: InstalledPackage;
}

/** The lean install the README documents: no optional dependency, no install script. */
export const LEAN_FLAGS = ["--omit=optional", "--ignore-scripts"];

/** Bytes of every file under `dir`, symbolic links counted as links. */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else total += lstatSync(path).size;
  }
  return total;
}

/**
 * Packs the checkout (or reuses `from`'s tarball) and installs it into a
 * fresh project; call `remove()` when done. npm runs without blocking this
 * process: an install waits mostly on the registry and the disk, so a
 * caller may run specs while a second one proceeds.
 */
export async function installPackedPackage(
  options: InstallOptions = {},
): Promise<InstalledPackage> {
  const pkg = manifest();
  const flags = options.flags ?? [];
  const from = options.from;
  // Only the default install is loaded by Pi; the lean one gets a new folder.
  const work = from
    ? realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-installed-")))
    : claimScratchFolder();
  let pack = 0;
  if (from) copyFileSync(join(from.work, from.tarball), join(work, from.tarball));
  else {
    const start = performance.now();
    runCommand("pnpm", ["pack", "--pack-destination", work], REPO);
    pack = seconds(start);
  }
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz")) ?? "no tarball";
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), '{ "name": "empty", "private": true }\n');
  const start = performance.now();
  await runCommandAsync(
    "npm",
    ["install", "--no-audit", "--no-fund", ...flags, join(work, tarball)],
    project,
  );
  const install = seconds(start);
  const bin = (name: string) => ({
    command: join(project, "node_modules", ".bin", name),
    args: [],
  });
  const modules = join(project, "node_modules");
  return {
    label: flags.length > 0 ? `installed tarball (${flags.join(" ")})` : "installed tarball",
    llmWiki: bin("llm-wiki"),
    mcp: bin("llm-wiki-mcp"),
    packageDir: join(modules, pkg.name),
    tarball,
    work,
    seconds: { pack, install },
    flags,
    bytes: treeBytes(modules),
    modules,
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}
