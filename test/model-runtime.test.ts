/**
 * The model runtime check: QMD's model paths need node-llama-cpp's prebuilt
 * binary for the platform and sqlite-vec's extension package, both optional
 * dependencies a lean install leaves out. The check finds them as Node
 * resolves packages (on fake installed trees here, in npm's flat layout and
 * pnpm's nested one) and, when one is missing, says which `name@version` to
 * install; every model role is then unavailable for that reason.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  llamaBinaryPackages,
  probeModelRuntime,
  sqliteVecPackage,
} from "../extensions/llm-wiki/lib/index/model-runtime.ts";
import { modelAvailability, resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterAll(() => removeTempDirs());

function pkg(dir: string, name: string, version: string): string {
  const at = join(dir, name);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, "package.json"), JSON.stringify({ name, version }));
  return at;
}

/** An npm-style flat tree: QMD and its dependencies side by side; returns QMD's entry file. */
function flatTree(extra: string[]): { modules: string; entry: string } {
  const modules = join(makeTempDir("llm-wiki-runtime-"), "node_modules");
  const qmd = pkg(modules, "@tobilu/qmd", "2.8.3");
  pkg(modules, "node-llama-cpp", "3.20.0");
  pkg(modules, "sqlite-vec", "0.1.9");
  for (const name of extra) pkg(modules, name, "1.0.0");
  mkdirSync(join(qmd, "dist"));
  return { modules, entry: join(qmd, "dist", "index.js") };
}

describe("probeModelRuntime", () => {
  it("a lean tree misses the platform's CPU binary and sqlite-vec extension, pinned to the installed versions", () => {
    const { entry } = flatTree([]);
    const status = probeModelRuntime({ qmdEntry: entry, platform: "linux", arch: "x64" });
    expect(status.available).toBe(false);
    expect(status.missing).toEqual([
      "@node-llama-cpp/linux-x64@3.20.0",
      "sqlite-vec-linux-x64@0.1.9",
    ]);
    expect(status.reason).toContain("model runtime is not installed");
    expect(status.repair).toContain(
      "npm install --omit=optional --ignore-scripts @node-llama-cpp/linux-x64@3.20.0 sqlite-vec-linux-x64@0.1.9",
    );
  });

  it("any of the platform's binaries counts: a Vulkan build alone runs the models", () => {
    const { entry } = flatTree(["@node-llama-cpp/linux-x64-vulkan", "sqlite-vec-linux-x64"]);
    expect(probeModelRuntime({ qmdEntry: entry, platform: "linux", arch: "x64" })).toEqual({
      available: true,
      missing: [],
    });
  });

  it("another platform's binary does not count", () => {
    const { entry } = flatTree(["@node-llama-cpp/mac-arm64-metal", "sqlite-vec-darwin-arm64"]);
    const status = probeModelRuntime({ qmdEntry: entry, platform: "linux", arch: "arm64" });
    expect(status.missing).toEqual([
      "@node-llama-cpp/linux-arm64@3.20.0",
      "sqlite-vec-linux-arm64@0.1.9",
    ]);
  });

  it("a llama.cpp the user built from source counts as the binary", () => {
    const { modules, entry } = flatTree(["sqlite-vec-win32-x64", "sqlite-vec-windows-x64"]);
    mkdirSync(join(modules, "node-llama-cpp", "llama", "localBuilds", "win-x64"), {
      recursive: true,
    });
    expect(probeModelRuntime({ qmdEntry: entry, platform: "win32", arch: "x64" }).available).toBe(
      true,
    );
  });

  it("finds packages in pnpm's nested layout, and installed at a parent folder (a global prefix)", () => {
    const root = makeTempDir("llm-wiki-runtime-");
    const store = join(root, "app", "node_modules", ".pnpm");
    const qmd = pkg(join(store, "qmd@2.8.3", "node_modules"), "@tobilu/qmd", "2.8.3");
    pkg(join(store, "qmd@2.8.3", "node_modules"), "sqlite-vec", "0.1.9");
    const llama = join(store, "node-llama-cpp@3.20.0", "node_modules");
    pkg(llama, "node-llama-cpp", "3.20.0");
    // node-llama-cpp is reached from QMD through the parent's node_modules here.
    pkg(join(root, "app", "node_modules"), "node-llama-cpp", "3.20.0");
    const entry = join(qmd, "dist", "index.js");
    const before = probeModelRuntime({ qmdEntry: entry, platform: "linux", arch: "x64" });
    expect(before.missing).toEqual([
      "@node-llama-cpp/linux-x64@3.20.0",
      "sqlite-vec-linux-x64@0.1.9",
    ]);
    // What `npm install -g <binary>` does: a package in a folder above.
    pkg(join(root, "node_modules"), "@node-llama-cpp/linux-x64", "3.20.0");
    pkg(join(root, "node_modules"), "sqlite-vec-linux-x64", "0.1.9");
    expect(probeModelRuntime({ qmdEntry: entry, platform: "linux", arch: "x64" }).available).toBe(
      true,
    );
  });

  it("names the CPU binary first on every platform node-llama-cpp ships for", () => {
    expect(llamaBinaryPackages("linux", "x64")[0]).toBe("@node-llama-cpp/linux-x64");
    expect(llamaBinaryPackages("win32", "x64")[0]).toBe("@node-llama-cpp/win-x64");
    expect(llamaBinaryPackages("darwin", "arm64")).toEqual(["@node-llama-cpp/mac-arm64-metal"]);
    expect(llamaBinaryPackages("aix", "ppc64")).toEqual([]);
    expect(sqliteVecPackage("win32", "x64")).toBe("sqlite-vec-windows-x64");
  });

  it("this checkout has the runtime: the model specs run on it", () => {
    expect(probeModelRuntime()).toEqual({ available: true, missing: [] });
  });
});

describe("modelAvailability without the runtime", () => {
  it("every role is unavailable with the runtime's reason and repair, even with its model file present", () => {
    const models = resolveModels({}, process.env);
    const withFiles = modelAvailability(models);
    expect(withFiles.embed.available).toBe(true);
    const missing = {
      available: false,
      missing: ["@node-llama-cpp/linux-x64@3.20.0"],
      reason: "the model runtime is not installed",
      repair: "npm install @node-llama-cpp/linux-x64@3.20.0",
    };
    const without = modelAvailability(models, () => missing);
    for (const role of ["embed", "rerank", "generate"] as const) {
      expect(without[role]).toEqual({
        role,
        uri: models[role].uri,
        available: false,
        reason: missing.reason,
        repair: missing.repair,
      });
    }
  });
});
