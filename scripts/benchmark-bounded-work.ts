/**
 * `node scripts/benchmark-bounded-work.ts`: figures for the bounds on hostile
 * input (issue 22, "Bounded work on every input"), printed, never asserted
 * (the specs assert behaviour: test/frontmatter-bounds, capture-pdf-bounds,
 * mcp-bounded-work). Measures: a page pasted with nested YAML aliases; a
 * PDF whose one stream inflates to 1 GiB; an MCP server with 200 mixed
 * calls queued, then SIGTERM or the end of its input; a ping during a
 * 2,000-page PDF capture; and, on a synthetic vault of --pages pages, the
 * longest stretch each handler an MCP call reaches holds the event loop
 * (lint, rebuild-meta, status, digest, OKF export and import, reindex,
 * recall).
 * Usage: benchmark-bounded-work.ts [--pages 2000] [--handlers-only]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractPdf } from "../extensions/llm-wiki/lib/capture/pdf-extract.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { answered, initializeRequest, spawnRawServer } from "../test/helpers/mcp-child.ts";
import { bombPdf, zeroStream } from "../test/helpers/pdf-bomb.ts";
import { makePdf } from "../test/helpers/pdf-fixture.ts";
import { writeSyntheticVault } from "./bench/synthetic-vault.ts";

const args = process.argv.slice(2);
const pagesArg = args[args.indexOf("--pages") + 1];
const PAGES = args.includes("--pages") && pagesArg ? Number(pagesArg) : 2_000;
const HANDLERS_ONLY = args.includes("--handlers-only");
const work = mkdtempSync(join(tmpdir(), "llm-wiki-bounded-"));

function env(home: string): Record<string, string> {
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    WIKI_HOME: home,
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
  };
}

/** Peak RSS sampled every 20 ms while `run` goes, and how often a 100 ms timer got to fire. */
async function measured<T>(
  run: () => Promise<T>,
): Promise<{ value: T; ms: number; peakMb: number; ticks: number }> {
  let peak = process.memoryUsage().rss;
  let ticks = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const tick = setInterval(() => ticks++, 100);
  const begun = performance.now();
  try {
    const value = await run();
    return {
      value,
      ms: Math.round(performance.now() - begun),
      peakMb: Math.round(peak / 1e6),
      ticks,
    };
  } finally {
    clearInterval(sample);
    clearInterval(tick);
  }
}

function laughs(levels: number): string {
  const lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let i = 1; i < levels; i += 1) {
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(", ")}]`,
    );
  }
  return lines.join("\n");
}

async function yamlBomb(): Promise<void> {
  const root = join(work, "yaml");
  writeSyntheticVault(root, 1);
  const service = createWikiService({ cwd: root, vault: root, env: env(join(work, "yaml-home")) });
  const content = `---\n${laughs(9)}\n---\nbody\n`;
  const { value, ms } = await measured(async () =>
    service.ensurePage({ type: "concept", title: "Laughs", content }),
  );
  console.log(
    `yaml: ${content.length} bytes of nested aliases pasted into a page: ${ms} ms (${value.diagnostics.map((d) => d.code).join(", ")})`,
  );
  await service.close();
}

async function pdfBomb(): Promise<void> {
  const pdf = bombPdf([await zeroStream(1024 * 1024 * 1024)]);
  const { value, ms, peakMb } = await measured(async () => {
    try {
      await extractPdf(pdf, { timeoutMs: 30_000, maxPages: 2_000, maxTextBytes: 1024 * 1024 });
      return "read";
    } catch (error) {
      return error instanceof WikiError ? error.diagnostic.code : String(error);
    }
  });
  console.log(
    `pdf: ${pdf.length} bytes inflating to 1 GiB: ${value} in ${ms} ms, peak RSS ${peakMb} MB`,
  );
}

async function queuedCalls(how: "SIGTERM" | "end of input"): Promise<void> {
  const vault = join(work, "big");
  const home = join(work, `home-${how.replace(/\W/g, "")}`);
  const note = join(home, "note.txt");
  const server = spawnRawServer(vault, env(home));
  writeFileSync(note, "Some captured text about cache invalidation.\n".repeat(500));
  await server.send(initializeRequest("init"));
  await server.waitFor(answered("init"));
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const kinds = ["wiki_recall", "wiki_lint", "wiki_reindex", "wiki_capture_source"] as const;
  const lines = Array.from({ length: 200 }, (_, i) => {
    const name = kinds[i % 4] ?? "wiki_recall";
    const args =
      name === "wiki_recall"
        ? { query: `cache index ${i}` }
        : name === "wiki_reindex"
          ? { scope: "all" }
          : name === "wiki_capture_source"
            ? { file: note }
            : {};
    return JSON.stringify({
      jsonrpc: "2.0",
      id: `c${i}`,
      method: "tools/call",
      params: { name, arguments: args },
    });
  });
  await server.write(`${lines.join("\n")}\n`);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const begun = performance.now();
  if (how === "SIGTERM") server.child.kill("SIGTERM");
  else server.child.stdin.end();
  const code = await server.exited();
  console.log(
    `mcp: 200 queued calls on ${PAGES} pages, ${how}: exited (${code}) after ${Math.round(performance.now() - begun)} ms`,
  );
}

async function pingDuringCapture(): Promise<void> {
  const vault = join(work, "pdf-vault");
  writeSyntheticVault(vault, 3);
  const home = join(work, "pdf-home");
  const file = join(home, "long.pdf");
  const server = spawnRawServer(vault, env(home));
  const words = "cache index page words here";
  writeFileSync(
    file,
    makePdf({ pages: Array.from({ length: 2_000 }, (_, i) => [`${words} ${i}`, words]) }),
  );
  await server.send(initializeRequest("init"));
  await server.waitFor(answered("init"));
  await server.send({
    jsonrpc: "2.0",
    id: "capture",
    method: "tools/call",
    params: { name: "wiki_capture_source", arguments: { file } },
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const sent = performance.now();
  await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
  await server.waitFor(answered("ping"), 300_000);
  const pingMs = Math.round(performance.now() - sent);
  await server.waitFor(answered("capture"), 300_000);
  console.log(
    `mcp: ping during a 2,000-page PDF capture answered after ${pingMs} ms; capture done ${Math.round(performance.now() - sent)} ms after the ping`,
  );
  server.child.kill("SIGKILL");
}

/**
 * The longest stretch between two turns of the event loop while `run` goes
 * (a chain of `setImmediate` notes each turn), and its total time.
 */
async function heldLoop(run: () => unknown): Promise<{ heldMs: number; ms: number }> {
  let held = 0;
  let last = performance.now();
  let running = true;
  const turn = () => {
    const now = performance.now();
    held = Math.max(held, now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  await new Promise((resolve) => setImmediate(resolve));
  const begun = performance.now();
  last = begun;
  await run();
  const end = performance.now();
  running = false;
  return { heldMs: Math.round(Math.max(held, end - last)), ms: Math.round(end - begun) };
}

async function handlersHoldingTheLoop(vault: string): Promise<void> {
  const service = createWikiService({ cwd: vault, vault, env: env(join(work, "index-home")) });
  const out = join(work, "okf-out");
  const handlers: Array<[string, () => unknown]> = [
    ["status (first call: the registry is read)", () => service.status()],
    ["status", () => service.status()],
    ["lint", () => service.lint()],
    ["reindex (nothing changed)", () => service.reindex({ scope: "changed" })],
    ["rebuild-meta", () => service.rebuildMeta()],
    ["digest", () => service.digest()],
    ["okf export", () => service.okfExport({ dir: out })],
    ["okf export (replacing its previous)", () => service.okfExport({ dir: out })],
    // Every page of the export is already in the vault: read, parsed and compared, nothing written.
    ["okf import (review)", () => service.okfImport({ dir: out })],
    ["recall", () => service.recall({ query: "cache index replica" })],
  ];
  try {
    for (const [name, run] of handlers) {
      const { heldMs, ms } = await heldLoop(run);
      console.log(
        `loop: ${name} on ${PAGES} pages held the event loop ${heldMs} ms at most (${ms} ms in all)`,
      );
    }
  } finally {
    await service.close();
  }
}

try {
  const vault = join(work, "big");
  writeSyntheticVault(vault, PAGES);
  const service = createWikiService({ cwd: vault, vault, env: env(join(work, "index-home")) });
  await service.reindex({ scope: "all" });
  await service.close();
  await handlersHoldingTheLoop(vault);
  if (!HANDLERS_ONLY) {
    await yamlBomb();
    await pdfBomb();
    await queuedCalls("SIGTERM");
    await queuedCalls("end of input");
    await pingDuringCapture();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
