/**
 * Which llama.cpp build QMD loads. QMD left on "auto" loads and tests every
 * installed GPU build when node-llama-cpp settles on the CPU; npm installs
 * the CUDA and Vulkan builds on Linux and Windows x64 whether or not the
 * machine can run them. llm-wiki has QMD load the CPU build at once when
 * no installed GPU build can start (its driver's library is not on the
 * machine), leaves "auto" when one could, and never overrides a user's
 * QMD_LLAMA_GPU / QMD_FORCE_CPU. Installed builds are real package folders
 * in a temporary npm-style tree; libraries are found as the loader finds
 * them (LD_LIBRARY_PATH, the loader's cache), or injected.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  backendEnv,
  GPU_ENV_VARS,
  gpuBuilds,
  type LlamaBackendProbe,
  libraryFinder,
  llamaBackend,
} from "../extensions/llm-wiki/lib/index/llama-backend.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterAll(() => removeTempDirs());

/** An npm-style tree with QMD, node-llama-cpp and `builds` installed; returns QMD's entry file. */
function installed(builds: string[]): { modules: string; entry: string } {
  const modules = join(makeTempDir("llm-wiki-backend-"), "node_modules");
  for (const name of [
    "@tobilu/qmd",
    "node-llama-cpp",
    ...builds.map((b) => `@node-llama-cpp/${b}`),
  ]) {
    mkdirSync(join(modules, name), { recursive: true });
    writeFileSync(join(modules, name, "package.json"), JSON.stringify({ name, version: "1.0.0" }));
  }
  return { modules, entry: join(modules, "@tobilu", "qmd", "dist", "index.js") };
}

const NO_LIBRARY = () => false;
/** What npm installs on Linux x64: the CPU, CUDA (with its extension) and Vulkan builds. */
const NPM_LINUX_X64 = ["linux-x64", "linux-x64-cuda", "linux-x64-cuda-ext", "linux-x64-vulkan"];
const linux = (entry: string, more: LlamaBackendProbe = {}): LlamaBackendProbe => ({
  env: {},
  platform: "linux",
  arch: "x64",
  qmdEntry: entry,
  hasLibrary: NO_LIBRARY,
  ...more,
});

describe("the llama.cpp build a model process loads", () => {
  it("no GPU build installed: the CPU build, without probing", () => {
    const { entry } = installed(["linux-x64"]);
    const choice = llamaBackend(linux(entry));
    expect(choice).toMatchObject({ choice: "cpu" });
    expect(choice.reason).toContain("no GPU build is installed");
    expect(backendEnv(choice)).toEqual({ QMD_LLAMA_GPU: "false" });
  });

  it("npm's CUDA and Vulkan builds installed but neither driver library here: the CPU build, naming both", () => {
    const { entry } = installed(NPM_LINUX_X64);
    const choice = llamaBackend(linux(entry));
    expect(choice.choice).toBe("cpu");
    expect(choice.reason).toContain("the CUDA build is installed but libcuda.so.1 is not found");
    expect(choice.reason).toContain(
      "the Vulkan build is installed but libvulkan.so.1 is not found",
    );
  });

  it.each([
    ["CUDA", "libcuda.so.1"],
    ["Vulkan", "libvulkan.so.1"],
  ])("a %s build whose library %s is found: QMD's own selection", (kind, library) => {
    const { entry } = installed(NPM_LINUX_X64);
    const choice = llamaBackend(linux(entry, { hasLibrary: (name) => name === library }));
    expect(choice).toEqual({
      choice: "auto",
      reason: `the ${kind} build is installed and ${library} was found`,
    });
    expect(backendEnv(choice)).toEqual({});
  });

  it("a driver library without its GPU build installed changes nothing: nothing to probe", () => {
    const { entry } = installed(["linux-x64", "linux-x64-vulkan"]);
    const choice = llamaBackend(linux(entry, { hasLibrary: (name) => name === "libcuda.so.1" }));
    expect(choice.choice).toBe("cpu");
  });

  it("Apple silicon's Metal build needs no library: QMD's own selection", () => {
    const { entry } = installed(["mac-arm64-metal"]);
    const choice = llamaBackend({ ...linux(entry), platform: "darwin", arch: "arm64" });
    expect(choice).toEqual({ choice: "auto", reason: "the Metal build is installed" });
  });

  it("Windows x64 looks for nvcuda.dll and vulkan-1.dll", () => {
    const { entry } = installed(["win-x64", "win-x64-cuda", "win-x64-vulkan"]);
    const probe = { ...linux(entry), platform: "win32", arch: "x64" };
    expect(llamaBackend(probe).choice).toBe("cpu");
    const found = llamaBackend({ ...probe, hasLibrary: (n) => n === "nvcuda.dll" });
    expect(found.choice).toBe("auto");
    expect(gpuBuilds("win32", "x64").map((b) => b.library)).toEqual(["nvcuda.dll", "vulkan-1.dll"]);
  });

  it("a llama.cpp built on this machine may use its GPU: QMD's own selection", () => {
    const { modules, entry } = installed([]);
    mkdirSync(join(modules, "node-llama-cpp", "llama", "localBuilds", "linux-x64-cuda"), {
      recursive: true,
    });
    expect(llamaBackend(linux(entry)).choice).toBe("auto");
  });

  it("without a CPU-only build (only GPU builds, or none) QMD chooses: the CPU build is not there to load", () => {
    expect(llamaBackend(linux(installed(["linux-x64-vulkan"]).entry)).choice).toBe("auto");
    expect(llamaBackend(linux(installed([]).entry)).choice).toBe("auto");
  });

  it.each(GPU_ENV_VARS.flatMap((name) => ["false", "cuda", "1", "0"].map((v) => [name, v])))(
    "the user's %s=%s wins, whatever is installed, and llm-wiki sets nothing",
    (name, value) => {
      for (const builds of [["linux-x64"], NPM_LINUX_X64]) {
        const { entry } = installed(builds);
        for (const hasLibrary of [NO_LIBRARY, () => true]) {
          const choice = llamaBackend(linux(entry, { env: { [name]: value }, hasLibrary }));
          expect(choice).toEqual({ choice: "set", reason: `${name}=${value} is set` });
          expect(backendEnv(choice)).toEqual({});
        }
      }
    },
  );

  it("a user's value is shown without its control bytes", () => {
    const { entry } = installed(["linux-x64"]);
    const choice = llamaBackend(linux(entry, { env: { QMD_LLAMA_GPU: "cu\u001b[2Jda\u0007" } }));
    expect(choice).toEqual({ choice: "set", reason: "QMD_LLAMA_GPU=cu?[2Jda? is set" });
  });

  it("an empty variable is no setting (QMD reads it as auto)", () => {
    const { entry } = installed(["linux-x64"]);
    const env = { QMD_LLAMA_GPU: " ", QMD_FORCE_CPU: "" };
    expect(llamaBackend(linux(entry, { env })).choice).toBe("cpu");
  });
});

describe("finding a driver library as the Linux loader would", () => {
  const fresh = () => `libllmwiki${randomBytes(6).toString("hex")}.so.1`;

  it("in a folder of LD_LIBRARY_PATH", () => {
    const dir = makeTempDir("llm-wiki-libs-");
    const name = fresh();
    const find = libraryFinder("linux", { LD_LIBRARY_PATH: `/nonexistent:${dir}` }, "/nonexistent");
    expect(find(name)).toBe(false);
    writeFileSync(join(dir, name), "");
    expect(find(name)).toBe(true);
  });

  it("listed in the loader's cache by its whole file name", () => {
    const name = fresh();
    const cache = join(makeTempDir("llm-wiki-ldcache-"), "ld.so.cache");
    // The cache's string table: NUL-terminated names and paths.
    writeFileSync(cache, Buffer.from(`glibc-ld.so.cache1.1\0x${name}\0/opt/gpu/lib/${name}\0`));
    const find = libraryFinder("linux", {}, cache);
    expect(find(name)).toBe(true);
    expect(find(name.replace(/^lib/, ""))).toBe(false);
    expect(find(fresh())).toBe(false);
  });

  it("the C library this process runs on is found, a made-up one is not", () => {
    if (process.platform !== "linux") return;
    const find = libraryFinder("linux", process.env);
    // glibc's or musl's C library: one of them is loaded into this very process.
    expect(find("libc.so.6") || find("libc.musl-x86_64.so.1") || find("ld-musl-x86_64.so.1")).toBe(
      true,
    );
    expect(find(fresh())).toBe(false);
  });
});
