#!/usr/bin/env node
/**
 * `node scripts/install.js [--prefix DIR] [--bin DIR] [--setup CLIENT,…] [--package SPEC]`:
 * the one command that installs llm-wiki for the whole machine from a clone
 * of this repository, whether or not the package is on the npm registry.
 * It builds the runtime from the clone (plugin/runtime.js: the package's
 * files, its dependencies in the lean form, the bundled bins) into
 * `DIR/v<version>` (default `~/.local/share/llm-wiki`, `XDG_DATA_HOME`
 * respected; `%LOCALAPPDATA%\llm-wiki` on Windows), then writes the
 * commands `llm-wiki` and `llm-wiki-mcp` into a folder on PATH (default:
 * npm's global bin folder, where `npm install -g` puts commands). Agents'
 * hooks run `llm-wiki hook …`, so this installs them too; `--setup` then
 * runs `llm-wiki setup CLIENT --user` for each client named.
 *
 * Lean in every form: `npm install -g` installs every optional llama.cpp
 * build whatever the flags (npm/cli#8284), so the dependencies go into the
 * runtime's own folder with a local install, where `--omit=optional` holds.
 * `--package SPEC` installs that npm spec (a registry version once
 * published, a tarball) the same way instead of building.
 *
 * A new install is built beside the old one and swapped in only once it
 * works; older versions are then removed. Plain JavaScript with Node's own
 * modules: it checks the Node version before anything else.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { requireSupportedNode } from "../bin/node-check.js";
import { installRuntime, manifestOf, runtimeEntry, treeBytes } from "../plugin/runtime.js";

requireSupportedNode("scripts/install.js");

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE =
  "usage: node scripts/install.js [--prefix DIR] [--bin DIR] [--setup CLIENT[,CLIENT…]] [--package SPEC]\n";

/** The commands written onto PATH, and the built entry each runs. */
const COMMANDS = { "llm-wiki": "cli/llm-wiki", "llm-wiki-mcp": "mcp/index" };

function fail(message, status = 1) {
  process.stderr.write(`llm-wiki install: ${message}\n`);
  process.exit(status);
}

function defaultPrefix(env) {
  if (process.platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "llm-wiki");
  const data = env.XDG_DATA_HOME || join(homedir(), ".local", "share");
  return join(data, "llm-wiki");
}

/** npm's global bin folder: where `npm install -g` puts commands, usually on PATH already. */
function npmGlobalBin() {
  const out = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["prefix", "-g"], {
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  const prefix = out.stdout?.trim();
  if (out.status !== 0 || !prefix) fail("cannot ask npm for its global folder; pass --bin DIR");
  return process.platform === "win32" ? prefix : join(prefix, "bin");
}

/** One word for a POSIX shell. */
function shellWord(word) {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Writes `name` into `bin`: this Node runs `entry` (a Node older than the
 * package needs, first on PATH, cannot break it), or `node` from PATH when
 * this one has gone away (a Node manager's upgrade).
 */
function writeCommand(bin, name, entry) {
  if (process.platform === "win32") {
    const file = join(bin, `${name}.cmd`);
    writeFileSync(
      file,
      `@echo off\r\nif exist "${process.execPath}" (\r\n  "${process.execPath}" "${entry}" %*\r\n) else (\r\n  node "${entry}" %*\r\n)\r\n`,
    );
    return file;
  }
  const file = join(bin, name);
  writeFileSync(
    file,
    [
      "#!/bin/sh",
      `# ${name}: written by llm-wiki's scripts/install.js`,
      `node=${shellWord(process.execPath)}`,
      '[ -x "$node" ] || node=node',
      `exec "$node" ${shellWord(entry)} "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return file;
}

function onPath(dir, env) {
  return (env.PATH ?? "")
    .split(delimiter)
    .filter(Boolean)
    .some((p) => resolve(p) === resolve(dir));
}

function main() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        prefix: { type: "string" },
        bin: { type: "string" },
        setup: { type: "string" },
        package: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    fail(`${error instanceof Error ? error.message : error}\n${USAGE}`, 2);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const env = process.env;
  const version = manifestOf(ROOT).version;
  const prefix = resolve(values.prefix ?? env.LLM_WIKI_INSTALL_PREFIX ?? defaultPrefix(env));
  const bin = resolve(values.bin ?? env.LLM_WIKI_INSTALL_BIN ?? npmGlobalBin());
  const dir = join(prefix, `v${version}`);
  const staging = `${dir}.new`;
  const log = join(prefix, `v${version}.log`);
  mkdirSync(prefix, { recursive: true });
  mkdirSync(bin, { recursive: true });
  process.stderr.write(
    `llm-wiki install: ${values.package ? `installing ${values.package}` : `building ${version} from ${ROOT}`} into ${dir} (lean: no llama.cpp builds; a minute or two; log: ${log})\n`,
  );
  const done = installRuntime({ root: ROOT, dir: staging, spec: values.package, log });
  if (!done.ok) {
    rmSync(staging, { recursive: true, force: true });
    fail(`the install failed (${done.message}); the previous install, if any, is untouched`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  const written = [];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const file = runtimeEntry(dir, entry);
    if (!file) fail(`the install has no ${entry}.js`);
    written.push(writeCommand(bin, name, file));
  }
  for (const old of readdirSync(prefix)) {
    if (/^v\d/.test(old) && old !== `v${version}` && !old.endsWith(".log")) {
      rmSync(join(prefix, old), { recursive: true, force: true });
    }
  }
  const mb = Math.round(treeBytes(join(dir, "node_modules")) / 1024 / 1024);
  const lines = [
    `llm-wiki ${version} installed: ${dir} (${mb} MiB of dependencies)`,
    `commands: ${written.join(", ")}`,
  ];
  if (!onPath(bin, env)) {
    lines.push(
      `${bin} is not on PATH: add it, e.g. in ~/.profile or ~/.bashrc:`,
      `  export PATH=${shellWord(bin)}:"$PATH"`,
    );
  }
  for (const client of (values.setup ?? "").split(",").filter(Boolean)) {
    const entry = runtimeEntry(dir, COMMANDS["llm-wiki"]);
    const run = spawnSync(process.execPath, [entry, "setup", client, "--user"], {
      stdio: "inherit",
    });
    if (run.status !== 0) fail(`llm-wiki setup ${client} --user exited ${run.status}`);
  }
  lines.push(
    "next: `llm-wiki setup claude-code|codex|gemini --user` (every project) or without --user in a project;",
    `      Pi: pi install ${dir}`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  if (!existsSync(join(dir, "ready"))) fail("the install is not marked ready");
}

main();
