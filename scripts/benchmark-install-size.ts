/**
 * What each documented install holds, run as the README gives it, and what
 * it would hold without the lean form: `node scripts/install.js` from a
 * clone (the runtime built from the checkout into a scratch prefix, its
 * commands into a scratch bin folder), the plugin's first start (the same
 * build, through `plugin/launch.js --install`), the registry's lean form
 * (`npm install --prefix … --omit=optional --ignore-scripts llm-wiki-memory`)
 * and Pi's (`npm_config_omit=optional npm_config_ignore_scripts=true pi
 * install npm:llm-wiki-memory`, which runs `npm install SPEC --prefix ROOT
 * --legacy-peer-deps`), both with the packed checkout standing in for the
 * registry's package; and, for reference, `npm install -g` with the lean
 * flags, which npm ignores for global installs (npm/cli#8284): the README
 * does not document it. npm needs the registry for the dependencies.
 *
 * Writes bytes per form and its largest packages to
 * benchmarks/install-size.json. Bytes are apparent file sizes under the
 * install's `node_modules` (what `du --apparent-size` counts). Usage:
 * benchmark-install-size.ts [--out benchmarks/install-size.json]
 */
import { spawnSync } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { installPackedPackage, LEAN_FLAGS, treeBytes } from "../test/helpers/installed-package.ts";

const root = join(import.meta.dirname, "..");
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt === -1 ? join(root, "benchmarks", "install-size.json") : String(args[outAt + 1]);
const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

/** Bytes per top-level package (scoped packages one by one), largest first. */
function perPackage(modules: string): Array<{ name: string; bytes: number }> {
  const sizes: Array<{ name: string; bytes: number }> = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const names = entry.name.startsWith("@")
      ? readdirSync(join(modules, entry.name)).map((n) => `${entry.name}/${n}`)
      : [entry.name];
    for (const name of names) sizes.push({ name, bytes: treeBytes(join(modules, name)) });
  }
  return sizes.sort((a, b) => b.bytes - a.bytes);
}

interface Form {
  command: string;
  documented: boolean;
  modules: string;
  /** Where the dependencies lie, when not at the top of `modules` (a global install nests them). */
  dependencies?: string;
  seconds: number;
}

function describeForm(form: Form) {
  const packages = perPackage(form.dependencies ?? form.modules);
  const bytes = treeBytes(form.modules);
  return {
    command: form.command,
    documented: form.documented,
    mb: mb(bytes),
    bytes,
    packages: packages.length,
    installSeconds: form.seconds,
    llamaBinariesMb: mb(
      packages
        .filter((p) => p.name.startsWith("@node-llama-cpp/"))
        .reduce((n, p) => n + p.bytes, 0),
    ),
    largest: packages.slice(0, 12).map(({ name, bytes: b }) => ({ name, mb: mb(b) })),
  };
}

function scratch(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Runs `command args` in `cwd` with `env` added; throws with its output's end when it fails. */
function timedRun(command: string, argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const start = performance.now();
  const run = spawnSync(command, argv, {
    cwd,
    encoding: "utf8",
    timeout: 1_800_000,
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) {
    throw new Error(
      `${command} ${argv.join(" ")} exited ${run.status}:\n${`${run.stdout}${run.stderr}`.slice(-2000)}`,
    );
  }
  return Math.round((performance.now() - start) / 100) / 10;
}

const load = loadavg();
const folders: string[] = [];
const forms: Record<string, ReturnType<typeof describeForm>> = {};
const version = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
).version;
// The registry's lean form, with the packed checkout standing in (it packs the tarball the others reuse).
const registry = await installPackedPackage({ flags: LEAN_FLAGS });
try {
  const tarball = join(registry.work, registry.tarball);
  forms.registryLean = describeForm({
    command:
      "npm install --prefix ~/.local/share/llm-wiki/npm --omit=optional --ignore-scripts llm-wiki-memory",
    documented: true,
    modules: registry.modules,
    seconds: registry.seconds.install,
  });

  const clone = scratch("llm-wiki-size-clone-");
  folders.push(clone);
  const cloneSeconds = timedRun(
    process.execPath,
    [
      join(root, "scripts", "install.js"),
      "--prefix",
      join(clone, "share"),
      "--bin",
      join(clone, "bin"),
    ],
    root,
  );
  forms.clone = describeForm({
    command: "node scripts/install.js",
    documented: true,
    modules: join(clone, "share", `v${version}`, "node_modules"),
    seconds: cloneSeconds,
  });

  const plugin = scratch("llm-wiki-size-plugin-");
  folders.push(plugin);
  const pluginSeconds = timedRun(
    process.execPath,
    [join(root, "plugin", "launch.js"), "--install"],
    root,
    {
      LLM_WIKI_PLUGIN_RUNTIME: plugin,
      LLM_WIKI_PLUGIN_PACKAGE: "",
    },
  );
  forms.plugin = describeForm({
    command: "/plugin install llm-wiki@llm-wiki (its first start: plugin/launch.js --install)",
    documented: true,
    modules: join(plugin, `v${version}`, "node_modules"),
    seconds: pluginSeconds,
  });

  const pi = scratch("llm-wiki-size-pi-");
  folders.push(pi);
  writeFileSync(join(pi, "package.json"), '{ "name": "pi-extensions", "private": true }\n');
  const piSeconds = timedRun(
    "npm",
    ["install", tarball, "--prefix", pi, "--legacy-peer-deps", "--no-audit", "--no-fund"],
    pi,
    { npm_config_omit: "optional", npm_config_ignore_scripts: "true" },
  );
  forms.pi = describeForm({
    command:
      "npm_config_omit=optional npm_config_ignore_scripts=true pi install npm:llm-wiki-memory",
    documented: true,
    modules: join(pi, "node_modules"),
    seconds: piSeconds,
  });

  const global = scratch("llm-wiki-size-global-");
  folders.push(global);
  const globalSeconds = timedRun(
    "npm",
    ["install", "-g", "--prefix", global, "--no-audit", "--no-fund", ...LEAN_FLAGS, tarball],
    global,
  );
  forms.globalFlagsIgnored = describeForm({
    command: `npm install -g llm-wiki-memory ${LEAN_FLAGS.join(" ")} (not documented: npm ignores the flags for -g, npm/cli#8284)`,
    documented: false,
    modules: join(global, "lib", "node_modules"),
    dependencies: join(global, "lib", "node_modules", "llm-wiki-memory", "node_modules"),
    seconds: globalSeconds,
  });

  const report = {
    benchmark: "install-size",
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpus().length,
      model: cpus()[0]?.model ?? "unknown",
      loadAverageAtStart: load.map((l) => Math.round(l * 100) / 100),
      loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100),
    },
    tarball: registry.tarball,
    forms,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  for (const [name, form] of Object.entries(forms)) {
    process.stdout.write(
      `${name}: ${form.mb} MB (${form.llamaBinariesMb} MB llama.cpp builds), ${form.installSeconds} s — ${form.command}\n`,
    );
  }
  process.stdout.write(`wrote ${out}\n`);
} finally {
  registry.remove();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
