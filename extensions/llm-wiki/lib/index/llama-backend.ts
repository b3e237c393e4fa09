/**
 * Which llama.cpp build QMD loads. Left to itself (`QMD_LLAMA_GPU` unset)
 * QMD asks node-llama-cpp for its best build ("auto") and, when that
 * settles on the CPU, loads and tests every installed GPU build once more.
 * npm installs node-llama-cpp's CUDA and Vulkan builds with it on Linux and
 * Windows x64 (optional dependencies), so on a machine without the NVIDIA
 * driver or a Vulkan loader every process that ran a model paid for trying
 * builds that cannot start: a `reindex --vectors` or a hybrid recall took
 * seconds longer (docs/configuration.md has the figures).
 *
 * A GPU build links its driver's library (CUDA: libcuda.so.1 / nvcuda.dll;
 * Vulkan: libvulkan.so.1 / vulkan-1.dll). When the CPU build is installed
 * and no installed GPU build has its library here, no probe can succeed:
 * QMD is then told to load the CPU build straight away, the build "auto"
 * ends on anyway, so answers are the same. A Metal build, a build made on
 * this machine, or a found driver leave QMD's selection alone, and so does
 * any `QMD_LLAMA_GPU` / `QMD_FORCE_CPU` the user set.
 */
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { installedLlama } from "./model-runtime.ts";

/** QMD's variables: a user's value wins; "false" loads the CPU build without probing. */
export const GPU_ENV_VARS = ["QMD_LLAMA_GPU", "QMD_FORCE_CPU"] as const;

/** One GPU build node-llama-cpp ships for a platform, and the library it cannot start without. */
export interface GpuBuild {
  kind: "CUDA" | "Vulkan" | "Metal";
  package: string;
  /** The driver's library the build links; none for Metal (part of macOS). */
  library?: string;
}

/** How QMD's llama.cpp build is chosen in this process, and why. */
export interface LlamaBackendChoice {
  /** "cpu": the CPU build, no GPU probe; "auto": QMD's own selection; "set": the user's variable. */
  choice: "cpu" | "auto" | "set";
  reason: string;
}

/** What the choice depends on; `llamaBackend()` reads them from this machine. */
export interface LlamaBackendFacts {
  env: Readonly<Record<string, string | undefined>>;
  platform: string;
  arch: string;
  /** node-llama-cpp's installed builds, undefined when it is not installed. */
  llama: { localBuild: boolean; has(name: string): boolean } | undefined;
  /** Whether the dynamic linker would find library `name`. */
  hasLibrary(name: string): boolean;
}

/** node-llama-cpp 3.x's GPU builds per platform (as its prebuilt-binary lookup names them). */
export function gpuBuilds(platform: string, arch: string): GpuBuild[] {
  const pkg = (name: string) => `@node-llama-cpp/${name}`;
  if (platform === "linux" && arch === "x64") {
    return [
      { kind: "CUDA", package: pkg("linux-x64-cuda"), library: "libcuda.so.1" },
      { kind: "Vulkan", package: pkg("linux-x64-vulkan"), library: "libvulkan.so.1" },
    ];
  }
  if (platform === "win32" && arch === "x64") {
    return [
      { kind: "CUDA", package: pkg("win-x64-cuda"), library: "nvcuda.dll" },
      { kind: "Vulkan", package: pkg("win-x64-vulkan"), library: "vulkan-1.dll" },
    ];
  }
  if (platform === "darwin" && arch === "arm64") {
    return [{ kind: "Metal", package: pkg("mac-arm64-metal") }];
  }
  return [];
}

/** node-llama-cpp's CPU-only build for a platform, if it ships one. */
function cpuBuild(platform: string, arch: string): string | undefined {
  const names: Record<string, string> = {
    "linux-x64": "linux-x64",
    "linux-arm64": "linux-arm64",
    "linux-arm": "linux-armv7l",
    "linux-riscv64": "linux-riscv64",
    "darwin-x64": "mac-x64",
    "win32-x64": "win-x64",
    "win32-arm64": "win-arm64",
  };
  const name = names[`${platform}-${arch}`];
  return name && `@node-llama-cpp/${name}`;
}

/** Decides from `facts` alone (see the module comment). */
export function chooseLlamaBackend(facts: LlamaBackendFacts): LlamaBackendChoice {
  for (const name of GPU_ENV_VARS) {
    const value = facts.env[name]?.trim();
    // Printed by `llm-wiki models`: no control byte reaches the terminal.
    if (value)
      return { choice: "set", reason: `${name}=${value.replace(/[^\x20-\x7e]/g, "?")} is set` };
  }
  const { llama } = facts;
  if (!llama) return { choice: "auto", reason: "node-llama-cpp is not installed" };
  if (llama.localBuild) {
    return { choice: "auto", reason: "a llama.cpp build made on this machine is installed" };
  }
  const installed = gpuBuilds(facts.platform, facts.arch).filter((b) => llama.has(b.package));
  const usable = installed.find((b) => !b.library || facts.hasLibrary(b.library));
  if (usable) {
    const found = usable.library ? ` and ${usable.library} was found` : "";
    return { choice: "auto", reason: `the ${usable.kind} build is installed${found}` };
  }
  const cpu = cpuBuild(facts.platform, facts.arch);
  if (!cpu || !llama.has(cpu)) {
    return { choice: "auto", reason: "no CPU-only llama.cpp build is installed" };
  }
  const why =
    installed.length === 0
      ? "no GPU build is installed"
      : installed
          .map((b) => `the ${b.kind} build is installed but ${b.library} is not found`)
          .join("; ");
  return { choice: "cpu", reason: `${why}; set QMD_LLAMA_GPU to choose` };
}

/** What to set while QMD loads its runtime: `QMD_LLAMA_GPU=false` for "cpu", else nothing. */
export function backendEnv(choice: LlamaBackendChoice): Record<string, string> {
  return choice.choice === "cpu" ? { QMD_LLAMA_GPU: "false" } : {};
}

/**
 * `backendEnv` of `choose()`, decided when first asked (when a model first
 * runs: a process that never runs one pays nothing) and then kept.
 */
export function lazyBackendEnv(
  choose: () => LlamaBackendChoice = () => llamaBackend(),
): () => Record<string, string> {
  let choice: LlamaBackendChoice | undefined;
  return () => {
    choice ??= choose();
    return backendEnv(choice);
  };
}

/** Where the dynamic linker looks by default, besides its cache. */
const LINUX_LIBRARY_DIRS = [
  "/lib",
  "/lib64",
  "/usr/lib",
  "/usr/lib64",
  "/usr/local/lib",
  "/lib/x86_64-linux-gnu",
  "/usr/lib/x86_64-linux-gnu",
  "/lib/aarch64-linux-gnu",
  "/usr/lib/aarch64-linux-gnu",
  // WSL puts the Windows host's GPU driver libraries here.
  "/usr/lib/wsl/lib",
];

/** Whether `haystack` holds `name` as a whole file name (after a NUL or a slash, before a NUL). */
function namedIn(haystack: Buffer, name: string): boolean {
  const needle = Buffer.from(`${name}\0`);
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = at === 0 ? 0 : haystack[at - 1];
    if (before === 0 || before === 0x2f) return true;
  }
  return false;
}

/**
 * A finder for shared libraries as the platform's loader would find them:
 * on Linux `LD_LIBRARY_PATH`, the loader's cache (`/etc/ld.so.cache`) and
 * its default folders; on Windows the system folder and `PATH`. Reads a
 * few files; loads nothing.
 */
export function libraryFinder(
  platform: string,
  env: Readonly<Record<string, string | undefined>>,
  ldCache = "/etc/ld.so.cache",
): (name: string) => boolean {
  const inDirs = (dirs: string[], name: string) => dirs.some((d) => d && existsSync(join(d, name)));
  if (platform === "win32") {
    const root = env.SystemRoot ?? env.windir ?? "C:\\Windows";
    const dirs = [join(root, "System32"), ...(env.PATH ?? env.Path ?? "").split(delimiter)];
    return (name) => inDirs(dirs, name);
  }
  const dirs = [...(env.LD_LIBRARY_PATH ?? "").split(":"), ...LINUX_LIBRARY_DIRS];
  let cache: Buffer | undefined;
  return (name) => {
    if (inDirs(dirs, name)) return true;
    try {
      cache ??= readFileSync(ldCache);
    } catch {
      return false;
    }
    return namedIn(cache, name);
  };
}

/** Where `llamaBackend` looks, for tests; by default this process's. */
export interface LlamaBackendProbe {
  env?: Readonly<Record<string, string | undefined>>;
  platform?: string;
  arch?: string;
  /** A file inside the installed `@tobilu/qmd` package (its entry). */
  qmdEntry?: string;
  hasLibrary?: (name: string) => boolean;
}

/** This process's choice, from its environment, its installed builds and its libraries. */
export function llamaBackend(probe: LlamaBackendProbe = {}): LlamaBackendChoice {
  const env = probe.env ?? process.env;
  const platform = probe.platform ?? process.platform;
  return chooseLlamaBackend({
    env,
    platform,
    arch: probe.arch ?? process.arch,
    llama: installedLlama(probe.qmdEntry ? { qmdEntry: probe.qmdEntry } : {}),
    hasLibrary: probe.hasLibrary ?? libraryFinder(platform, env),
  });
}
