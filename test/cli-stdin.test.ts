/**
 * `-` as a text value means standard input, read to its end whatever its
 * speed: a writer that sends its text in chunks with pauses between them (a
 * pipe from a slow program) gets all of it stored, never an EAGAIN.
 */
import { spawn } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCli } from "./helpers/cli.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

interface SlowRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Turns the child's stdin non-blocking before the CLI runs, as it is when
 * stdin is shared with a program that opened it non-blocking: a read then
 * finds "no data yet" (EAGAIN) between a slow writer's chunks instead of
 * waiting for them.
 */
const NON_BLOCKING_STDIN = "data:text/javascript,process.stdin.pause()";

/** Runs the CLI with `chunks` written to its stdin one at a time, a pause before each. */
async function runWithSlowStdin(
  args: string[],
  cwd: string,
  chunks: string[],
  env: NodeJS.ProcessEnv,
): Promise<SlowRun> {
  const child = spawn(process.execPath, ["--import", NON_BLOCKING_STDIN, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  // A hang is a failure too: the child is killed well before the test's own limit.
  const guard = setTimeout(() => child.kill("SIGKILL"), 50_000);
  try {
    for (const [i, chunk] of chunks.entries()) {
      // The first pause outlasts the CLI's start, so its first read finds no
      // text yet; later ones only need it back at an empty pipe, which a
      // reader that loops on its reads is within milliseconds.
      await sleep(i === 0 ? randomInt(400, 800) : randomInt(40, 120));
      // Gone already (it failed on the first empty read): the assertions say so.
      if (child.exitCode === null) child.stdin.write(chunk);
    }
    child.stdin.end();
    return { status: await exited, stdout, stderr };
  } finally {
    clearTimeout(guard);
  }
}

/** Random words (letters only, so no page rule ever rejects them) in `n` chunks. */
function randomChunks(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: randomInt(3, 12) }, () =>
      randomBytes(randomInt(3, 9))
        .toString("hex")
        .replace(/[0-9]/g, (d) => "ghijklmnop"[Number(d)] ?? "x"),
    );
    return `chunk${i} ${words.join(" ")}\n`;
  });
}

function project(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = join(makeTempDir("llm-wiki-stdin-"), "project");
  mkdirSync(dir, { recursive: true });
  const env = { HOME: join(dir, ".."), WIKI_HOME: join(dir, "..", "personal") };
  expect(runCli(["init"], { cwd: dir, env }).status).toBe(0);
  return { dir, env };
}

describe("standard input as a text value", () => {
  it("page --content - stores every chunk of a slow pipe", async () => {
    const { dir, env } = project();
    const chunks = randomChunks(randomInt(6, 9));
    const run = await runWithSlowStdin(
      ["page", "--type", "concept", "--title", "Slow pipe", "--content", "-", "--json"],
      dir,
      chunks,
      env,
    );
    expect(run.stderr).not.toMatch(/EAGAIN/);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, created: true });
    const page = readFileSync(join(dir, ".llm-wiki", "wiki", "concepts", "slow-pipe.md"), "utf8");
    expect(page).toContain(chunks.join("").trim());
  });

  it("capture --text - keeps the whole slow input in the source", async () => {
    const { dir, env } = project();
    const chunks = randomChunks(randomInt(6, 9));
    const run = await runWithSlowStdin(
      ["capture", "--title", "Slow notes", "--text", "-", "--json"],
      dir,
      chunks,
      env,
    );
    expect(run.stderr).not.toMatch(/EAGAIN/);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
    const sources = join(dir, ".llm-wiki", "raw", "sources");
    const stored = readdirSync(sources, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
      .join("\n");
    for (const chunk of chunks) expect(stored).toContain(chunk.trim());
  });

  it("a value of - for an option that takes no text is left as it is", () => {
    const { dir, env } = project();
    // `--part -` is not a text: a usage error at once, without waiting for input.
    const run = runCli(["ingest", "--part", "-"], { cwd: dir, env, input: "" });
    expect(run.status).toBe(2);
  });
});
