/**
 * Whether QMD's native model runtime is installed: node-llama-cpp's prebuilt
 * llama.cpp binary for this platform (an optional `@node-llama-cpp/*`
 * package, or a build the user made) and sqlite-vec's loadable extension (an
 * optional `sqlite-vec-<os>-<arch>` package). A lean install
 * (`npm install --omit=optional --ignore-scripts`) has neither; lexical
 * recall needs neither. Without this check a model path would reach
 * node-llama-cpp, which then tries to compile llama.cpp from source or
 * fetch it, and the index would be marked failed.
 *
 * Found from the file system only, as Node would resolve the packages from
 * where QMD's own dependencies live; nothing is imported or loaded.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What the model paths need installed, and what to run when it is not. */
export interface ModelRuntimeStatus {
  available: boolean;
  /** Packages to install, as `name@version`, when unavailable. */
  missing: string[];
  /** Why it is unavailable. */
  reason?: string;
  /** The command that installs what is missing. */
  repair?: string;
}

/** Where to look, for tests; by default this process's QMD and platform. */
export interface ModelRuntimeProbe {
  /** A file inside the installed `@tobilu/qmd` package (its entry). */
  qmdEntry?: string;
  platform?: NodeJS.Platform;
  arch?: string;
}

/**
 * node-llama-cpp 3.x's prebuilt packages per platform (its
 * `getPrebuiltBinariesPackageDirectoryForBuildOptions`), the CPU one first:
 * any one of them runs the models; the first is the one to install.
 */
export function llamaBinaryPackages(platform: string, arch: string): string[] {
  const key = `${platform}-${arch}`;
  const names: Record<string, string[]> = {
    "linux-x64": ["linux-x64", "linux-x64-vulkan", "linux-x64-cuda"],
    "linux-arm64": ["linux-arm64"],
    "linux-arm": ["linux-armv7l"],
    "linux-riscv64": ["linux-riscv64"],
    "darwin-arm64": ["mac-arm64-metal"],
    "darwin-x64": ["mac-x64"],
    "win32-x64": ["win-x64", "win-x64-vulkan", "win-x64-cuda"],
    "win32-arm64": ["win-arm64"],
  };
  return (names[key] ?? []).map((n) => `@node-llama-cpp/${n}`);
}

/** sqlite-vec 0.1's extension package for a platform (its `platformPackageName`). */
export function sqliteVecPackage(platform: string, arch: string): string {
  return `sqlite-vec-${platform === "win32" ? "windows" : platform}-${arch}`;
}

/**
 * The folder of package `name` as an ESM `import` resolves it from inside
 * `fromDir` (each ancestor's `node_modules`; unlike `require`, never
 * `NODE_PATH` or the global folders), or undefined.
 */
function packageDir(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") {
      const at = join(dir, "node_modules", name);
      if (existsSync(join(at, "package.json"))) return at;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function versionOf(dir: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: string };
    return typeof pkg.version === "string" ? pkg.version : "";
  } catch {
    return "";
  }
}

/** A llama.cpp build the user made with node-llama-cpp's own tooling counts as installed. */
function hasLocalBuild(llamaDir: string): boolean {
  try {
    return readdirSync(join(llamaDir, "llama", "localBuilds")).length > 0;
  } catch {
    return false;
  }
}

function qmdEntryFile(): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve("@tobilu/qmd"));
  } catch {
    return undefined;
  }
}

/** node-llama-cpp as QMD resolves it: which of its packages are installed beside it. */
export interface InstalledLlama {
  /** A llama.cpp build the user made with node-llama-cpp's own tooling. */
  localBuild: boolean;
  /** Whether package `name` (a prebuilt binary) resolves from node-llama-cpp. */
  has(name: string): boolean;
}

/** node-llama-cpp as QMD would load it, or undefined when it is not installed. */
export function installedLlama(
  probe: Pick<ModelRuntimeProbe, "qmdEntry"> = {},
): InstalledLlama | undefined {
  const entry = probe.qmdEntry ?? qmdEntryFile();
  const found = entry ? packageDir(dirname(entry), "node-llama-cpp") : undefined;
  if (!found) return undefined;
  // node-llama-cpp imports its builds from where it really is (pnpm links it).
  const llamaDir = realpathSync(found);
  return {
    localBuild: hasLocalBuild(llamaDir),
    has: (name) => packageDir(llamaDir, name) !== undefined,
  };
}

const pinned = (name: string, version: string) => (version ? `${name}@${version}` : name);

/** Checks the runtime now (a few `stat`s). */
export function probeModelRuntime(probe: ModelRuntimeProbe = {}): ModelRuntimeStatus {
  const platform = probe.platform ?? process.platform;
  const arch = probe.arch ?? process.arch;
  const entry = probe.qmdEntry ?? qmdEntryFile();
  if (!entry) {
    return {
      available: false,
      missing: ["@tobilu/qmd"],
      reason: "the search engine package @tobilu/qmd is not installed",
      repair: "Reinstall llm-wiki-memory",
    };
  }
  const qmdDir = dirname(entry);
  const missing: string[] = [];
  const llamaDir = packageDir(qmdDir, "node-llama-cpp");
  const binaries = llamaBinaryPackages(platform, arch);
  if (!llamaDir) missing.push("node-llama-cpp");
  else if (!hasLocalBuild(llamaDir) && !binaries.some((b) => packageDir(llamaDir, b))) {
    const first = binaries[0];
    if (!first) {
      return {
        available: false,
        missing: [],
        reason: `node-llama-cpp ships no prebuilt binary for ${platform}-${arch}`,
        repair:
          "Build llama.cpp with `npx --no node-llama-cpp source build`, or use lexical recall",
      };
    }
    missing.push(pinned(first, versionOf(llamaDir)));
  }
  const vecDir = packageDir(qmdDir, "sqlite-vec");
  if (!vecDir) missing.push("sqlite-vec");
  else {
    const vec = sqliteVecPackage(platform, arch);
    if (!packageDir(vecDir, vec)) missing.push(pinned(vec, versionOf(vecDir)));
  }
  if (missing.length === 0) return { available: true, missing };
  return {
    available: false,
    missing,
    reason: `the model runtime is not installed (missing ${missing.join(", ")}; a lean install leaves it out)`,
    repair:
      `Where llm-wiki-memory is installed run: npm install --omit=optional --ignore-scripts ${missing.join(" ")}` +
      " (add -g for a global install), or reinstall llm-wiki-memory without --omit=optional",
  };
}

let installed: ModelRuntimeStatus | undefined;

/**
 * This process's runtime status. Once found it is remembered (packages are
 * not removed under a running process); while missing it is checked again on
 * every call, so installing it takes effect without a restart.
 */
export function modelRuntime(): ModelRuntimeStatus {
  if (installed) return installed;
  const status = probeModelRuntime();
  if (status.available) installed = status;
  return status;
}
