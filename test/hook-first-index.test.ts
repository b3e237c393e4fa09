/**
 * The first hook on a fresh clone, whose index (`meta/`) is gitignored:
 * through the bundled bin as npm installs it, Claude Code's hook input on
 * stdin. An ordinary vault is indexed within the hook, which answers; a
 * vault past the hook's bound has its build started in the background, and
 * the hook says so (stderr, and the session's context) — never silence.
 * Once that build is done the next hook answers with recall; two hooks at
 * once start one build. A small vault whose index lock another process
 * holds (the MCP server a client starts beside its session-start hook,
 * building the same fresh index) is waited for, not answered from no index.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INLINE_MAX_PAGES } from "../cli/hook-index.ts";
import { acquireLock } from "../extensions/llm-wiki/lib/index/lock.ts";
import { childEnv } from "./helpers/index-services.ts";
import { randomWords } from "./helpers/random-text.ts";
import { type StagedPackage, stagePackage } from "./helpers/staged-package.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const ASKED = "how do we keep the cache consistent after a note changes";

let staged: StagedPackage | undefined;
let base: string;

beforeAll(async () => {
  staged = await stagePackage();
  base = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-first-hook-")));
}, 300_000);

afterAll(() => {
  staged?.remove();
  rmSync(base, { recursive: true, force: true });
});

/** A fresh clone of the example project: pages, config, no `meta/`. */
function freshClone(name: string, extraPages = 0): string {
  const root = join(base, name);
  cpSync(EXAMPLE, root, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  const dir = join(root, ".llm-wiki", "wiki", "concepts");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < extraPages; i += 1) {
    writeFileSync(
      join(dir, `filler-${i}.md`),
      `---\ntitle: Filler ${i}\ntype: concept\n---\n# Filler ${i}\n\n${randomWords(80)}\n`,
    );
  }
  return root;
}

function input(kind: "session-start" | "user-prompt", cwd: string): string {
  const session = randomUUID();
  return JSON.stringify(
    kind === "session-start"
      ? { session_id: session, cwd, hook_event_name: "SessionStart", source: "startup" }
      : { session_id: session, cwd, hook_event_name: "UserPromptSubmit", prompt: ASKED },
  );
}

function bin(): { command: string; args: string[] } {
  if (!staged) throw new Error("the package is staged in beforeAll");
  return staged.llmWiki;
}

/** One hook run to completion, as Claude Code runs it (the project as working directory). */
function runHook(kind: "session-start" | "user-prompt", root: string, env: NodeJS.ProcessEnv) {
  const { command, args } = bin();
  return spawnSync(command, [...args, "hook", kind], {
    cwd: root,
    env,
    input: input(kind, root),
    encoding: "utf8",
    timeout: 120_000,
  });
}

/** The same, without blocking: two of these run at once. */
function startHook(kind: "session-start" | "user-prompt", root: string, env: NodeJS.ProcessEnv) {
  const { command, args } = bin();
  const child = spawn(command, [...args, "hook", kind], { cwd: root, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(input(kind, root));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) =>
    child.on("close", (status) => done({ status, stdout, stderr })),
  );
}

const generations = (root: string) => {
  const dir = join(root, ".llm-wiki", "meta", "qmd");
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith("gen-")) : [];
};

/** Waits until the background build has swapped in its generation and let go of the lock. */
async function builtInBackground(root: string): Promise<void> {
  const lock = join(root, ".llm-wiki", "meta", "index.lock");
  for (;;) {
    if (existsSync(join(root, ".llm-wiki", "meta", "qmd", "LIVE")) && !existsSync(lock)) return;
    await sleep(200);
  }
}

describe("the first hook on a vault with no index", () => {
  it("indexes an ordinary vault within the hook and answers", () => {
    const root = freshClone("ordinary");
    const env = { ...childEnv(), HOME: base };
    const start = runHook("session-start", root, env);
    expect(start.status).toBe(0);
    expect(start.stdout).toContain("<wiki-");
    expect(start.stdout).not.toContain("being built");
    expect(generations(root)).toHaveLength(1);
    const prompt = runHook("user-prompt", root, env);
    expect(prompt.status).toBe(0);
    expect(prompt.stdout).toContain("concepts/cache-invalidation");
  });

  it("waits for another process's hold on a small vault's index lock, then primes from the index", async () => {
    const root = freshClone("held");
    const env = { ...childEnv(), HOME: base };
    // This process stands for the MCP server: it holds the lock while the hook starts.
    const lock = await acquireLock(join(root, ".llm-wiki", "meta", "index.lock"), {
      op: "reindex",
    });
    const start = startHook("session-start", root, env);
    // Released before the hook's wait (4 s from when it finds the lock held) runs out.
    await sleep(3000);
    lock.release();
    const primed = await start;
    expect(primed.status).toBe(0);
    expect(primed.stdout).toContain("<wiki-recall");
    expect(primed.stdout).not.toContain("being built");
    expect(generations(root)).toHaveLength(1);
  });

  it("starts a large vault's build in the background, says so, and answers once it is done", async () => {
    const root = freshClone("large", INLINE_MAX_PAGES + 20);
    const env = { ...childEnv(), HOME: base };
    const start = runHook("session-start", root, env);
    expect(start.status).toBe(0);
    expect(start.stderr).toMatch(/search index of .* is being built/);
    // One line in the session's context, so the model can tell the user.
    const notice = start.stdout.split("\n").filter((l) => l.includes("being built"));
    expect(notice).toHaveLength(1);
    await builtInBackground(root);
    const prompt = runHook("user-prompt", root, env);
    expect(prompt.status).toBe(0);
    expect(prompt.stdout).toContain("concepts/cache-invalidation");
    expect(prompt.stderr).not.toContain("being built");
  }, 300_000);

  it("two hooks at once start one build, and neither stays silent", async () => {
    const root = freshClone("twice", INLINE_MAX_PAGES + 20);
    const env = { ...childEnv(), HOME: base };
    const runs = await Promise.all([
      startHook("user-prompt", root, env),
      startHook("user-prompt", root, env),
    ]);
    for (const run of runs) {
      expect(run.status).toBe(0);
      expect(run.stdout !== "" || /being built/.test(run.stderr)).toBe(true);
    }
    await builtInBackground(root);
    expect(generations(root)).toHaveLength(1);
    expect(runHook("user-prompt", root, env).stdout).toContain("concepts/cache-invalidation");
  }, 300_000);
});
