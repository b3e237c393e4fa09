/**
 * The vault's one index lock (`meta/index.lock`), shared by every process that
 * writes the index: a dead holder's lock is taken over, a live holder makes
 * the next caller wait within a bound and then get `index_busy`, and
 * concurrent reindex processes on one vault all finish with a consistent
 * index. Holders and rivals are real child processes.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { indexLayout, readCurrent } from "../extensions/llm-wiki/lib/index/layout.ts";
import { acquireLock } from "../extensions/llm-wiki/lib/index/lock.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
// The bundled CLI, as shipped: it starts about three times faster than the sources.
import { CLI } from "./helpers/cli.ts";
import { childEnv, closeServices, indexStatus, serviceFor } from "./helpers/index-services.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const LOCK_MODULE = join(REPO, "extensions", "llm-wiki", "lib", "index", "lock.ts");
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  await closeServices();
  removeTempDirs();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts a child; `exited` resolves with its output once it ends. */
function start(args: string[]): { child: ChildProcess; exited: Promise<Exit> } {
  const child = spawn(process.execPath, args, { env: childEnv(), stdio: "pipe" });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exited };
}

/** Resolves once the child has written `text` to stdout (rejects if it ends first). */
function waitForOutput(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer | string) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.on("close", () => reject(new Error(`child ended before printing "${text}"`)));
  });
}

/**
 * A child process that takes the lock at `path` and holds it until a line
 * arrives on its stdin, then releases it and exits.
 */
async function holdLockInChild(path: string, op: string): Promise<{ child: ChildProcess }> {
  const script = `
    const [lockModule, path, op] = process.argv.slice(1);
    const { acquireLock } = await import(lockModule);
    const lock = await acquireLock(path, { op, waitMs: 0 });
    process.stdout.write("locked\\n");
    process.stdin.once("data", () => {
      lock.release();
      process.exit(0);
    });
  `;
  const { child } = start(["--input-type=module", "-e", script, LOCK_MODULE, path, op]);
  await waitForOutput(child, "locked\n");
  return { child };
}

/** The id of a process that has exited and been reaped. */
function deadPid(): number {
  const out = spawnSync(process.execPath, ["-e", ""]);
  expect(out.status).toBe(0);
  return out.pid;
}

function writeLock(vault: TempVault, owner: Record<string, unknown> | string): void {
  mkdirSync(vault.paths.meta, { recursive: true });
  writeFileSync(
    indexLayout(vault.paths).lock,
    typeof owner === "string" ? owner : `${JSON.stringify(owner)}\n`,
  );
}

function smallVault(): TempVault {
  return makeTempVault({
    pages: {
      "concepts/alpha": pageText({ type: "concept", title: "Alpha" }, "The zephyr wind.\n"),
      "sources/beta": pageText({ type: "source", title: "Beta" }, "A narwhal in the harbour.\n"),
    },
  });
}

/** Resolves once `ready()` holds (polling); rejects if `child` ends first. */
async function until(ready: () => boolean, child: ChildProcess): Promise<void> {
  while (!ready()) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error("child ended before the awaited condition held");
    }
    await sleep(20);
  }
}

/** Generation and staging folders of the vault's index. */
function generations(vault: TempVault): string[] {
  const { root } = indexLayout(vault.paths);
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((n) => /^(gen|staging)-/.test(n));
}

/** One live generation, nothing left over, no lock held. */
function expectConsistent(vault: TempVault, documents: number): void {
  const layout = indexLayout(vault.paths);
  const live = readCurrent(layout);
  expect(live).toBeDefined();
  expect(generations(vault)).toEqual([live]);
  expect(existsSync(layout.journal)).toBe(false);
  expect(existsSync(layout.lock)).toBe(false);
  const stray = [...snapshotFiles(vault.paths.meta).keys()].filter(
    (rel) => rel.includes(".tmp-") || rel.includes(".stale-"),
  );
  expect(stray).toEqual([]);
  expect(indexStatus(serviceFor(vault.root))).toMatchObject({
    state: "ready",
    documents,
    pending: 0,
  });
}

async function recalled(service: WikiService, query: string): Promise<string[]> {
  const result = await service.recall({ query, mode: "lexical" });
  return result.results.map((r) => r.id);
}

describe("taking over a dead holder's lock", () => {
  it("proceeds at once past a lock whose process on this machine is gone", async () => {
    const vault = smallVault();
    const pid = deadPid();
    writeLock(vault, {
      pid,
      host: hostname(),
      op: "reindex all",
      startedAt: new Date().toISOString(),
    });

    // No waiting allowed: a dead holder is not a reason to wait.
    const result = await serviceFor(vault.root).reindex({ lockWaitMs: 0 });

    expect(result.ok).toBe(true);
    expect(result.reports[0]?.diagnostics).toEqual([]);
    expectConsistent(vault, 2);
  });

  it.each([
    ["empty", ""],
    ["not JSON", "garbage\n"],
    ["JSON without a pid", '{"host":"x"}\n'],
  ])("takes over a lock file whose content is unreadable (%s)", async (_, content) => {
    const vault = smallVault();
    writeLock(vault, content);

    const result = await serviceFor(vault.root).reindex({ lockWaitMs: 0 });

    expect(result.ok).toBe(true);
    expectConsistent(vault, 2);
  });

  it("respects a fresh lock from another machine, and takes over one over an hour old", async () => {
    const vault = smallVault();
    const owner = { pid: 4242, host: `${hostname()}-elsewhere`, op: "reindex all" };
    writeLock(vault, { ...owner, startedAt: new Date().toISOString() });
    const service = serviceFor(vault.root);

    const busy = await service.reindex({ lockWaitMs: 50 });
    expect(busy.ok).toBe(false);
    expect(busy.reports[0]?.diagnostics.map((d) => d.code)).toEqual(["index_busy"]);
    expect(readCurrent(indexLayout(vault.paths))).toBeUndefined();

    writeLock(vault, { ...owner, startedAt: new Date(Date.now() - 2 * 3600_000).toISOString() });
    const result = await service.reindex({ lockWaitMs: 0 });
    expect(result.ok).toBe(true);
    expectConsistent(vault, 2);
  });
});

describe("a live holder", () => {
  it("makes a reindex wait out its bound, then report index_busy; released, the reindex works", async () => {
    const vault = smallVault();
    const lock = await acquireLock(indexLayout(vault.paths).lock, { op: "test holder" });
    const service = serviceFor(vault.root);

    const started = Date.now();
    const busy = await service.reindex({ lockWaitMs: 300 });
    const waited = Date.now() - started;

    expect(busy.ok).toBe(false);
    const [diag, ...more] = busy.reports[0]?.diagnostics ?? [];
    expect(more).toEqual([]);
    expect(diag).toMatchObject({
      code: "index_busy",
      severity: "error",
      repair: "wait for it to finish, then run the command again",
    });
    expect(diag?.message).toContain(`process ${process.pid} is running "test holder"`);
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(readCurrent(indexLayout(vault.paths))).toBeUndefined();
    expect(indexStatus(service).state).toBe("missing");

    lock.release();
    const result = await service.reindex({ lockWaitMs: 0 });
    expect(result.ok).toBe(true);
    expectConsistent(vault, 2);
  });

  it("in another process: busy while it lives; once it is killed, the lock is taken over", async () => {
    const vault = smallVault();
    const layout = indexLayout(vault.paths);
    const { child } = await holdLockInChild(layout.lock, "holder process");
    const service = serviceFor(vault.root);

    const busy = await service.reindex({ lockWaitMs: 200 });
    expect(busy.ok).toBe(false);
    expect(busy.reports[0]?.diagnostics[0]?.message).toContain(
      `process ${child.pid} is running "holder process"`,
    );

    const gone = new Promise((resolve) => child.once("close", resolve));
    child.kill("SIGKILL");
    await gone;
    expect(JSON.parse(readFileSync(layout.lock, "utf8"))).toMatchObject({ pid: child.pid });

    const result = await service.reindex({ lockWaitMs: 0 });
    expect(result.ok).toBe(true);
    expectConsistent(vault, 2);
  });

  it("makes a caller wait within its bound and proceed as soon as it releases", async () => {
    const vault = smallVault();
    const { child } = await holdLockInChild(indexLayout(vault.paths).lock, "holder process");
    const service = serviceFor(vault.root);

    let settled = false;
    const pending = service.reindex({ lockWaitMs: 30_000 }).finally(() => {
      settled = true;
    });
    await sleep(300);
    expect(settled).toBe(false);
    child.stdin?.write("release\n");
    const result = await pending;

    expect(result.ok).toBe(true);
    expect(result.reports[0]?.action).toBe("rebuild");
    expectConsistent(vault, 2);
  });

  it("makes the CLI in another process wait for the lock held here, then finish", async () => {
    const vault = smallVault();
    const lock = await acquireLock(indexLayout(vault.paths).lock, { op: "test holder" });

    expect(existsSync(vault.paths.backlinks)).toBe(false);

    const { child, exited } = start([CLI, "reindex", "--vault", vault.root, "--json"]);
    // The CLI finds the lock held and refreshes the registry (writing
    // backlinks.json) before it waits: once that file is there, the child has reached it.
    await until(() => existsSync(vault.paths.backlinks), child);
    // Time in which a CLI that ignored the lock would have built (and exited):
    // this one is still running, and has started no generation or staging folder.
    await sleep(300);
    expect(child.exitCode).toBeNull();
    expect(generations(vault)).toEqual([]);
    lock.release();
    const out = await exited;

    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, reports: [{ action: "rebuild" }] });
    expectConsistent(vault, 2);
  });
});

describe("concurrent processes on one vault", () => {
  it("two concurrent `reindex --all` processes both exit cleanly and leave one consistent index", async () => {
    const vault = smallVault();

    const runs = await Promise.all(
      [1, 2].map(() => start([CLI, "reindex", "--all", "--vault", vault.root, "--json"]).exited),
    );

    for (const run of runs) {
      expect(run.signal).toBeNull();
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        ok: true,
        reports: [{ action: "rebuild", status: { state: "ready", documents: 2 } }],
      });
    }
    expectConsistent(vault, 2);
    expect(await recalled(serviceFor(vault.root), "narwhal")).toEqual(["sources/beta"]);
  });

  it("rebuilds and incremental updates racing past a dead holder's lock all finish consistently", async () => {
    const vault = smallVault();
    const first = await serviceFor(vault.root).reindex();
    expect(first.ok).toBe(true);
    vault.writePage(
      "concepts/delta",
      pageText({ type: "concept", title: "Delta" }, "An axolotl in the pond.\n"),
    );
    writeLock(vault, {
      pid: deadPid(),
      host: hostname(),
      op: "reindex all",
      startedAt: new Date().toISOString(),
    });

    const runs = await Promise.all(
      [["reindex", "--all"], ["reindex"], ["reindex", "--all"], ["reindex"]].map(
        (args) => start([CLI, ...args, "--vault", vault.root, "--json"]).exited,
      ),
    );

    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
    }
    expectConsistent(vault, 3);
    const service = serviceFor(vault.root);
    expect(await recalled(service, "axolotl")).toEqual(["concepts/delta"]);
    expect(await recalled(service, "zephyr")).toEqual(["concepts/alpha"]);
  });

  it("never lets two processes hold the lock at once, even when they race to take over a dead one", async () => {
    const vault = smallVault();
    const layout = indexLayout(vault.paths);
    writeLock(vault, {
      pid: deadPid(),
      host: hostname(),
      op: "reindex all",
      startedAt: new Date().toISOString(),
    });
    const log = join(makeTempDir("llm-wiki-log-"), "holders.log");
    appendFileSync(log, "");
    // Each worker takes the lock three times and logs entering and leaving.
    const script = `
      import { appendFileSync } from "node:fs";
      import { setTimeout as sleep } from "node:timers/promises";
      const [lockModule, path, log] = process.argv.slice(1);
      const { acquireLock } = await import(lockModule);
      for (let i = 0; i < 3; i++) {
        const lock = await acquireLock(path, { op: "worker", waitMs: 30000, pollMs: 5 });
        appendFileSync(log, "in " + process.pid + "\\n");
        await sleep(20);
        appendFileSync(log, "out " + process.pid + "\\n");
        lock.release();
      }
    `;
    const runs = await Promise.all(
      [1, 2, 3, 4].map(
        () => start(["--input-type=module", "-e", script, LOCK_MODULE, layout.lock, log]).exited,
      ),
    );

    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(4 * 3 * 2);
    for (let i = 0; i < lines.length; i += 2) {
      const holder = lines[i]?.replace(/^in /, "");
      expect(lines[i], `line ${i}`).toBe(`in ${holder}`);
      expect(lines[i + 1], `line ${i + 1}`).toBe(`out ${holder}`);
    }
    expect(existsSync(layout.lock)).toBe(false);
  });
});
