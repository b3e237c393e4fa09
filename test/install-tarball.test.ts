/**
 * The package as a user gets it: packed with `pnpm pack` (which builds the
 * bundled bins) and installed with npm into an empty project, once for this
 * file; then the smoke specification runs every host and every capture
 * format through the installed bins and the installed package folder
 * (test/helpers/smoke-spec.ts), and the CLI recalls from a fresh copy of
 * the example vault as the README shows.
 *
 * Then the lean form the README documents (`--omit=optional
 * --ignore-scripts`, from the same tarball): much smaller; lexical recall,
 * the hooks and the MCP server work; a model mode answers with the
 * structured diagnostic naming the runtime packages, never a build of
 * llama.cpp or a fetch; and running the diagnostic's own repair command
 * makes the model modes work.
 *
 * npm downloads the package's dependencies (about 900 MB), so this runs
 * where CI runs (`CI=true`) or when asked (`LLM_WIKI_TEST_INSTALL=1`).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { llamaBinaryPackages } from "../extensions/llm-wiki/lib/index/model-runtime.ts";
import { childEnv } from "./helpers/index-services.ts";
import {
  type InstalledPackage,
  installPackedPackage,
  installWanted,
  LEAN_FLAGS,
  runCommand,
} from "./helpers/installed-package.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { type BinRun, connectBin, runBin } from "./helpers/shipped-package.ts";
import { smokeSpec } from "./helpers/smoke-spec.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
/** The folder of this platform's CPU llama.cpp binary under `@node-llama-cpp/`. */
const CPU_BINARY = (llamaBinaryPackages(process.platform, process.arch)[0] ?? "").replace(
  "@node-llama-cpp/",
  "",
);
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
};
let installed: InstalledPackage | undefined;
/** The lean form's install, started once the default form is in place (see its beforeAll). */
let leanInstall: Promise<InstalledPackage> | undefined;

function shipped(): InstalledPackage {
  if (!installed) throw new Error("the package is installed in beforeAll");
  return installed;
}

describe.runIf(installWanted)("the packed package installed with npm", () => {
  beforeAll(async () => {
    installed = await installPackedPackage();
    process.stderr.write(
      `install-tarball: pnpm pack ${installed.seconds.pack} s, npm install ${installed.seconds.install} s\n`,
    );
    // The lean form installs from the same tarball into its own project while
    // the default form's specs run: npm waits mostly on the registry and the
    // disk, and neither install reads the other's folder.
    leanInstall = installPackedPackage({ flags: LEAN_FLAGS, from: installed });
    // Reported where it is awaited (the lean specs' beforeAll), never unhandled meanwhile.
    leanInstall.catch(() => undefined);
  }, 1_200_000);
  afterAll(async () => {
    installed?.remove();
    // A lean install still under way (a failure above) is removed once it ends.
    (await leanInstall?.catch(() => undefined))?.remove();
    removeTempDirs();
  }, 1_200_000);

  it("is the tarball pnpm pack names after the package, and its bin prints the package's version", async () => {
    expect(shipped().tarball).toBe(`${manifest.name}-${manifest.version}.tgz`);
    const version = await runBin(shipped().llmWiki, ["--version"], {
      cwd: shipped().work,
      env: childEnv(),
    });
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it("recalls automatically from a fresh copy of the example vault", async () => {
    const vault = join(makeTempDir("llm-wiki-install-"), "acme-notes");
    cpSync(join(REPO, "examples", "acme-notes"), vault, {
      recursive: true,
      filter: (src) => !src.split(sep).includes("meta"),
    });
    const recall = await runBin(
      shipped().llmWiki,
      ["recall", "--auto", "how do we keep the cache consistent", "--vault", vault],
      { cwd: vault, env: childEnv() },
    );
    expect(recall.status, recall.stderr).toBe(0);
    expect(recall.stdout).toContain('<wiki-recall source="llm-wiki">');
    expect(recall.stdout).toContain("concepts/cache-invalidation");
  });

  smokeSpec("installed tarball", shipped);

  describe("the lean install (--omit=optional --ignore-scripts)", () => {
    let lean: InstalledPackage | undefined;
    let project = "";
    let env: NodeJS.ProcessEnv = {};
    const PAGE = {
      title: "Harbour crane",
      id: "concepts/harbour-crane",
      body: "The harbour crane schedule rotates weekly on Mondays.",
      asked: "when does the harbour crane schedule rotate",
    };
    const leanPackage = (): InstalledPackage => {
      if (!lean) throw new Error("the lean form is installed in beforeAll");
      return lean;
    };
    const cli = (args: string[], input?: string): Promise<BinRun> =>
      runBin(leanPackage().llmWiki, args, {
        cwd: project,
        env,
        ...(input === undefined ? {} : { input }),
      });
    const binaries = () =>
      existsSync(join(leanPackage().modules, "@node-llama-cpp"))
        ? readdirNames(join(leanPackage().modules, "@node-llama-cpp"))
        : [];

    beforeAll(async () => {
      if (!leanInstall) throw new Error("the lean install starts in the outer beforeAll");
      lean = await leanInstall;
      process.stderr.write(
        `install-tarball: lean npm install ${lean.seconds.install} s, ${lean.bytes} bytes against ${shipped().bytes}\n`,
      );
      project = join(makeTempDir("llm-wiki-lean-"), "project");
      mkdirSync(project);
      env = { ...childEnv(), WIKI_HOME: join(project, "..") };
    }, 1_200_000);
    afterAll(() => lean?.remove());

    it("holds under half of the default install's bytes, and no llama.cpp binary", () => {
      expect(shipped().bytes).toBeGreaterThan(0);
      expect(leanPackage().bytes / shipped().bytes).toBeLessThan(0.5);
      expect(binaries()).toEqual([]);
      expect(readdirNames(join(shipped().modules, "@node-llama-cpp"))).toContain(CPU_BINARY);
    });

    it("indexes and recalls lexically, and its hooks prime and recall", async () => {
      expect((await cli(["init"])).status).toBe(0);
      const page = await cli([
        "page",
        "--type",
        "concept",
        "--title",
        PAGE.title,
        "--content",
        PAGE.body,
      ]);
      expect(page.status, page.stderr).toBe(0);
      const reindex = await cli(["reindex"]);
      expect(reindex.status, reindex.stderr).toBe(0);
      // QMD's warning that sqlite-vec's extension is missing is held back: lexical work needs none.
      expect(reindex.stderr).not.toContain("sqlite-vec");
      const recall = await cli(["recall", PAGE.asked, "--json"]);
      expect(recall.status, recall.stderr).toBe(0);
      expect(JSON.parse(recall.stdout)).toMatchObject({
        modeUsed: "lexical",
        results: [{ id: PAGE.id }],
      });
      const hook = await cli(
        ["hook", "user-prompt"],
        JSON.stringify({
          session_id: "lean",
          cwd: project,
          hook_event_name: "UserPromptSubmit",
          prompt: PAGE.asked,
        }),
      );
      expect(hook.status, hook.stderr).toBe(0);
      expect(hook.stdout).toContain(`id: ${PAGE.id}`);
      expect(hook.stdout).toContain(PAGE.body);
    });

    it("the MCP server answers wiki_recall over stdio", async () => {
      const client = await connectBin(leanPackage().mcp, project, env, "lean");
      try {
        const recall = (await client.callTool({
          name: "wiki_recall",
          arguments: { query: PAGE.asked },
        })) as CallToolResult;
        expect(recall.isError ?? false).toBe(false);
        expect(JSON.stringify(metaResult(recall))).toContain(PAGE.id);
      } finally {
        await client.close();
      }
    });

    it("a model mode answers with the model_unavailable diagnostic naming the runtime, and builds nothing", async () => {
      const vectors = await cli(["reindex", "--vectors", "--json"]);
      expect(vectors.status).toBe(1);
      const report = JSON.parse(vectors.stdout) as {
        diagnostics: Array<{ code: string; message: string; repair?: string }>;
      };
      const runtime = report.diagnostics.find((d) => d.code === "model_unavailable");
      expect(runtime?.message).toContain("model runtime is not installed");
      expect(runtime?.repair).toContain("@node-llama-cpp/");
      expect(runtime?.repair).toContain("sqlite-vec-");
      const hybrid = await cli(["recall", PAGE.asked, "--mode", "hybrid", "--json"]);
      expect(hybrid.status, hybrid.stderr).toBe(0);
      const answer = JSON.parse(hybrid.stdout) as {
        modeUsed: string;
        results: Array<{ id: string }>;
        diagnostics: Array<{ code: string; message: string }>;
      };
      expect(answer.results.map((r) => r.id)).toContain(PAGE.id);
      expect(answer.diagnostics.map((d) => d.code)).toContain("model_unavailable");
      expect(`${vectors.stderr}${hybrid.stderr}`).not.toContain("NoBinaryFoundError");
      // node-llama-cpp compiles llama.cpp into this folder when it finds no binary.
      expect(
        existsSync(join(leanPackage().modules, "node-llama-cpp", "llama", "localBuilds")),
      ).toBe(false);
      const status = await cli(["status", "--json"]);
      expect(JSON.parse(status.stdout)).toMatchObject({ vault: { index: { state: "ready" } } });
    });

    it("the diagnostic's repair command installs the runtime, and the model modes then work", async () => {
      const vectors = await cli(["reindex", "--vectors", "--json"]);
      const repair =
        (
          JSON.parse(vectors.stdout) as { diagnostics: Array<{ repair?: string }> }
        ).diagnostics.find((d) => d.repair?.includes("npm install"))?.repair ?? "";
      const command = /npm install [^(]+/.exec(repair)?.[0].trim().split(/\s+/) ?? [];
      expect(command.slice(0, 2)).toEqual(["npm", "install"]);
      runCommand(
        "npm",
        [...command.slice(1), "--no-audit", "--no-fund"],
        join(leanPackage().modules, ".."),
      );
      // Only the platform's CPU binary came: no GPU build, no other platform.
      expect(binaries()).toEqual([CPU_BINARY]);
      const embedded = await cli(["reindex", "--vectors"]);
      expect(embedded.status, embedded.stderr).toBe(0);
      expect(embedded.stdout).toMatch(/[1-9]\d* embedded/);
      const hybrid = await cli(["recall", PAGE.asked, "--mode", "hybrid", "--json"]);
      expect(hybrid.status, hybrid.stderr).toBe(0);
      expect(JSON.parse(hybrid.stdout)).toMatchObject({ modeUsed: "hybrid" });
    });
  });
});

function readdirNames(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}
