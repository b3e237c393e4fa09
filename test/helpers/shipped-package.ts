/**
 * The package as it ships, for the smoke specs: how to run its two bins and
 * the folder Pi loads it from. Made either by staging the package's files
 * with a fresh `dist/` (staged-package.ts) or by packing and installing it
 * with npm (installed-package.ts); the same smoke spec runs against both.
 */
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** A bin as a user's shell runs it: a command and the arguments before the user's own. */
export interface BinCommand {
  command: string;
  args: string[];
}

export interface ShippedPackage {
  /** What this package is (in test names): "dist" or "installed tarball". */
  label: string;
  /** `llm-wiki`. */
  llmWiki: BinCommand;
  /** `llm-wiki-mcp`. */
  mcp: BinCommand;
  /** The package's folder, under a `node_modules/`, as Pi loads an installed package. */
  packageDir: string;
}

export interface BinRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface BinOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text written to the child's stdin (default: none, stdin closed). */
  input?: string;
  /** Milliseconds before the child is killed: a hang guard (default 120 s). */
  timeout?: number;
}

/**
 * Runs `bin args…` to completion without blocking this process, so a server
 * the test runs here (a loopback site for `capture --url`) keeps answering.
 */
export function runBin(bin: BinCommand, args: string[], options: BinOptions): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin.command, [...bin.args, ...args], {
      cwd: options.cwd,
      env: options.env,
      timeout: options.timeout ?? 120_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** An MCP client connected over stdio to the shipped server `bin` for `vault`. */
export async function connectBin(
  bin: BinCommand,
  vault: string,
  env: NodeJS.ProcessEnv,
  name: string,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: bin.command,
    args: [...bin.args, "--vault", vault],
    cwd: vault,
    env: Object.fromEntries(
      Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    stderr: "pipe",
  });
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(transport);
  return client;
}
