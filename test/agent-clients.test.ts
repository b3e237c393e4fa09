/**
 * The real clients see what `llm-wiki setup` wrote, and Claude Code takes
 * the plugin: each CLI from npm at an exact version (cached across runs,
 * test/helpers/agent-clients.ts), HOME a fresh folder, no network needed
 * past the install. `claude plugin validate` passes the repository;
 * `/plugin marketplace add` + `/plugin install` of a clone set up the MCP
 * server, which connects once its runtime is installed; after `setup`,
 * each client's own `mcp list` names our server (Claude Code and Gemini CLI
 * connect to it; Codex's list only reads its config).
 *
 * Downloads ~500 MB the first time, so it runs where CI runs (`CI=true`) or
 * when asked (`LLM_WIKI_TEST_CLIENTS=1`).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClientName,
  clientsWanted,
  type InstalledClient,
  installClient,
} from "./helpers/agent-clients.ts";
import { CLI, runCli, TEST_BUNDLE } from "./helpers/cli.ts";
import { codeCacheEnv } from "./helpers/code-cache-env.ts";
import { commandsOnPath } from "./helpers/path-commands.ts";
import { fakeRuntimeTarball, pluginClone } from "./helpers/plugin-runtime.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const installed: Partial<Record<ClientName, InstalledClient>> = {};
const BUNDLED_MCP = join(TEST_BUNDLE, "mcp", "index.js");
/** `llm-wiki` and `llm-wiki-mcp` on PATH, as an install puts them: what a project's set-up names. */
let commands = "";

function client(name: ClientName, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const bin = installed[name]?.bin;
  if (!bin) throw new Error(`${name} is installed in beforeAll`);
  const out = spawnSync(bin, args, { cwd, env, encoding: "utf8", timeout: 240_000 });
  return { status: out.status, output: `${out.stdout ?? ""}${out.stderr ?? ""}` };
}

/** A fresh HOME and project, and the environment a client runs with there. */
function place(extra: Record<string, string> = {}) {
  const home = makeTempDir("llm-wiki-client-home-");
  const project = makeTempDir("llm-wiki-client-project-");
  const path = `${commands}:${process.env.PATH ?? ""}`;
  // The clients and our bins are Node programs: one warm cache of compiled code for all.
  return { home, project, env: { PATH: path, HOME: home, ...codeCacheEnv(), ...extra } };
}

describe.runIf(clientsWanted)("the real clients", () => {
  beforeAll(() => {
    commands = commandsOnPath({
      cli: CLI,
      mcp: existsSync(BUNDLED_MCP) ? BUNDLED_MCP : join(REPO, "mcp", "index.ts"),
    });
    for (const name of ["claude", "codex", "gemini"] as const) {
      installed[name] = installClient(name);
      const { seconds, megabytes } = installed[name];
      process.stderr.write(`agent-clients: ${name} install ${seconds} s, ${megabytes} MB\n`);
    }
  }, 1_200_000);
  afterAll(removeTempDirs);

  it("claude plugin validate passes the repository (plugin and marketplace)", () => {
    const { env } = place();
    const out = client("claude", ["plugin", "validate", REPO], REPO, env);
    expect(out.status, out.output).toBe(0);
    expect(out.output).toContain("Validation passed");
    expect(out.output).toContain("hooks: SessionStart");
    expect(out.output).toContain("mcpServers: llm-wiki");
  });

  it("Claude Code: marketplace add + install of a clone; its MCP server connects after the runtime installs", () => {
    const { project, home, env } = place();
    const runtimeEnv = {
      ...env,
      LLM_WIKI_PLUGIN_RUNTIME: join(home, "runtime"),
      LLM_WIKI_PLUGIN_PACKAGE: fakeRuntimeTarball(),
    };
    const clone = pluginClone();
    const add = client("claude", ["plugin", "marketplace", "add", clone], project, runtimeEnv);
    expect(add.status, add.output).toBe(0);
    const install = client(
      "claude",
      ["plugin", "install", "llm-wiki@llm-wiki"],
      project,
      runtimeEnv,
    );
    expect(install.status, install.output).toBe(0);
    const list = client("claude", ["mcp", "list"], project, runtimeEnv);
    expect(list.output).toMatch(/plugin:llm-wiki:llm-wiki: .*launch\.js mcp - ✔ Connected/);
  });

  it("Claude Code: setup --user; `claude mcp list` connects to our server", () => {
    const { project, env } = place();
    expect(runCli(["setup", "claude-code", "--user"], { cwd: project, env }).status).toBe(0);
    const list = client("claude", ["mcp", "list"], project, env);
    expect(list.output).toMatch(/llm-wiki: .* - ✔ Connected/);
  });

  it("Claude Code: setup --project; `claude mcp list` lists the project's server, awaiting the user's approval", () => {
    const { project, env } = place();
    expect(runCli(["setup", "claude-code"], { cwd: project, env }).status).toBe(0);
    const list = client("claude", ["mcp", "list"], project, env);
    // A project's file names the command, which PATH resolves on each teammate's machine.
    expect(list.output).toMatch(/llm-wiki: llm-wiki-mcp\s*- ⏸ Pending approval/);
  });

  it("Codex: setup --user; `codex mcp list` lists our server and command", () => {
    const { project, env } = place();
    expect(runCli(["setup", "codex", "--user"], { cwd: project, env }).status).toBe(0);
    const list = client("codex", ["mcp", "list"], project, env);
    expect(list.status, list.output).toBe(0);
    expect(list.output).toMatch(/^llm-wiki\s+\S*node\s+\S+/m);
  });

  it("Gemini CLI: setup --project in a trusted folder; `gemini mcp list` connects to our server", () => {
    const { project, env } = place({ GEMINI_CLI_TRUST_WORKSPACE: "true" });
    expect(runCli(["setup", "gemini"], { cwd: project, env }).status).toBe(0);
    const list = client("gemini", ["mcp", "list"], project, env);
    expect(list.output).toMatch(/llm-wiki: .* - Connected/);
  });

  it("Gemini CLI: a headless session (scripted model) runs our hooks: the model gets the recall block, and the session is recorded from Gemini CLI's own transcript", () => {
    const { project, home, env } = place({ GEMINI_CLI_TRUST_WORKSPACE: "true" });
    const example = join(REPO, "examples", "acme-notes");
    cpSync(example, project, {
      recursive: true,
      filter: (src) => !relative(example, src).split(sep).includes("meta"),
    });
    expect(runCli(["setup", "gemini"], { cwd: project, env }).status).toBe(0);
    const settingsPath = join(project, ".gemini", "settings.json");
    const settings = JSON.parse(readFileSync(settingsPath, "utf8")) as Record<string, unknown>;
    // Hook timeouts and our deadline long: a loaded machine must not cut a hook short.
    const hooks = settings.hooks as Record<string, Array<{ hooks: Array<{ timeout: number }> }>>;
    for (const groups of Object.values(hooks))
      for (const group of groups) for (const h of group.hooks) h.timeout = 600_000;
    writeFileSync(
      settingsPath,
      JSON.stringify({
        ...settings,
        general: { enableAutoUpdate: false },
        security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
        telemetry: { enabled: false },
      }),
    );
    // Working memory on, so the session's end is recorded.
    mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
    writeFileSync(
      join(home, ".config", "llm-wiki", "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories: true } }),
    );
    // The model, scripted: the router's call, one tool call, the answer.
    const turn = (parts: unknown[]) => ({
      method: "generateContentStream",
      response: [
        { candidates: [{ content: { parts, role: "model" }, finishReason: "STOP", index: 0 }] },
      ],
    });
    const responses = join(home, "responses.jsonl");
    writeFileSync(
      responses,
      `${[
        {
          method: "generateContent",
          response: { candidates: [{ content: { parts: [{ text: "{}" }], role: "model" } }] },
        },
        turn([{ functionCall: { name: "list_directory", args: { dir_path: "." } } }]),
        turn([{ text: "Invalidate the cache when a note changes." }]),
      ]
        .map((r) => JSON.stringify(r))
        .join("\n")}\n`,
    );
    const asked = "how do we keep the cache consistent after a note changes";
    const run = client(
      "gemini",
      ["-p", asked, "--fake-responses", responses, "--approval-mode=yolo"],
      project,
      {
        ...env,
        GEMINI_API_KEY: "test",
        GEMINI_CLI_HOME: home,
        LLM_WIKI_HOOK_DEADLINE_MS: "600000",
        // No warm hook process: it would outlive the spec.
        LLM_WIKI_HOOK_SERVER: "off",
      },
    );
    expect(run.status, run.output).toBe(0);
    // Gemini CLI's own record of the session: the prompt carries our block.
    const chats = join(home, ".gemini", "tmp");
    const chat = readdirSync(chats, { recursive: true })
      .map(String)
      .find((f) => /chats\/session-.*\.jsonl$/.test(f));
    expect(chat, run.output).toBeDefined();
    const transcript = readFileSync(join(chats, chat as string), "utf8");
    expect(transcript).toContain("wiki-recall source=");
    // The session end recorded it: the user's request, the tool call, no client context.
    const folder = join(project, ".llm-wiki", "wiki", "trajectories");
    const [page] = readdirSync(folder);
    const text = readFileSync(join(folder, page as string), "utf8");
    expect(text).toContain("client: gemini");
    expect(text).toContain("- list_directory");
    expect(text).toMatch(/^title: how do we keep the cache/m);
    expect(text).toContain(asked);
    expect(text).not.toContain("hook_context");
    expect(text).not.toContain("session_context");
    expect(text).not.toContain("wiki-recall");
  });
});
