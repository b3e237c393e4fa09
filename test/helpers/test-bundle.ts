/**
 * The bundle the specs run, rebuilt only when what it is built from changed.
 * Its key is a hash of the content of every project file the last build read
 * (esbuild's own list, `build-inputs.json`), the build scripts, the manifest
 * and the lock file: a change to the import graph changes a file already in
 * the list, so a bundle with the same key is the bundle a fresh build makes.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BUILD_INPUTS_FILE, type BuildInputs } from "../../extensions/llm-wiki/lib/stale-build.ts";
import { buildBins } from "../../scripts/build.ts";

const REPO = join(import.meta.dirname, "..", "..");
const KEY_FILE = "bundle-key.txt";

function buildScripts(): string[] {
  return readdirSync(join(REPO, "scripts"))
    .filter((name) => name.startsWith("build") && name.endsWith(".ts"))
    .map((name) => `scripts/${name}`);
}

/** The key of the bundle in `out`, or undefined when it has no build record. */
function keyOf(out: string): string | undefined {
  let record: BuildInputs;
  try {
    record = JSON.parse(readFileSync(join(out, BUILD_INPUTS_FILE), "utf8")) as BuildInputs;
  } catch {
    return undefined;
  }
  const files = [...record.inputs, ...buildScripts(), "package.json", "pnpm-lock.yaml"].sort();
  const hash = createHash("sha256").update(process.version);
  for (const file of files) {
    hash.update(`\0${file}\0`);
    const path = join(REPO, file);
    hash.update(existsSync(path) ? readFileSync(path) : "missing");
  }
  return hash.digest("hex");
}

function recordedKey(out: string): string | undefined {
  try {
    return readFileSync(join(dirname(out), KEY_FILE), "utf8").trim();
  } catch {
    return undefined;
  }
}

/** True when the bundle in `out` was built from the sources as they are now. */
export function bundleIsCurrent(out: string): boolean {
  const recorded = recordedKey(out);
  return recorded !== undefined && recorded === keyOf(out);
}

/**
 * Builds the bins into `out` unless the bundle there is current; returns
 * whether it was reused. The key lives beside `out`, since a build empties it.
 */
export async function ensureTestBundle(out: string): Promise<boolean> {
  if (bundleIsCurrent(out)) return true;
  await buildBins(out);
  const key = keyOf(out);
  if (key) writeFileSync(join(dirname(out), KEY_FILE), `${key}\n`);
  return false;
}

/**
 * Copies the current bundle in `from` to `to`, or builds `to` afresh when
 * `from` is missing or stale (a spec run without global setup).
 */
export async function copyOrBuildBundle(from: string, to: string): Promise<void> {
  if (bundleIsCurrent(from)) cpSync(from, to, { recursive: true });
  else await buildBins(to);
}
