/**
 * The plugin as a marketplace install gets it, without the network: a copy
 * of the repository's tracked files (a git clone has no `node_modules` and
 * no `dist/`), and a stand-in for the npm package the plugin installs on
 * first use: a tarball named `llm-wiki-memory` whose `dist/` entries run
 * this checkout's CLI and MCP server. npm installs it offline, so the
 * background install, the lock and the ready mark all run for real.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeTempDir } from "./temp-vault.ts";

const REPO = join(import.meta.dirname, "..", "..");

/** A copy of the repository's tracked files (the working tree's versions): what a git clone holds. */
export function pluginClone(): string {
  const root = join(makeTempDir("llm-wiki-plugin-clone-"), "llm-wiki");
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: REPO,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((f) => f !== "" && !f.startsWith("examples/") && !f.startsWith("benchmarks/"))
    // A worktree's links to shared folders are untracked, not ignored: a clone has none of them.
    .filter((f) => !["node_modules", ".tools", ".cache"].includes(f.split("/")[0] ?? ""));
  for (const file of files) {
    try {
      cpSync(join(REPO, file), join(root, file), { recursive: true });
    } catch (error) {
      // A file deleted in the working tree and not yet committed.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return root;
}

/** Packs the stand-in runtime package; returns the tarball's path. */
export function fakeRuntimeTarball(): string {
  const dir = makeTempDir("llm-wiki-fake-runtime-");
  const pkg = join(dir, "package");
  const entry = (to: string) =>
    `await import(${JSON.stringify(pathToFileURL(join(REPO, to)).href)});\n`;
  mkdirSync(join(pkg, "dist", "cli"), { recursive: true });
  mkdirSync(join(pkg, "dist", "mcp"), { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "llm-wiki-memory", version: "0.0.0-test", type: "module" }),
  );
  writeFileSync(join(pkg, "dist", "cli", "llm-wiki.js"), entry("cli/llm-wiki.ts"));
  writeFileSync(join(pkg, "dist", "mcp", "index.js"), entry("mcp/index.ts"));
  execFileSync("npm", ["pack", "--pack-destination", dir], {
    cwd: pkg,
    stdio: "ignore",
    env: { PATH: process.env.PATH ?? "", HOME: dir },
  });
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack made no tarball");
  return join(dir, tarball);
}
