/**
 * The Claude Code plugin: its manifests agree with the package, its hooks
 * run commands that exist, and its launcher gives a working runtime however
 * the plugin arrived. A marketplace install is a bare clone (no
 * `node_modules`, no `dist/`): the first session-start hook starts a
 * background install of the npm package and says so, a prompt's hook
 * answers nothing meanwhile (exit 0), and once the install is ready the
 * same hooks answer from it; a failed install is reported, not retried on
 * every prompt. A folder with a built `dist/` and its dependencies (the npm
 * package, a built checkout) runs its own bundle and installs nothing.
 * npm installs a local stand-in package here, offline.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv } from "./helpers/index-services.ts";
import { fakeRuntimeTarball, pluginClone } from "./helpers/plugin-runtime.ts";
import { type StagedPackage, stagePackage } from "./helpers/staged-package.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");

function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(REPO, path), "utf8")) as Record<string, unknown>;
}

const pkg = json("package.json") as { version: string; files: string[] };

interface HookEntry {
  type: string;
  command: string;
  timeout: number;
}

afterAll(removeTempDirs);

describe("the plugin's manifests", () => {
  it("name the package's version, and the marketplace lists this folder as the plugin", () => {
    const plugin = json(".claude-plugin/plugin.json");
    const market = json(".claude-plugin/marketplace.json") as {
      plugins: Array<Record<string, unknown>>;
    };
    expect(plugin.name).toBe("llm-wiki");
    expect(plugin.version).toBe(pkg.version);
    expect(market.plugins).toEqual([
      expect.objectContaining({ name: "llm-wiki", source: "./", version: pkg.version }),
    ]);
  });

  it("run the launcher for the hooks and the MCP server, with timeouts a bundled hook fits", () => {
    const hooks = json("hooks/hooks.json").hooks as Record<string, Array<{ hooks: HookEntry[] }>>;
    const kinds = {
      SessionStart: "session-start",
      UserPromptSubmit: "user-prompt",
      Stop: "stop",
      SessionEnd: "session-end",
      PreCompact: "pre-compact",
    } as const;
    expect(Object.keys(hooks).sort()).toEqual(Object.keys(kinds).sort());
    for (const [event, kind] of Object.entries(kinds)) {
      const [entry] = hooks[event]?.flatMap((g) => g.hooks) ?? [];
      expect(entry?.command).toBe(
        `node "\${CLAUDE_PLUGIN_ROOT}/plugin/launch.js" cli hook ${kind}`,
      );
      expect(entry?.timeout).toBeGreaterThanOrEqual(5);
      expect(entry?.timeout).toBeLessThanOrEqual(30);
    }
    const servers = json(".claude-plugin/plugin.json").mcpServers as Record<string, unknown>;
    expect(servers["llm-wiki"]).toEqual({
      command: "node",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code expands it, not JavaScript.
      args: ["${CLAUDE_PLUGIN_ROOT}/plugin/launch.js", "mcp"],
    });
  });

  it("ship in the npm package", () => {
    for (const part of [".claude-plugin", "hooks", "plugin"]) expect(pkg.files).toContain(part);
  });
});

function example(): string {
  const vault = join(makeTempDir("llm-wiki-plugin-vault-"), "acme-notes");
  cpSync(EXAMPLE, vault, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  return vault;
}

function hook(root: string, kind: string, input: object, env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [join(root, "plugin", "launch.js"), "cli", "hook", kind], {
    input: JSON.stringify(input),
    env,
    encoding: "utf8",
    timeout: 120_000,
  });
}

/** Waits for the background install to finish (a hang guard, not a timed assertion). */
async function settled(runtime: string): Promise<string[]> {
  for (let i = 0; i < 600; i += 1) {
    const names = existsSync(runtime) ? readdirSync(runtime) : [];
    if (!names.some((n) => n.endsWith(".installing"))) return names;
    await new Promise((done) => setTimeout(done, 500));
  }
  throw new Error("the background install never finished");
}

describe("installed from the marketplace (a clone: no node_modules, no dist)", () => {
  let clone = "";
  let tarball = "";
  beforeAll(() => {
    clone = pluginClone();
    tarball = fakeRuntimeTarball();
  }, 300_000);

  it("installs its runtime in the background once, then its hooks answer from it", async () => {
    expect(existsSync(join(clone, "node_modules"))).toBe(false);
    expect(existsSync(join(clone, "dist"))).toBe(false);
    const runtime = makeTempDir("llm-wiki-plugin-runtime-");
    const env = childEnv({ LLM_WIKI_PLUGIN_RUNTIME: runtime, LLM_WIKI_PLUGIN_PACKAGE: tarball });
    const vault = example();
    const start = hook(clone, "session-start", { cwd: vault, source: "startup" }, env);
    expect(start.status).toBe(0);
    expect(start.stdout).toContain("is being installed in the background");
    const meanwhile = hook(clone, "user-prompt", { cwd: vault, prompt: "cache" }, env);
    expect(meanwhile.status).toBe(0);
    expect(meanwhile.stdout).toBe("");
    const names = await settled(runtime);
    expect(names).toContain(`v${pkg.version}`);
    expect(names.some((n) => n.endsWith(".failed"))).toBe(false);
    // The lean form: no optional packages (the llama.cpp builds), no install scripts.
    const log = readFileSync(join(runtime, `v${pkg.version}.log`), "utf8");
    expect(log.split("\n")[0]).toMatch(/^\$ npm install .*--omit=optional --ignore-scripts /);
    // The command line runs from the installed runtime too: it builds the index a hook reads.
    const reindex = spawnSync(
      process.execPath,
      [join(clone, "plugin", "launch.js"), "cli", "reindex", "--vault", vault],
      { env, encoding: "utf8", timeout: 300_000 },
    );
    expect(reindex.status, reindex.stderr).toBe(0);
    const asked = { cwd: vault, prompt: "how do we keep the cache consistent", session_id: "s" };
    const recall = hook(clone, "user-prompt", asked, env);
    expect(recall.status, recall.stderr).toBe(0);
    expect(recall.stdout).toContain('<wiki-recall source="llm-wiki">');
    expect(recall.stdout).toContain("concepts/cache-invalidation");
  }, 600_000);

  it("a failed install is reported and not retried on the next prompt", async () => {
    const runtime = makeTempDir("llm-wiki-plugin-runtime-");
    const missing = join(makeTempDir("llm-wiki-plugin-missing-"), "no-such.tgz");
    const env = childEnv({ LLM_WIKI_PLUGIN_RUNTIME: runtime, LLM_WIKI_PLUGIN_PACKAGE: missing });
    const cwd = makeTempDir("llm-wiki-plugin-cwd-");
    expect(hook(clone, "session-start", { cwd }, env).status).toBe(0);
    const names = await settled(runtime);
    expect(names).toContain(`v${pkg.version}.failed`);
    const next = hook(clone, "session-start", { cwd }, env);
    expect(next.status).toBe(0);
    expect(next.stdout).toContain("failed");
    expect(next.stdout).toContain(`v${pkg.version}.log`);
    expect(readdirSync(runtime).some((n) => n.endsWith(".installing"))).toBe(false);
  }, 600_000);
});

describe("run from a folder with its bundle and dependencies (the npm package)", () => {
  let staged: StagedPackage | undefined;
  beforeAll(async () => {
    staged = await stagePackage();
  }, 300_000);
  afterAll(() => staged?.remove());

  it("runs its own bundle and installs nothing", () => {
    const root = staged?.packageDir ?? "";
    const runtime = makeTempDir("llm-wiki-plugin-runtime-");
    const env = childEnv({ LLM_WIKI_PLUGIN_RUNTIME: runtime });
    const out = spawnSync(
      process.execPath,
      [join(root, "plugin", "launch.js"), "cli", "--version"],
      {
        env,
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe(pkg.version);
    expect(readdirSync(runtime)).toEqual([]);
  });
});
