/**
 * The real coding-agent CLIs from npm, at exact versions, installed once into
 * `.cache/clients/<name>-<version>/` and kept there across runs (a later
 * run finds the ready mark and installs nothing). Lean installs: Gemini CLI
 * runs without its optional packages; Claude Code and Codex ship their
 * native program as the one optional package for this platform, so those
 * keep optional packages but run no install scripts (Claude Code's own
 * script, which only places its native binary, is run by hand).
 *
 * The downloads take time and space, so this runs where CI runs
 * (`CI=true`) or when asked (`LLM_WIKI_TEST_CLIENTS=1`).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");

export const clientsWanted = process.env.CI === "true" || process.env.LLM_WIKI_TEST_CLIENTS === "1";

interface ClientSpec {
  spec: string;
  bin: string;
  flags: string[];
  /** A script of the package to run after install (in place of npm's install scripts). */
  script?: string;
}

export const CLIENTS = {
  claude: {
    spec: "@anthropic-ai/claude-code@2.1.332",
    bin: "claude",
    flags: ["--ignore-scripts"],
    script: "node_modules/@anthropic-ai/claude-code/install.cjs",
  },
  codex: { spec: "@openai/codex@0.171.0", bin: "codex", flags: ["--ignore-scripts"] },
  gemini: {
    spec: "@google/gemini-cli@0.61.0",
    bin: "gemini",
    flags: ["--omit=optional", "--ignore-scripts"],
  },
} as const satisfies Record<string, ClientSpec>;

export type ClientName = keyof typeof CLIENTS;

export interface InstalledClient {
  /** The client's program. */
  bin: string;
  /** Seconds this run spent installing (0 when the cache had it). */
  seconds: number;
  /** `node_modules` size in MB, as `du` counts it. */
  megabytes: number;
}

function run(command: string, args: string[], cwd: string): void {
  const out = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: 600_000,
    env: process.env,
  });
  if (out.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${out.status}:\n${(out.stderr ?? "").slice(-2000)}`,
    );
  }
}

/** Installs `name` into the cache unless it is there already. */
export function installClient(name: ClientName): InstalledClient {
  const client: ClientSpec = CLIENTS[name];
  const dir = join(REPO, ".cache", "clients", client.spec.replace(/[@/]/g, "_"));
  const ready = join(dir, "ready.json");
  const bin = join(dir, "node_modules", ".bin", client.bin);
  if (existsSync(ready) && existsSync(bin)) {
    const saved = JSON.parse(readFileSync(ready, "utf8")) as { megabytes: number };
    return { bin, seconds: 0, megabytes: saved.megabytes };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
  const start = performance.now();
  run("npm", ["install", "--no-audit", "--no-fund", ...client.flags, client.spec], dir);
  if (client.script) run(process.execPath, [client.script], dir);
  const seconds = Math.round((performance.now() - start) / 100) / 10;
  const du = spawnSync("du", ["-sm", join(dir, "node_modules")], { encoding: "utf8" });
  const megabytes = Number.parseInt(du.stdout ?? "0", 10) || 0;
  writeFileSync(ready, `${JSON.stringify({ spec: client.spec, seconds, megabytes })}\n`);
  return { bin, seconds, megabytes };
}
