/**
 * The runtime a clone of this repository runs from: the package's files,
 * its dependencies in the lean form and the bundled bins (`dist/`), built
 * in a folder of its own from the clone itself, so nothing depends on the
 * package being on the npm registry. The plugin's launcher builds one in
 * the background on first use (launch.js); `scripts/install.js` builds one
 * and puts `llm-wiki` and `llm-wiki-mcp` on PATH.
 *
 * The lean form: npm installs the dependencies without optional packages
 * and without install scripts (`--omit=optional --ignore-scripts`): the
 * llama.cpp builds for every GPU are 660 MB of the default 870, and
 * lexical recall, hooks and the MCP server need none of them (a model mode
 * then names the two packages that add the CPU runtime). Global npm
 * installs ignore `--omit=optional` (npm/cli#8284), so this is always a
 * local install into the runtime's own folder.
 *
 * The build's tools (esbuild, TypeBox) are installed beside the dependencies
 * for the build and removed after it. `LLM_WIKI_PLUGIN_PACKAGE` names an npm package spec
 * (a registry version, a tarball) to install instead of building.
 *
 * Plain JavaScript with Node's own modules only: it runs before anything is
 * installed.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export const PACKAGE = "llm-wiki-memory";

/** npm's flags for the lean form (README "Install size"). */
export const LEAN = ["--omit=optional", "--ignore-scripts"];

/** The package.json of the clone (or package) at `root`. */
export function manifestOf(root) {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
}

/** The built entry (`dist/<entry>.js`) of a finished runtime in `dir`, or undefined. */
export function runtimeEntry(dir, entry) {
  if (!existsSync(join(dir, "ready"))) return undefined;
  for (const file of [
    join(dir, "dist", `${entry}.js`),
    join(dir, "node_modules", PACKAGE, "dist", `${entry}.js`),
  ]) {
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** The plugin's runtime folder for `version`: `LLM_WIKI_PLUGIN_RUNTIME`, the plugin's data folder, or `~/.llm-wiki/plugin-runtime`. */
export function pluginRuntimeDir(version, env = process.env) {
  const base =
    env.LLM_WIKI_PLUGIN_RUNTIME ||
    (env.CLAUDE_PLUGIN_DATA
      ? join(env.CLAUDE_PLUGIN_DATA, "runtime")
      : join(homedir(), ".llm-wiki", "plugin-runtime"));
  return join(base, `v${version}`);
}

function npmCommand() {
  return process.platform === "win32" ? "npm.cmd" : "npm";
}

/** Runs npm in `cwd` with its output appended to the log `fd`; returns its exit status. */
function npm(args, cwd, fd) {
  writeFileSync(fd, `$ npm ${args.join(" ")}\n`);
  const out = spawnSync(npmCommand(), args, {
    cwd,
    stdio: ["ignore", fd, fd],
    shell: process.platform === "win32",
    env: process.env,
  });
  return out.status ?? out.error?.message ?? "killed";
}

/** The files of the package to copy into a runtime: package.json's `files`, and the build's scripts. */
function packageFiles(root) {
  const pkg = manifestOf(root);
  const build = readdirSync(join(root, "scripts")).filter((f) => /^build.*\.ts$/.test(f));
  const listed = (pkg.files ?? []).filter((f) => f !== "dist");
  return ["package.json", "tsconfig.json", ...listed, ...build.map((f) => `scripts/${f}`)].filter(
    (f) => existsSync(join(root, f)),
  );
}

/**
 * What the build needs beyond the dependencies, at the clone's exact
 * versions: esbuild with its binary for this platform, and TypeBox (a peer
 * dependency the bins bundle). Removed again once `dist/` is built.
 */
const BUILD_TOOLS = ["esbuild", "typebox"];

function buildSpecs(root) {
  const dev = manifestOf(root).devDependencies ?? {};
  const missing = BUILD_TOOLS.filter((name) => !dev[name]);
  if (missing.length > 0) throw new Error(`package.json names no version of ${missing.join(", ")}`);
  return [
    ...BUILD_TOOLS.map((name) => `${name}@${dev[name]}`),
    `@esbuild/${process.platform}-${process.arch}@${dev.esbuild}`,
  ];
}

/**
 * Builds the runtime of the clone at `root` into `dir` (emptied first), or
 * installs `spec` there; writes `dir/ready` on success. The log of every
 * step goes to `log`. Returns `{ ok, message }`.
 */
export function installRuntime({ root, dir, spec, log }) {
  rmSync(join(dir, "ready"), { force: true });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fd = openSync(log, "w");
  try {
    const common = ["install", "--no-audit", "--no-fund", "--no-package-lock", ...LEAN];
    if (spec) {
      writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
      const status = npm([...common, spec], dir, fd);
      if (status !== 0 || !existsSync(join(dir, "node_modules", PACKAGE, "dist"))) {
        return { ok: false, message: `npm exited ${status}; see ${log}` };
      }
    } else {
      for (const file of packageFiles(root)) {
        cpSync(join(root, file), join(dir, file), { recursive: true });
      }
      // npm installs the dependencies and the build's tools only: not the
      // development ones (it would resolve their peers too), and not the
      // optional peers the build needs, which `--omit=optional` would drop.
      const { devDependencies: _dev, ...pkg } = manifestOf(root);
      const { peerDependencies: _peers, peerDependenciesMeta: _meta, ...bare } = pkg;
      writeFileSync(join(dir, "package.json"), `${JSON.stringify(bare, null, 2)}\n`);
      const status = npm([...common, "--no-save", ...buildSpecs(root)], dir, fd);
      writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
      if (status !== 0) return { ok: false, message: `npm exited ${status}; see ${log}` };
      writeFileSync(fd, "$ node scripts/build.ts\n");
      const built = spawnSync(process.execPath, [join(dir, "scripts", "build.ts")], {
        cwd: dir,
        stdio: ["ignore", fd, fd],
        env: process.env,
      });
      // The build's tools are not part of the runtime.
      for (const tool of [...BUILD_TOOLS, "@esbuild", join(".bin", "esbuild")]) {
        rmSync(join(dir, "node_modules", tool), { recursive: true, force: true });
      }
      if (built.status !== 0 || !existsSync(join(dir, "dist", "mcp", "index.js"))) {
        return { ok: false, message: `the build exited ${built.status}; see ${log}` };
      }
    }
    writeFileSync(join(dir, "ready"), `${spec ?? `built from ${root}`}\n`);
    return { ok: true, message: `installed into ${dir}` };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    writeFileSync(fd, `${why}\n`);
    return { ok: false, message: `${why}; see ${log}` };
  } finally {
    closeSync(fd);
  }
}

/** Bytes of every file under `dir`, links counted as links. */
export function treeBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else total += lstatSync(path).size;
  }
  return total;
}

/** The folder holding `dir`, created. */
export function ensureParent(dir) {
  mkdirSync(dirname(dir), { recursive: true });
}
