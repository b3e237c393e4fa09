/**
 * `llm-wiki watch` as a person runs it: a real child process with a real
 * file watcher keeps the vault's index current (a page written while it
 * runs becomes recallable without anyone running reindex), a burst of
 * quick writes is indexed in one run (the debounce), a second watcher on the
 * same vault is refused, and SIGTERM stops it cleanly.
 * `--cron` only prints the crontab line, and the MCP server's `wiki_watch`
 * returns the same line without running `crontab` or writing anything.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { StatusResult } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { CLI, runCli } from "./helpers/cli.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { eventually } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const children: ChildProcessWithoutNullStreams[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(clients.splice(0).map((c) => c.close()));
  removeTempDirs();
});

function env(): NodeJS.ProcessEnv {
  const home = makeTempDir("llm-wiki-watch-home-");
  return { HOME: home, WIKI_HOME: home };
}

interface Watcher {
  child: ChildProcessWithoutNullStreams;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

function startWatch(cwd: string, childEnv: NodeJS.ProcessEnv): Watcher {
  const child = spawn(process.execPath, [CLI, "watch"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...childEnv },
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  return { child, out: () => out, err: () => err, exited };
}

describe("llm-wiki watch", () => {
  it("indexes a page written while it runs, refuses a second watcher, stops on SIGTERM", async () => {
    const vault = makeTempVault({
      pages: { "concepts/first": pageText({ type: "concept", title: "First" }, "hello\n") },
    });
    const childEnv = env();
    const cli = (args: string[]) => runCli(args, { cwd: vault.root, env: childEnv });
    const watcher = startWatch(vault.root, childEnv);
    expect(await eventually(() => watcher.err().includes("watching"), 30_000), watcher.err()).toBe(
      true,
    );
    // Its first run indexed what was there.
    expect(await eventually(() => watcher.out().includes("1 page(s) indexed"), 30_000)).toBe(true);

    const second = cli(["watch"]);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain("another llm-wiki watch already keeps this vault's index");
    expect(second.stderr).toContain(`process ${watcher.child.pid}`);

    vault.writePage(
      "concepts/zebra",
      pageText({ type: "concept", title: "Zebra crossing" }, "quuxfrobnicate striped road\n"),
    );
    // Status never indexes: only the watcher can make the index ready with both pages.
    const indexed = await eventually(() => {
      const status = JSON.parse(cli(["status", "--json"]).stdout) as StatusResult;
      return status.vault?.index.state === "ready" && status.vault.index.documents === 2;
    }, 120_000);
    expect(indexed, watcher.out() + watcher.err()).toBe(true);
    const recall = cli(["recall", "quuxfrobnicate", "--json"]);
    expect(recall.status).toBe(0);
    expect(JSON.parse(recall.stdout).results[0]?.id).toBe("concepts/zebra");

    watcher.child.kill("SIGTERM");
    expect(await watcher.exited).toBe(0);
    expect(watcher.err()).not.toContain("Error");
    expect(existsSync(join(vault.paths.meta, "watch.lock"))).toBe(false);

    // Once stopped, the vault may be watched again.
    const again = startWatch(vault.root, childEnv);
    expect(await eventually(() => again.err().includes("watching"), 30_000)).toBe(true);
    again.child.kill("SIGINT");
    expect(await again.exited).toBe(0);
  });

  it("indexes a burst of quick writes in one run", async () => {
    const vault = makeTempVault({
      pages: { "concepts/first": pageText({ type: "concept", title: "First" }, "hello\n") },
    });
    const watcher = startWatch(vault.root, env());
    // One line per run: "<vault>: <what> in <n> ms (index …)".
    const runs = () =>
      watcher
        .out()
        .split("\n")
        .filter((l) => / in \d+ ms \(index /.test(l));
    const indexed = (lines: string[]) =>
      lines.reduce((n, l) => n + Number(/ (\d+) page\(s\) indexed/.exec(l)?.[1] ?? 0), 0);
    expect(await eventually(() => runs().length === 1, 30_000), watcher.err()).toBe(true);

    // Writes a few tens of milliseconds apart: each lands well inside the
    // quiet period the watcher waits for, yet in an event-loop turn of its own.
    const count = randomInt(3, 7);
    for (let i = 0; i < count; i++) {
      const word = randomWord(8, 12);
      vault.writePage(
        `concepts/${word}`,
        pageText({ type: "concept", title: `${word} ${i}` }, `${randomWords(6)}\n`),
      );
      await sleep(30);
    }
    const burstRuns = () => runs().slice(1);
    expect(await eventually(() => indexed(burstRuns()) >= count, 30_000), watcher.out()).toBe(true);
    // Long past the debounce: a second run, had there been one, has printed.
    await sleep(1_500);
    expect(burstRuns(), watcher.out()).toHaveLength(1);
    expect(indexed(burstRuns())).toBe(count);

    watcher.child.kill("SIGTERM");
    expect(await watcher.exited).toBe(0);
  });

  it("refuses without a vault", () => {
    const dir = join(makeTempDir("llm-wiki-watch-none-"), "empty");
    mkdirSync(dir);
    const out = runCli(["watch"], { cwd: dir, env: env() });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain("llm-wiki init");
  });
});

describe("llm-wiki watch --cron", () => {
  it("prints the crontab line for the full cycle and installs nothing", () => {
    const root = join(makeTempDir("llm-wiki-watch-cron-"), "it's 100%");
    mkdirSync(root);
    makeTempVault({ root });
    const out = runCli(["watch", "--cron", "weekly", "--json"], { cwd: root, env: env() });
    expect(out.status, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as { line: string; installed: boolean; schedule: string };
    expect(result.installed).toBe(false);
    expect(result.schedule).toBe("0 9 * * 1");
    expect(result.line).toMatch(
      /^0 9 \* \* 1 \/bin\/bash -lc '.*' >> '.*' 2>&1 # llm-wiki-autoupdate$/,
    );
    // What cron hands the shell (`\%` back to `%`), read by a real shell: the
    // cycle's three commands, each naming the vault as one argument.
    const word = /^0 9 \* \* 1 \/bin\/bash -lc (.*) >> /.exec(result.line)?.[1] ?? "";
    const cycle = spawnSync("bash", ["-c", `printf '%s' ${word.replace(/\\%/g, "%")}`], {
      encoding: "utf8",
    }).stdout;
    const args = spawnSync("bash", ["-c", cycle.replace(/llm-wiki /g, "printf '%s\\n' ")], {
      encoding: "utf8",
    }).stdout;
    expect(args.split("\n").filter(Boolean)).toEqual([
      ...["reindex", "--vault", root],
      ...["lint", "--vault", root],
      ...["digest", "--period", "weekly", "--vault", root],
    ]);
    const text = runCli(["watch", "--cron", "hourly"], { cwd: root, env: env() });
    expect(text.stdout).toContain("0 * * * * /bin/bash -lc");
    expect(text.stdout).toContain("nothing was installed");
    expect(runCli(["watch", "--cron", "monthly"], { cwd: root, env: env() }).status).toBe(2);
  });
});

describe("wiki_watch over MCP", () => {
  it("returns the crontab line the CLI prints, and runs no crontab", async () => {
    const root = join(makeTempDir("llm-wiki-watch-mcp-"), `${randomWord()}'s 50% ${randomWord()}`);
    mkdirSync(root);
    makeTempVault({ root });
    const home = makeTempDir("llm-wiki-watch-mcp-home-");
    // A crontab that leaves a mark if anyone runs it.
    const bin = makeTempDir("llm-wiki-watch-mcp-bin-");
    const mark = join(home, "crontab-was-run");
    writeFileSync(join(bin, "crontab"), `#!/bin/sh\necho "$@" >> '${mark}'\n`);
    chmodSync(join(bin, "crontab"), 0o755);
    const childEnv = { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", root],
      cwd: root,
      env: { PATH: `${bin}:${process.env.PATH ?? ""}`, ...childEnv },
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);

    const result = (await client.callTool({
      name: "wiki_watch",
      arguments: { interval: "weekly" },
    })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    const cli = runCli(["watch", "--cron", "weekly", "--json"], { cwd: root, env: childEnv });
    const expected = JSON.parse(cli.stdout) as { line: string };
    expect(result.structuredContent).toMatchObject({
      ok: true,
      installed: false,
      interval: "weekly",
      schedule: "0 9 * * 1",
      line: expected.line,
    });
    expect(expected.line).toMatch(/ # llm-wiki-autoupdate$/);
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text).toContain(expected.line);
    expect(text).toContain("nothing was installed");
    expect(existsSync(mark)).toBe(false);
  });
});
