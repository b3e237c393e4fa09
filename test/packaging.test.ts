/**
 * What a user installs: the package name the README tells them to install
 * is ours, Pi loads the checkout as a package without a warning, and every
 * bin, and every bundled entry point under `dist/` that setup and the README
 * name, meets a too-old Node with one readable line and exit status 2 — but
 * an agent's hook (`llm-wiki hook …`) exits 0, because Claude Code blocks the
 * user's prompt on exit 2; a hook whose modules cannot load exits 0 too.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { DefaultResourceLoader, SettingsManager } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { isSupportedNode, REQUIRED_NODE } from "../bin/node-check.js";
import { PACKAGE_NAME } from "../extensions/llm-wiki/lib/package-version.ts";
import { TEST_BUNDLE } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";
import { copyOrBuildBundle } from "./helpers/test-bundle.ts";

const REPO = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

afterEach(removeTempDirs);

/** Package names in install commands: `pi install npm:X`, `npx … -p X`, `npm i[nstall] [-g] X`. */
function installedNames(markdown: string): string[] {
  const names: string[] = [];
  const patterns = [
    /pi install npm:(@?[\w./-]+)/g,
    /npx(?: -y)? -p (@?[\w./-]+)/g,
    // Flags such as `-g` or `--omit=optional` may stand before the name.
    // `--prefix DIR` takes its value as the next word.
    /npm (?:i|install)(?: --prefix \S+| --?[\w-]+(?:=\S+)?)* (@?[\w.][\w./-]*)/g,
    /pnpm add(?: --?[\w-]+(?:=\S+)?)* (@?[\w./-]+)/g,
  ];
  for (const pattern of patterns) {
    for (const match of markdown.matchAll(pattern)) if (match[1]) names.push(match[1]);
  }
  return names;
}

describe("the package name", () => {
  it("every install line in the README and docs names the package in package.json", () => {
    const docs = [
      "README.md",
      ...["api.md", "configuration.md", "architecture.md"].map((f) => join("docs", f)),
    ];
    const names = docs
      .flatMap((file) => installedNames(readFileSync(join(REPO, file), "utf8")))
      // The model runtime's native builds, added into an install by its repair line.
      .filter((name) => !/^(@node-llama-cpp\/|sqlite-vec-)/.test(name));
    expect(names.length).toBeGreaterThanOrEqual(3);
    expect(new Set(names)).toEqual(new Set([manifest.name]));
  });

  it("is not the unrelated `llm-wiki` package, and keeps the bins llm-wiki and llm-wiki-mcp", () => {
    expect(manifest.name).not.toBe("llm-wiki");
    expect(manifest.name).toBe(PACKAGE_NAME);
    expect(Object.keys(manifest.bin).sort()).toEqual(["llm-wiki", "llm-wiki-mcp"]);
  });
});

describe("installed into Pi", () => {
  it("loads the checkout as a package with no warning and no error", async () => {
    const root = makeTempDir("llm-wiki-pi-install-");
    const agentDir = join(root, "agent");
    const cwd = join(root, "project");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    // What `pi install <checkout>` records: the folder as a package.
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: [REPO] }));
    const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: true });
    const loader = new DefaultResourceLoader({
      cwd,
      agentDir,
      settingsManager,
      noSkills: true,
      noPromptTemplates: true,
      noThemes: true,
      noContextFiles: true,
    });
    await loader.reload();
    const loaded = loader.getExtensions();
    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.extensions.map((e) => e.path)).toEqual([
      join(REPO, "extensions", "llm-wiki", "index.ts"),
    ]);
  });

  it("declares the packages Pi provides as peers with any version, never as dependencies", () => {
    // Pi 1.6's list of host-provided packages (its extension package check).
    const hostProvided = [
      "@earendil-works/pi-agent-core",
      "@earendil-works/pi-ai",
      "@earendil-works/pi-coding-agent",
      "@earendil-works/pi-tui",
      "@sinclair/typebox",
      "typebox",
    ];
    for (const name of hostProvided) {
      expect(manifest.dependencies[name]).toBeUndefined();
      const peer = manifest.peerDependencies[name];
      if (peer !== undefined) expect(peer).toBe("*");
    }
  });
});

/** Node binaries on this machine older than the required version (the system Node 20 here and in CI). */
function oldNodes(): string[] {
  const found = spawnSync(
    "bash",
    ["-c", "which -a node nodejs 2>/dev/null; ls /usr/bin/node /usr/local/bin/node 2>/dev/null"],
    {
      encoding: "utf8",
    },
  );
  const candidates = [...new Set(found.stdout.split("\n").filter(Boolean))];
  return candidates.filter((bin) => {
    try {
      return !isSupportedNode(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim());
    } catch {
      return false;
    }
  });
}

describe("the Node version check", () => {
  it("compares versions by number", () => {
    expect(isSupportedNode(REQUIRED_NODE)).toBe(true);
    expect(isSupportedNode("v22.19.0")).toBe(true);
    expect(isSupportedNode("22.100.0")).toBe(true);
    expect(isSupportedNode("24.0.0")).toBe(true);
    expect(isSupportedNode("22.18.9")).toBe(false);
    expect(isSupportedNode("v20.20.2")).toBe(false);
    expect(isSupportedNode("18.0.0")).toBe(false);
  });

  it("each bin under an older Node prints one line naming the required version and exits 2", () => {
    const olds = oldNodes();
    // This machine and CI's have the system's Node 20 beside the project's Node 22.
    expect(olds.length).toBeGreaterThan(0);
    for (const node of olds) {
      for (const bin of Object.values(manifest.bin)) {
        const run = spawnSync(node, [join(REPO, bin), "status"], {
          encoding: "utf8",
          env: childEnv(),
          input: "",
          timeout: 120_000,
        });
        expect(run.status).toBe(2);
        expect(run.stdout).toBe("");
        const lines = run.stderr.split("\n").filter(Boolean);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(REQUIRED_NODE);
        expect(lines[0]).not.toMatch(/\bat \S+:\d+:\d+/);
      }
    }
  });

  it("`llm-wiki hook` under an older Node exits 0 with the reason on stderr; at session start the user is told too", () => {
    const olds = oldNodes();
    expect(olds.length).toBeGreaterThan(0);
    const cwd = makeTempDir();
    for (const node of olds) {
      for (const [kind, input] of [
        ["user-prompt", { cwd, hook_event_name: "UserPromptSubmit", prompt: randomWords(4) }],
        ["session-start", { cwd, hook_event_name: "SessionStart", source: "startup" }],
      ] as const) {
        for (const extra of [[], ["--json"]]) {
          const run = spawnSync(
            node,
            [join(REPO, manifest.bin["llm-wiki"] ?? ""), "hook", kind, ...extra],
            {
              encoding: "utf8",
              env: childEnv(),
              input: JSON.stringify(input),
              timeout: 120_000,
            },
          );
          expect(run.status, `${node} hook ${kind}`).toBe(0);
          const lines = run.stderr.split("\n").filter(Boolean);
          expect(lines).toHaveLength(1);
          expect(lines[0]).toContain(REQUIRED_NODE);
          if (kind === "user-prompt") {
            expect(run.stdout).toBe("");
            continue;
          }
          // A hook's stderr reaches no one: the client shows `systemMessage` to the user.
          const notice = JSON.parse(run.stdout) as {
            systemMessage: string;
            hookSpecificOutput: { hookEventName: string; additionalContext: string };
          };
          expect(notice.systemMessage).toContain(REQUIRED_NODE);
          expect(notice.systemMessage).toContain(
            execFileSync(node, ["--version"]).toString().trim(),
          );
          expect(notice.hookSpecificOutput).toEqual({
            hookEventName: "SessionStart",
            additionalContext: notice.systemMessage,
          });
        }
      }
    }
  });

  it("the bundled entry points under an older Node print one line naming the required version, no stack trace", async (ctx) => {
    const olds = oldNodes();
    ctx.skip(
      olds.length === 0,
      `no Node older than ${REQUIRED_NODE} on PATH, /usr/bin or /usr/local/bin to run them with`,
    );
    // The entries `setup` and the README name (`node …/dist/cli/llm-wiki.js hook …`),
    // built from the current sources (global setup's bundle, copied when it is current).
    const dist = join(makeTempDir("llm-wiki-dist-"), "dist");
    await copyOrBuildBundle(TEST_BUNDLE, dist);
    const runs = [
      { file: "cli/llm-wiki.js", args: ["--help"], bin: "llm-wiki", status: 2 },
      { file: "cli/llm-wiki.js", args: ["status"], bin: "llm-wiki", status: 2 },
      { file: "mcp/index.js", args: [], bin: "llm-wiki-mcp", status: 2 },
      // An agent's hook never blocks the prompt: exit 0, the reason on stderr.
      { file: "cli/llm-wiki.js", args: ["hook", "user-prompt"], bin: "llm-wiki hook", status: 0 },
    ];
    for (const node of olds) {
      for (const { file, args, bin, status } of runs) {
        const run = spawnSync(node, [join(dist, file), ...args], {
          encoding: "utf8",
          env: childEnv(),
          input: JSON.stringify({ cwd: makeTempDir(), prompt: randomWords(4) }),
          timeout: 120_000,
        });
        const what = `${node} dist/${file} ${args.join(" ")}`;
        expect(run.status, `${what}: ${run.stderr}`).toBe(status);
        expect(run.stdout, what).toBe("");
        const lines = run.stderr.split("\n").filter(Boolean);
        expect(lines, what).toHaveLength(1);
        expect(lines[0]?.startsWith(`${bin}: needs Node.js ${REQUIRED_NODE} or newer`), what).toBe(
          true,
        );
        expect(lines[0], what).not.toMatch(/\bat \S+:\d+:\d+|Error/);
      }
      // The session's first hook shows the user why there is no memory (`systemMessage`).
      const start = spawnSync(node, [join(dist, "cli/llm-wiki.js"), "hook", "session-start"], {
        encoding: "utf8",
        env: childEnv(),
        input: JSON.stringify({ cwd: makeTempDir(), source: "startup" }),
        timeout: 120_000,
      });
      expect(start.status).toBe(0);
      expect(JSON.parse(start.stdout).systemMessage).toContain(REQUIRED_NODE);
    }
  });

  it("each bin under this Node runs the command from the checkout's sources", () => {
    const vault = makeTempVault({
      pages: { "concepts/a": pageText({ type: "concept", title: "A" }) },
    });
    const cli = spawnSync(
      process.execPath,
      [join(REPO, manifest.bin["llm-wiki"] ?? ""), "status", "--json", "--vault", vault.root],
      { encoding: "utf8", env: childEnv(), timeout: 120_000 },
    );
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ vault: { pages: 1 } });
  });
});

describe("the README's example", () => {
  it("shows automatic recall on a first run of a fresh copy of the example vault", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const query = /bash scripts\/dev\.sh example "([^"]+)"/.exec(readme)?.[1];
    expect(query).toBeDefined();
    const script = readFileSync(join(REPO, "scripts", "dev.sh"), "utf8");
    expect(script).toContain('recall --auto "$query" --vault examples/acme-notes');
    // A fresh copy: no index yet, as on a new clone.
    const root = join(makeTempDir("llm-wiki-readme-"), "acme-notes");
    cpSync(join(REPO, "examples", "acme-notes"), root, {
      recursive: true,
      filter: (src) => !src.split(sep).includes("meta"),
    });
    const out = spawnSync(
      process.execPath,
      [join(REPO, "bin", "llm-wiki.js"), "recall", "--auto", query ?? "", "--vault", root],
      { encoding: "utf8", env: childEnv(), timeout: 120_000 },
    );
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('<wiki-recall source="llm-wiki">');
    expect(out.stdout).toContain("concepts/cache-invalidation");
  });
});

/**
 * A Node `--import` that makes every import whose specifier contains
 * `fragment` fail to resolve, as a missing or broken module would.
 */
function failingImport(fragment: string): string {
  const hooks = `export async function resolve(s, c, next) { if (s.includes(${JSON.stringify(fragment)})) throw new Error("cannot load " + s); return next(s, c); }`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `data:text/javascript,${encodeURIComponent(register)}`;
}

/** A Node `--import` that throws from a timer once the hook's input has ended: a failure after loading. */
const LATE_THROW = `data:text/javascript,${encodeURIComponent(
  'process.stdin.once("end", () => setImmediate(() => { throw new Error("late failure"); }));',
)}`;

/** The two ways into the hook: the installed bin, and the command line's own entry (a checkout, the tests). */
const ENTRIES = [join(REPO, manifest.bin["llm-wiki"] ?? ""), join(REPO, "cli", "llm-wiki.ts")];

describe("`llm-wiki hook` whose modules cannot load, or that throws later", () => {
  const input = () =>
    JSON.stringify({
      cwd: makeTempDir(),
      hook_event_name: "UserPromptSubmit",
      prompt: randomWords(4),
    });
  const run = (preload: string, entry: string, args: string[]) =>
    spawnSync(process.execPath, ["--import", preload, entry, ...args], {
      encoding: "utf8",
      // The checkout's sources, module by module, even where a dist/ is built.
      env: childEnv({ LLM_WIKI_FROM_SOURCES: "1" }),
      input: input(),
      timeout: 120_000,
    });

  it("exits 0 with nothing on stdout and the reason on stderr, whichever module fails", () => {
    // The command line's entry (caught by the bin), the hook's module (caught by the entry), and one the hook loads.
    for (const entry of ENTRIES) {
      for (const fragment of ["cli/llm-wiki", "hook-command", "wiki-service"]) {
        if (entry.endsWith(".ts") && fragment === "cli/llm-wiki") continue;
        for (const kind of ["user-prompt", "session-start"]) {
          const out = run(failingImport(fragment), entry, ["hook", kind]);
          const label = `${entry} ${fragment} ${kind}`;
          expect(out.status, `${label}: ${out.stderr}`).toBe(0);
          expect(out.stdout, label).toBe("");
          const lines = out.stderr.split("\n").filter(Boolean);
          expect(lines, label).toHaveLength(1);
          expect(lines[0], label).toMatch(/^llm-wiki hook: .*cannot load/);
        }
      }
    }
    // The same failure outside a hook is an ordinary error, not hidden.
    expect(run(failingImport("cli/llm-wiki"), ENTRIES[0] ?? "", ["status"]).status).not.toBe(0);
  });

  it("exits 0 with the reason on stderr when something throws after the modules loaded", () => {
    for (const entry of ENTRIES) {
      const out = run(LATE_THROW, entry, ["hook", "user-prompt"]);
      expect(out.status, `${entry}: ${out.stderr}`).toBe(0);
      expect(out.stderr, entry).toContain("late failure");
    }
  });
});
