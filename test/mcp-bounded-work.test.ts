/**
 * No request holds the MCP server's event loop for long. Two hundred mixed
 * calls sent at once (recall, lint, reindex, capture) start one per turn of
 * the loop, so a ping sent behind them is answered before most of them, and
 * a SIGTERM or the end of standard input ends the process with the queued
 * calls never started (after the end of input, each answered so); a long
 * PDF capture hands the loop back between pages, and a lint or an OKF
 * export between slices of its work, so a ping is answered while any of
 * them runs and a SIGTERM ends it (a cancelled lint stops; a cancelled
 * export leaves its folder as it was). The assertions are about order and
 * outcome; the times are logged, not asserted (the machine is shared).
 * Queries, files and signals are drawn afresh on every run.
 */
import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { lintVaults } from "../extensions/llm-wiki/lib/lint/lint.ts";
import { EXPORT_MANIFEST, sha256 } from "../extensions/llm-wiki/lib/okf/okf-export-manifest.ts";
import { makeStaging, STAGING_DIR } from "../extensions/llm-wiki/lib/okf/okf-export-staging.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { createVaultHandles } from "../extensions/llm-wiki/lib/vault-handles.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { writeSyntheticVault } from "../scripts/bench/synthetic-vault.ts";
import {
  answered,
  initializeRequest,
  isolatedEnv,
  type RawServer,
  spawnRawServer,
  type WireMessage,
} from "./helpers/mcp-child.ts";
import { makePdf } from "./helpers/pdf-fixture.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

/** Fails a test whose server does not exit; generous, since the machine is shared. */
const EXIT_GUARD_MS = 20_000;
const CALLS = 200;

const started: RawServer[] = [];
afterEach(() => {
  for (const s of started.splice(0)) if (s.child.exitCode === null) s.child.kill("SIGKILL");
});
afterAll(removeTempDirs);

/** A server on `vault` whose home (where captured files may be read from) is `env.HOME`. */
async function serve(vault: string, env: Record<string, string>): Promise<RawServer> {
  const server = spawnRawServer(vault, env);
  started.push(server);
  await server.send(initializeRequest("init"));
  await server.waitFor(answered("init"));
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return server;
}

function call(id: string, name: string, args: object): object {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

function answeredCalls(messages: WireMessage[]): number {
  return messages.filter((m) => typeof m.id === "string" && m.id.startsWith("call-")).length;
}

/** Index of the answer to `id` among the messages, or -1. */
function answerAt(messages: WireMessage[], id: string): number {
  return messages.findIndex((m) => m.id === id && (m.result || m.error));
}

async function exitOf(server: RawServer, why: string): Promise<number | string> {
  const begun = performance.now();
  const code = await Promise.race([
    server.exited(),
    new Promise<string>((resolve) => setTimeout(() => resolve("hung"), EXIT_GUARD_MS).unref()),
  ]);
  // Logged, not asserted: the machine is shared.
  console.info(`${why}: exited (${code}) after ${Math.round(performance.now() - begun)} ms`);
  return code;
}

/** A PDF of `pages` pages of random text: long to read, under the capture's text bound. */
function longPdf(pages: number): Buffer {
  return makePdf({
    pages: Array.from({ length: pages }, () =>
      Array.from({ length: 8 }, () => randomWords(randomInt(3, 6))),
    ),
  });
}

/**
 * A server on `vault` sent `request` and a first ping behind it, returned
 * once that ping is answered: the request started one turn after it was
 * read, so whatever is sent from now on is read while it runs.
 */
async function startedBehindPing(vault: string, request: object): Promise<RawServer> {
  const server = await serve(vault, isolatedEnv());
  const ping = { jsonrpc: "2.0", id: "ping-0", method: "ping" };
  await server.write(`${JSON.stringify(request)}\n${JSON.stringify(ping)}\n`);
  await server.waitFor(answered("ping-0"));
  return server;
}

describe("MCP server: two hundred mixed calls at once", () => {
  let vault: string;

  beforeAll(async () => {
    vault = join(makeTempDir("llm-wiki-bounded-"), "vault");
    writeSyntheticVault(vault, 400);
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    } finally {
      await service.close();
    }
  }, 120_000);

  /** Queues the calls and a ping behind them; resolves once the ping is answered. */
  async function queued(): Promise<RawServer> {
    const env = isolatedEnv();
    const server = await serve(vault, env);
    const note = join(env.HOME ?? "", `${randomWord()}.txt`);
    writeFileSync(note, `${randomWords(200)}\n`);
    const lines: string[] = [];
    for (let i = 0; i < CALLS; i += 1) {
      const kind = i % 4;
      const id = `call-${i}`;
      const message =
        kind === 0
          ? call(id, "wiki_recall", { query: `${randomWord()} cache index` })
          : kind === 1
            ? call(id, "wiki_lint", {})
            : kind === 2
              ? call(id, "wiki_reindex", { scope: "all" })
              : call(id, "wiki_capture_source", { file: note });
      lines.push(JSON.stringify(message));
    }
    // One write: the server reads them all in a chunk or two, as from a hasty client.
    await server.write(
      `${lines.join("\n")}\n${JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" })}\n`,
    );
    await server.waitFor(answered("ping"));
    return server;
  }

  it("answers a ping sent behind them before most of them", async () => {
    const server = await queued();
    expect(answeredCalls(server.messages.slice(0, answerAt(server.messages, "ping")))).toBeLessThan(
      CALLS / 2,
    );
    server.child.kill("SIGKILL");
  });

  /** Captured packets in the shared vault so far. */
  function packets(): number {
    const dir = join(vault, ".llm-wiki", "raw", "sources");
    return existsSync(dir) ? readdirSync(dir).length : 0;
  }

  it("exits on SIGTERM with the queued calls never started", async () => {
    const server = await queued();
    const before = packets();
    server.child.kill("SIGTERM");
    expect(await exitOf(server, `${CALLS} queued calls, SIGTERM`), server.stderr()).toBe(0);
    expect(answeredCalls(server.messages)).toBeLessThan(CALLS / 2);
    // A capture that never started wrote no packet.
    expect(packets() - before).toBeLessThan(CALLS / 8);
    expect(server.stderr()).not.toMatch(/did not finish within/);
  });

  it("at the end of its input answers every call read, most that they never started, and exits", async () => {
    const server = await queued();
    const before = packets();
    server.child.stdin.end();
    expect(await exitOf(server, `${CALLS} queued calls, end of input`), server.stderr()).toBe(0);
    // The client may still be reading: no call it sent goes unanswered.
    expect(answeredCalls(server.messages)).toBe(CALLS);
    const notStarted = server.messages.filter((m) =>
      JSON.stringify(m.result ?? {}).includes("was cancelled before it started"),
    );
    expect(notStarted.length).toBeGreaterThan(CALLS / 2);
    expect(packets() - before).toBeLessThan(CALLS / 8);
    expect(server.stderr()).not.toMatch(/did not finish within/);
  });
});

describe("MCP server: a long PDF capture", () => {
  async function capturing(): Promise<{ server: RawServer; vault: string }> {
    const vault = join(makeTempDir("llm-wiki-bounded-pdf-"), "vault");
    writeSyntheticVault(vault, 5);
    const env = isolatedEnv();
    const file = join(env.HOME ?? "", `${randomWord()}.pdf`);
    writeFileSync(file, longPdf(2_000));
    const server = await serve(vault, env);
    await server.send(call("capture", "wiki_capture_source", { file }));
    // Long enough for pdf.js to be reading pages, far shorter than reading them all.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return { server, vault };
  }

  it("answers a ping while it runs, before the capture's own answer", async () => {
    const { server } = await capturing();
    expect(answered("capture")(server.messages), "the capture ended before the ping").toBe(false);
    await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
    await server.waitFor(answered("capture"), 120_000);
    // The capture itself succeeded: the ping came during real work.
    expect(JSON.stringify(server.messages[answerAt(server.messages, "capture")])).not.toContain(
      "isError",
    );
    const ping = answerAt(server.messages, "ping");
    expect(ping).toBeGreaterThan(-1);
    expect(ping).toBeLessThan(answerAt(server.messages, "capture"));
  });

  it("exits on SIGTERM during it, the capture cancelled and nothing stored", async () => {
    const { server, vault } = await capturing();
    expect(answered("capture")(server.messages)).toBe(false);
    server.child.kill("SIGTERM");
    expect(await exitOf(server, "SIGTERM during a PDF capture"), server.stderr()).toBe(0);
    expect(answered("capture")(server.messages)).toBe(false);
    const packets = join(vault, ".llm-wiki", "raw", "sources");
    expect(existsSync(packets) ? readdirSync(packets) : []).toEqual([]);
  });
});

/** Pages enough that one lint takes far longer than a pipe's round trip and than one slice of it. */
const LINT_PAGES = 1_200;

describe("MCP server: a long lint", () => {
  let vault: string;

  beforeAll(async () => {
    vault = join(makeTempDir("llm-wiki-bounded-lint-"), "vault");
    writeSyntheticVault(vault, LINT_PAGES);
    // Indexed first, so no background build competes with the lints for the machine.
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    } finally {
      await service.close();
    }
  }, 300_000);

  /**
   * Sends a lint and a first ping behind it, and waits for that ping's
   * answer. The lint starts one turn after it was read, before the loop
   * polls its input again: whatever is sent from now on is read while the
   * lint runs (it has far more work than a message's round trip takes), or,
   * were the loop held for the whole lint, only after its answer.
   */
  function linting(): Promise<RawServer> {
    return startedBehindPing(vault, call("lint", "wiki_lint", {}));
  }

  it("answers a ping sent while a lint runs before the lint's own answer", async () => {
    const server = await linting();
    await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
    await server.waitFor(answered("lint"), 120_000);
    const ping = answerAt(server.messages, "ping");
    expect(ping).toBeGreaterThan(-1);
    expect(ping).toBeLessThan(answerAt(server.messages, "lint"));
    // The lint itself went on to the end: the ping came during real work.
    const lint = JSON.stringify(server.messages[answerAt(server.messages, "lint")]);
    expect(lint).toContain("findings");
    expect(lint).not.toContain("operation_cancelled");
    server.child.kill("SIGKILL");
  });

  it("exits on SIGTERM during a lint, the lint cancelled", async () => {
    const server = await linting();
    server.child.kill("SIGTERM");
    expect(await exitOf(server, "SIGTERM during a lint"), server.stderr()).toBe(0);
    // Within the server's own deadline: the lint let go at its next slice.
    expect(server.stderr()).not.toMatch(/did not finish within/);
    // A lint that held the loop to its end would have answered before the signal was seen.
    expect(answered("lint")(server.messages)).toBe(false);
  });
});

describe("lint in slices", () => {
  let vault: string;

  beforeAll(() => {
    vault = join(makeTempDir("llm-wiki-sliced-lint-"), "vault");
    writeSyntheticVault(vault, LINT_PAGES);
  });

  it("hands the loop back while it runs, with the findings of a lint in one go", async () => {
    const env = isolatedEnv();
    const service = createWikiService({ cwd: vault, vault, env });
    const handles = createVaultHandles(resolveModels({}, env));
    try {
      const now = new Date();
      let turns = 0;
      let done = false;
      // Counted until the lint answers: a turn seen meanwhile is one the lint handed back.
      const count = (): void => {
        if (done) return;
        turns += 1;
        setImmediate(count);
      };
      setImmediate(count);
      const result = await service.lint({ now });
      done = true;
      expect(turns).toBeGreaterThan(0);
      // The same answer as the lint that never yields, finding for finding and in order.
      const paths = vaultPaths(vault, "project");
      expect(result).toEqual(lintVaults(handles, [paths], { now }));
      expect(result.vaults[0]?.findings.length).toBeGreaterThan(0);
    } finally {
      await service.close();
      await handles.closeAll();
    }
  });

  it("stops at its next slice when its signal aborts, with operation_cancelled and no report", async () => {
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      const controller = new AbortController();
      const linted = service.lint({ signal: controller.signal });
      // The first slice has run; the abort is seen at the next boundary.
      controller.abort();
      const result = await linted;
      expect(result.ok).toBe(false);
      expect(result.vaults).toEqual([]);
      expect(result.diagnostics.map((d) => d.code)).toEqual(["operation_cancelled"]);
    } finally {
      await service.close();
    }
  });
});

/** Pages enough that one export takes far longer than a pipe's round trip and than one slice of it. */
const EXPORT_PAGES = 1_200;

/** Every entry below `root` (hidden ones too): folders as `rel/`, files as `rel` → their bytes. */
function tree(root: string, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      out.set(`${rel}/`, "");
      for (const [k, v] of tree(root, rel)) out.set(k, v);
    } else out.set(rel, readFileSync(join(root, rel)).toString("base64"));
  }
  return out;
}

/**
 * A vault of `pages` synthetic pages and, inside its project, a previous
 * export of it; then a page added, so the next export would change that
 * folder. Returns the vault and the export's folder.
 */
async function exportedOnce(pages: number): Promise<{ vault: string; dest: string }> {
  const vault = join(makeTempDir("llm-wiki-bounded-okf-"), "vault");
  writeSyntheticVault(vault, pages);
  const dest = join(vault, `okf-${randomWord()}`);
  const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
  try {
    expect((await service.okfExport({ dir: dest })).ok).toBe(true);
  } finally {
    await service.close();
  }
  const title = `${randomWord()} added`;
  writeFileSync(
    join(vault, ".llm-wiki", "wiki", "concepts", `${title.replace(" ", "-")}.md`),
    `---\ntype: concept\ntitle: ${title}\n---\n${randomWords(40)}\n`,
  );
  return { vault, dest };
}

describe("MCP server: a long OKF export", () => {
  let vault: string;
  let dest: string;

  beforeAll(async () => {
    ({ vault, dest } = await exportedOnce(EXPORT_PAGES));
    // Indexed first, so no background build competes with the exports for the machine.
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    } finally {
      await service.close();
    }
  }, 300_000);

  /** Sends an export of the vault to `dir` and a ping behind it, and waits for that ping (see `linting`). */
  function exporting(dir: string): Promise<RawServer> {
    return startedBehindPing(vault, call("export", "wiki_okf_export", { dir }));
  }

  it("answers a ping sent while an export runs before the export's own answer", async () => {
    // A folder of its own: the SIGTERM spec needs the previous export as it is.
    const server = await exporting(join(vault, `okf-${randomWord()}-fresh`));
    await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
    await server.waitFor(answered("export"), 120_000);
    const ping = answerAt(server.messages, "ping");
    expect(ping).toBeGreaterThan(-1);
    expect(ping).toBeLessThan(answerAt(server.messages, "export"));
    // The export itself went on to the end: the ping came during real work.
    const exported = JSON.stringify(server.messages[answerAt(server.messages, "export")]);
    expect(exported).toContain("OKF v0.2 bundle written");
    expect(exported).not.toContain("operation_cancelled");
    server.child.kill("SIGKILL");
  });

  it("exits on SIGTERM during an export, the export cancelled and its folder unchanged", async () => {
    const before = tree(dest);
    const server = await exporting(dest);
    server.child.kill("SIGTERM");
    expect(await exitOf(server, "SIGTERM during an OKF export"), server.stderr()).toBe(0);
    expect(server.stderr()).not.toMatch(/did not finish within/);
    expect(answered("export")(server.messages)).toBe(false);
    // The previous export, byte for byte, and no staging folder left behind.
    expect(tree(dest)).toEqual(before);
  });
});

describe("OKF export and import in slices", () => {
  let vault: string;
  let dest: string;

  beforeAll(async () => {
    ({ vault, dest } = await exportedOnce(EXPORT_PAGES));
  }, 120_000);

  it("hands the loop back while an export runs, and writes every page", async () => {
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      let turns = 0;
      let done = false;
      const count = (): void => {
        if (done) return;
        turns += 1;
        setImmediate(count);
      };
      setImmediate(count);
      const dir = join(vault, `okf-${randomWord()}-fresh`);
      const result = await service.okfExport({ dir });
      done = true;
      expect(turns).toBeGreaterThan(0);
      expect(result.ok).toBe(true);
      expect(result.pages.length).toBe(EXPORT_PAGES + 1);
      expect(existsSync(join(dir, STAGING_DIR))).toBe(false);
    } finally {
      await service.close();
    }
  });

  it("cancelled while staging: its staging folder removed, the previous export or nothing as it was", async () => {
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      for (const dir of [dest, join(vault, `okf-${randomWord()}-new`, "nested")]) {
        const before = existsSync(dir) ? tree(dir) : undefined;
        const controller = new AbortController();
        let staged = false;
        // Aborts at the first turn that finds the staging folder made: the files are being written.
        const watch = (): void => {
          if (controller.signal.aborted) return;
          if (existsSync(join(dir, STAGING_DIR))) {
            staged = true;
            controller.abort();
          } else setImmediate(watch);
        };
        setImmediate(watch);
        const result = await service.okfExport({ dir, signal: controller.signal });
        controller.abort();
        expect(staged).toBe(true);
        expect(result.ok).toBe(false);
        expect(result.diagnostics.map((d) => d.code)).toEqual(["operation_cancelled"]);
        if (before) expect(tree(dir)).toEqual(before);
        // A folder the export made for itself is gone too, its parent with it.
        else expect(existsSync(join(dir, ".."))).toBe(false);
      }
    } finally {
      await service.close();
    }
  });

  it("removes a staging folder an export killed outright left, and refuses one holding a file it does not list", async () => {
    const small = join(makeTempDir("llm-wiki-okf-leftover-"), "vault");
    writeSyntheticVault(small, 5);
    const out = join(small, "bundle");
    const service = createWikiService({ cwd: small, vault: small, env: isolatedEnv() });
    try {
      expect((await service.okfExport({ dir: out })).ok).toBe(true);
      const exported = tree(out);
      const page = "concepts/left.md";
      const text = `${randomWords(12)}\n`;
      // A staging folder holding a file its manifest does not list is someone else's.
      const foreign = makeStaging(out, { [page]: sha256(text) });
      writeFileSync(join(foreign, `${randomWord()}.md`), text);
      const refused = await service.okfExport({ dir: out });
      expect(refused.diagnostics.map((d) => d.code)).toEqual(["okf_export_target_not_empty"]);
      expect(readdirSync(foreign)).toHaveLength(2);
      expect(tree(out).get(EXPORT_MANIFEST)).toBe(exported.get(EXPORT_MANIFEST));

      // As an export killed while staging leaves it: its manifest, then a file it lists.
      const clean = join(small, "bundle-2");
      expect((await service.okfExport({ dir: clean })).ok).toBe(true);
      const leftover = makeStaging(clean, { [page]: sha256(text) });
      mkdirSync(join(leftover, "concepts"));
      writeFileSync(join(leftover, page), text);
      expect((await service.okfExport({ dir: clean })).ok).toBe(true);
      expect(existsSync(join(clean, STAGING_DIR))).toBe(false);
      expect(existsSync(join(clean, page))).toBe(false);
    } finally {
      await service.close();
    }
  });

  it("stops an import review at its next slice when its signal aborts, with nothing written", async () => {
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      const events = join(vault, ".llm-wiki", "meta", "events.jsonl");
      const eventsBefore = existsSync(events) ? readFileSync(events, "utf8") : "";
      const controller = new AbortController();
      const reviewed = service.okfImport({ dir: dest, apply: true, signal: controller.signal });
      // The first slice has run; the abort is seen at the next boundary, before any create.
      controller.abort();
      const result = await reviewed;
      expect(result.ok).toBe(false);
      expect(result.applied).toBe(false);
      expect(result.creates).toEqual([]);
      expect(result.diagnostics.map((d) => d.code)).toEqual(["operation_cancelled"]);
      expect(existsSync(events) ? readFileSync(events, "utf8") : "").toBe(eventsBefore);
    } finally {
      await service.close();
    }
  });
});
