/**
 * Model resolution and offline availability (extensions/llm-wiki/lib/index/models.ts).
 * Real files in temp folders; QMD's and node-llama-cpp's own code are the oracle
 * for the defaults and the cache file names.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  hfCacheFileNames,
  MODEL_ROLES,
  ModelUnavailableError,
  modelAvailability,
  QMD_DEFAULT_MODELS,
  qmdModelCacheDir,
  requireModels,
  resolveModels,
} from "../extensions/llm-wiki/lib/index/models.ts";

const root = mkdtempSync(join(tmpdir(), "llm-wiki-models-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GGUF = Buffer.concat([Buffer.from("GGUF"), Buffer.alloc(60)]);

function file(path: string, content: Buffer | string = GGUF): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

const qmdDist = dirname(
  realpathSync(join(import.meta.dirname, "..", "node_modules", "@tobilu", "qmd", "package.json")),
);

describe("resolveModels", () => {
  it("applies QMD's precedence per role: settings, then QMD_*_MODEL, then QMD's default", () => {
    const resolved = resolveModels(
      { embed: "/models/e.gguf" },
      { QMD_EMBED_MODEL: "/env/e.gguf", QMD_RERANK_MODEL: "/env/r.gguf", XDG_CACHE_HOME: "/x" },
    );
    expect(resolved.embed).toEqual({
      role: "embed",
      uri: "/models/e.gguf",
      source: "settings",
      kind: "file",
    });
    expect(resolved.rerank).toMatchObject({ uri: "/env/r.gguf", source: "env", kind: "file" });
    expect(resolved.generate).toMatchObject({
      uri: QMD_DEFAULT_MODELS.generate,
      source: "default",
      kind: "hf",
    });
  });

  it("treats blank settings and variables as unset", () => {
    const resolved = resolveModels({ embed: "  " }, { QMD_EMBED_MODEL: "" });
    expect(resolved.embed).toMatchObject({ uri: QMD_DEFAULT_MODELS.embed, source: "default" });
  });

  it("makes relative and ~ paths absolute (QMD would resolve them against its cache)", () => {
    const resolved = resolveModels(
      { embed: "models/e.gguf", rerank: "~/r.gguf" },
      { HOME: "/home/u" },
      "/work/vault",
    );
    expect(resolved.embed.uri).toBe("/work/vault/models/e.gguf");
    expect(resolved.rerank.uri).toBe("/home/u/r.gguf");
  });

  it("classifies URLs as remote, never as files", () => {
    const resolved = resolveModels({ embed: "https://example.com/e.gguf" }, {});
    expect(resolved.embed.kind).toBe("remote");
  });

  it("uses QMD's cache folder: $XDG_CACHE_HOME/qmd/models, else ~/.cache/qmd/models", () => {
    expect(qmdModelCacheDir({ XDG_CACHE_HOME: "/xdg" })).toBe("/xdg/qmd/models");
    expect(qmdModelCacheDir({ HOME: "/home/u" })).toBe("/home/u/.cache/qmd/models");
    expect(resolveModels({}, { XDG_CACHE_HOME: "/xdg" }).cacheDir).toBe("/xdg/qmd/models");
  });

  it("knows the defaults of the installed QMD", () => {
    const llm = readFileSync(join(qmdDist, "dist", "llm.js"), "utf8");
    const constant = (name: string) => new RegExp(`^const ${name} = "([^"]+)"`, "m").exec(llm)?.[1];
    expect(QMD_DEFAULT_MODELS).toEqual({
      embed: constant("DEFAULT_EMBED_MODEL"),
      rerank: constant("DEFAULT_RERANK_MODEL"),
      generate: constant("DEFAULT_GENERATE_MODEL"),
    });
  });
});

describe("hfCacheFileNames", () => {
  it("names the cache files node-llama-cpp's own parser names", async () => {
    const require = createRequire(join(qmdDist, "package.json"));
    const nlc = dirname(require.resolve("node-llama-cpp"));
    const { parseModelUri } = (await import(
      pathToFileURL(join(nlc, "utils", "parseModelUri.js")).href
    )) as {
      parseModelUri: (
        uri: string,
      ) =>
        | { type: "resolved"; fullFilename: string }
        | { type: "unresolved"; possibleFullFilenames: string[] };
    };
    const uris = [
      ...Object.values(QMD_DEFAULT_MODELS),
      "hf:Qwen/Qwen3-Embedding-0.6B-GGUF/Qwen3-Embedding-0.6B-Q8_0.gguf",
      "hf:user/model/sub/dir/file.gguf",
      "hf:user/model-GGUF/model-Q4/model-Q4-00001-of-00003.gguf",
      "hf:user/repo/file.gguf#dev",
      "hf:user/Some-Model-GGUF",
      "hf:user/Some-Model-GGUF:q8_0",
      "hf://user/x-GGUF/x.gguf",
      "huggingface:user/x-GGUF/x.Q4.gguf",
    ];
    for (const uri of uris) {
      const parsed = parseModelUri(uri);
      const expected =
        parsed.type === "resolved"
          ? [parsed.fullFilename]
          : parsed.possibleFullFilenames.filter((name) => !name.includes("{:"));
      expect(hfCacheFileNames(uri), uri).toEqual(expected);
    }
  });
});

describe("modelAvailability", () => {
  const cacheDir = join(root, "cache", "qmd", "models");
  const env = { XDG_CACHE_HOME: join(root, "cache") };

  it("accepts a local GGUF file and reports the path QMD will load", () => {
    const path = file(join(root, "local", "embed.gguf"));
    const status = modelAvailability(resolveModels({ embed: path }, env)).embed;
    expect(status).toMatchObject({ role: "embed", available: true, path });
  });

  it("accepts an hf: URI whose file is already in QMD's cache", () => {
    const [name] = hfCacheFileNames(QMD_DEFAULT_MODELS.rerank);
    const path = file(join(cacheDir, name ?? "missing"));
    const status = modelAvailability(resolveModels({}, env)).rerank;
    expect(status).toMatchObject({ available: true, path });
  });

  it("refuses what would need a download, with a reason and a repair", () => {
    const statuses = modelAvailability(
      resolveModels({ embed: join(root, "nope.gguf"), rerank: "https://example.com/r.gguf" }, env),
    );
    expect(statuses.embed).toMatchObject({ available: false });
    expect(statuses.embed.reason).toContain("file not found");
    expect(statuses.embed.repair).toContain("QMD_EMBED_MODEL");
    expect(statuses.rerank).toMatchObject({ available: false });
    expect(statuses.generate).toMatchObject({ available: false });
    expect(statuses.generate.reason).toContain(cacheDir);
    expect(statuses.generate.repair).toContain("llm-wiki models pull --role generate");
  });

  it("refuses a file that is not GGUF (QMD would delete it and download again)", () => {
    const html = file(join(root, "local", "proxy-page.gguf"), "<!doctype html><html></html>");
    const status = modelAvailability(resolveModels({ embed: html }, env)).embed;
    expect(status.available).toBe(false);
    expect(status.reason).toContain("not a GGUF file");
    const folder = join(root, "local");
    expect(modelAvailability(resolveModels({ embed: folder }, env)).embed.reason).toContain(
      "not a file",
    );
  });

  it("refuses a split model with a missing part", () => {
    const uri = "hf:user/big-GGUF/big-Q4-00001-of-00002.gguf";
    const [first] = hfCacheFileNames(uri);
    file(join(cacheDir, first ?? "missing"));
    const status = modelAvailability(resolveModels({ generate: uri }, env)).generate;
    expect(status.available).toBe(false);
    expect(status.reason).toContain("split part missing");
    file(join(cacheDir, (first ?? "").replace("00001-of", "00002-of")));
    expect(modelAvailability(resolveModels({ generate: uri }, env)).generate.available).toBe(true);
  });
});

describe("requireModels", () => {
  it("throws a typed, repairable error for the first unavailable role", () => {
    const availability = modelAvailability(
      resolveModels({ embed: join(root, "missing-embed.gguf") }, { XDG_CACHE_HOME: root }),
    );
    let caught: unknown;
    try {
      requireModels(availability, ["embed", "rerank"]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModelUnavailableError);
    const error = caught as ModelUnavailableError;
    expect(error.code).toBe("model_unavailable");
    expect(error.role).toBe("embed");
    expect(error.model).toBe(join(root, "missing-embed.gguf"));
    expect(error.repair).not.toBe("");
    expect(() => requireModels(availability, [])).not.toThrow();
    expect(MODEL_ROLES).toEqual(["embed", "rerank", "generate"]);
  });
});
