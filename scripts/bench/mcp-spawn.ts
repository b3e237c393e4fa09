/**
 * Time from spawning the MCP server to its first `wiki_recall` answer, as a
 * client sees it (median of a few runs, index already built), and to the
 * end of its handshake on the way. `server` is the entry to spawn: the built
 * bin (`dist/mcp/index.js`) is what users run. The first run fills Node's
 * compile cache, as a user's first spawn does; the median is a later
 * spawn's time. Run alone (`node scripts/bench/mcp-spawn.ts VAULT [RUNS]
 * [SERVER]`, the vault indexed and `pnpm build` done) it prints the medians,
 * every sample and the machine's load as one JSON line. `--pages N` in place
 * of VAULT times benchmark-scale.ts's synthetic vault of N pages, written and
 * indexed once into a folder kept for the next run (`--cache DIR`, default
 * `$TMPDIR/llm-wiki-mcp-spawn-N`): at 100k pages that is minutes of work a
 * run that changes only the server need not repeat.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeSessionTopic } from "./hook-spawn.ts";
import { writeSyntheticVault } from "./synthetic-vault.ts";

const SOURCE_ENTRY = join(import.meta.dirname, "..", "..", "mcp", "index.ts");

/** Medians in milliseconds: spawn → handshake done, and spawn → first recall answered. */
export interface McpSpawnTimes {
  handshakeMs: number;
  firstRecallMs: number;
  /** Every run's times, in order (the first one fills the compile cache). */
  samples: Array<{ handshakeMs: number; firstRecallMs: number }>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Resolves once process `pid` is gone (or after a minute). */
async function exited(pid: number): Promise<void> {
  const until = performance.now() + 60_000;
  while (performance.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function measureMcpSpawn(
  vault: string,
  runs = 5,
  server: string = SOURCE_ENTRY,
): Promise<McpSpawnTimes> {
  const samples: number[] = [];
  const handshakes: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [server, "--vault", vault],
      env: { ...(process.env as Record<string, string>) },
      stderr: "ignore",
    });
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(transport);
    handshakes.push(performance.now() - t);
    await client.callTool({
      name: "wiki_recall",
      arguments: { query: "cache invalidation latency" },
    });
    samples.push(performance.now() - t);
    const pid = transport.pid;
    await client.close();
    // The server runs its start-up check after the first answer (seconds of
    // CPU at 100k pages); the next spawn is timed once this one has exited,
    // not beside it.
    if (pid !== null) await exited(pid);
  }
  return {
    handshakeMs: median(handshakes),
    firstRecallMs: median(samples),
    samples: samples.map((firstRecallMs, i) => ({
      handshakeMs: handshakes[i] ?? 0,
      firstRecallMs,
    })),
  };
}

/**
 * The synthetic vault of `pages` pages in `dir`, written and fully indexed
 * unless a previous run left it there complete (a marker names the page
 * count and the generator's text, so a changed generator builds it again).
 */
export function cachedSyntheticVault(pages: number, dir: string): string {
  const marker = join(dir, ".mcp-spawn-vault.json");
  // The generators' own text: a changed generator writes other pages.
  const generators = createHash("sha256");
  for (const file of ["synthetic-vault.ts", "hook-spawn.ts"])
    generators.update(readFileSync(join(import.meta.dirname, file)));
  const want = JSON.stringify({ pages, generators: generators.digest("hex") });
  if (existsSync(marker) && readFileSync(marker, "utf8") === want) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeSyntheticVault(dir, pages);
  writeSessionTopic(dir);
  const built = spawnSync(
    process.execPath,
    [join(import.meta.dirname, "scale-worker.ts"), "full-index", dir, String(pages)],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (built.status !== 0) throw new Error(`indexing the synthetic vault in ${dir} failed`);
  writeFileSync(marker, want);
  return dir;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { pages: { type: "string" }, cache: { type: "string" } },
  });
  const pages = values.pages === undefined ? undefined : Number(values.pages);
  const vault =
    pages === undefined
      ? positionals.shift()
      : cachedSyntheticVault(pages, values.cache ?? join(tmpdir(), `llm-wiki-mcp-spawn-${pages}`));
  const [runs = "7", server = join(SOURCE_ENTRY, "..", "..", "dist", "mcp", "index.js")] =
    positionals;
  if (!vault)
    throw new Error("usage: mcp-spawn.ts (VAULT | --pages N [--cache DIR]) [RUNS] [SERVER]");
  const before = loadavg().map((l) => Math.round(l * 100) / 100);
  const times = await measureMcpSpawn(vault, Number(runs), server);
  const round = (n: number) => Math.round(n);
  const later = times.samples.slice(1).map((t) => t.firstRecallMs);
  process.stdout.write(
    `${JSON.stringify({
      handshakeMs: round(times.handshakeMs),
      firstRecallMs: round(times.firstRecallMs),
      // On a shared machine the fastest later run is the steadiest figure to compare builds by.
      fastestFirstRecallMs: round(Math.min(...later)),
      samples: times.samples.map((t) => [round(t.handshakeMs), round(t.firstRecallMs)]),
      loadavg: before,
    })}\n`,
  );
}
