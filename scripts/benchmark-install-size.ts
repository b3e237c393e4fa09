/**
 * What an install of the packed package holds, in its two documented forms:
 * the default `npm install` and the lean one (`--omit=optional
 * --ignore-scripts`, no model runtime). Packs the checkout once, installs
 * the tarball into two empty projects with npm (the registry must be
 * reachable), and writes bytes per form and per package, largest first, to
 * benchmarks/install-size.json. Bytes are apparent file sizes under
 * `node_modules` (what `du --apparent-size` counts). Usage:
 * benchmark-install-size.ts [--out benchmarks/install-size.json]
 */
import { readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import {
  type InstalledPackage,
  installPackedPackage,
  LEAN_FLAGS,
  treeBytes,
} from "../test/helpers/installed-package.ts";

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

function describeForm(form: InstalledPackage, command: string) {
  const packages = perPackage(form.modules);
  return {
    command,
    mb: mb(form.bytes),
    bytes: form.bytes,
    packages: packages.length,
    installSeconds: form.seconds.install,
    llamaBinariesMb: mb(
      packages
        .filter((p) => p.name.startsWith("@node-llama-cpp/"))
        .reduce((n, p) => n + p.bytes, 0),
    ),
    largest: packages.slice(0, 15).map(({ name, bytes }) => ({ name, mb: mb(bytes) })),
  };
}

const load = loadavg();
const full = installPackedPackage();
let lean: InstalledPackage | undefined;
try {
  lean = installPackedPackage({ flags: LEAN_FLAGS, from: full });
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
    tarball: full.tarball,
    default: describeForm(full, "npm install -g llm-wiki-memory"),
    lean: describeForm(lean, `npm install -g llm-wiki-memory ${LEAN_FLAGS.join(" ")}`),
    leanOverDefault: Math.round((lean.bytes / full.bytes) * 1000) / 1000,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(
    `default ${report.default.mb} MB (${report.default.llamaBinariesMb} MB llama.cpp binaries), ` +
      `lean ${report.lean.mb} MB (${report.leanOverDefault} of it); wrote ${out}\n`,
  );
} finally {
  lean?.remove();
  full.remove();
}
