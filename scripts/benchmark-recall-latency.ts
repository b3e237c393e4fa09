/**
 * `node scripts/benchmark-recall-latency.ts [--pages 10000] [--vault DIR] [--no-write]`:
 * the per-query cost of recall on a synthetic vault (scripts/bench/synthetic-vault.ts),
 * automatic and explicit, lexical, each query timed beside a plain FTS5 BM25
 * query on the same index in the same run (the engine's own cost), in wall
 * and CPU time, with each stage's and each retrieve part's time and the
 * machine's load. Writes benchmarks/recall-latency.json. `--vault` reuses
 * an indexed synthetic vault of that many pages instead of building one.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openRawFts } from "../extensions/llm-wiki/lib/bench/raw-fts.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { writeSyntheticVault } from "./bench/synthetic-vault.ts";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const pages = Number(option("--pages") ?? 10_000);
const given = option("--vault");
const ROUNDS = 30;
/** The scale benchmark's word queries (scripts/bench/scale-worker.ts). */
const QUERIES = [
  "cache invalidation latency",
  "how does the scheduler retry failed jobs",
  "deadlock in transaction isolation",
  "websocket backpressure buffer",
  "oauth token rotation policy",
  "what is hybrid ranking fusion",
  "canary deploy rollback",
  "heap leak in garbage collector",
  "snapshot compaction log",
  "grpc gateway timeout budget",
];

const root = given ?? mkdtempSync(join(tmpdir(), `llm-wiki-latency-${pages}-`));
if (!given) writeSyntheticVault(root, pages);
const service = createWikiService({ cwd: root, vault: root });

function spread(values: number[]): { p50: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(
      (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0) *
        100,
    ) / 100;
  return { p50: at(0.5), p95: at(0.95) };
}
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
const cpuSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

try {
  const indexed = await service.reindex({ scope: "changed" });
  if (!indexed.ok) throw new Error(JSON.stringify(indexed.diagnostics));
  const raw = openRawFts(vaultPaths(root, "project"), 20);
  const results: Record<string, unknown> = {};
  for (const policy of ["automatic", "explicit"] as const) {
    for (const q of QUERIES) {
      await service.recall({ query: q, policy, mode: "lexical" });
      raw.search(q);
    }
    const wall: number[] = [];
    const cpu: number[] = [];
    const rawWall: number[] = [];
    const rawCpu: number[] = [];
    const stages = new Map<string, number[]>();
    const note = (name: string, ms: number) => {
      const list = stages.get(name) ?? [];
      list.push(ms);
      stages.set(name, list);
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [i, q] of QUERIES.entries()) {
        const timeRaw = () => {
          const used = process.cpuUsage();
          const at = performance.now();
          raw.search(q);
          rawWall.push(performance.now() - at);
          rawCpu.push(cpuSince(used));
        };
        // Alternating which goes first, so a slow spell of the machine weighs on both alike.
        if ((round + i) % 2 === 0) timeRaw();
        const used = process.cpuUsage();
        const at = performance.now();
        const r = await service.recall({ query: q, policy, mode: "lexical" });
        wall.push(performance.now() - at);
        cpu.push(cpuSince(used));
        if ((round + i) % 2 === 1) timeRaw();
        for (const s of r.stages) {
          note(s.stage, s.ms);
          for (const p of s.parts ?? []) note(`${s.stage}.${p.stage}`, p.ms);
        }
      }
    }
    const w = spread(wall);
    const c = spread(cpu);
    const rw = spread(rawWall);
    const rc = spread(rawCpu);
    results[policy] = {
      wallMs: w,
      rawFts5WallMs: rw,
      ratioToRawFts5: { p50: ratio(w.p50, rw.p50), p95: ratio(w.p95, rw.p95) },
      cpuMs: c,
      rawFts5CpuMs: rc,
      cpuRatioToRawFts5: { p50: ratio(c.p50, rc.p50), p95: ratio(c.p95, rc.p95) },
      stagesMs: Object.fromEntries([...stages].map(([name, list]) => [name, spread(list)])),
    };
  }
  raw.close();
  const report = {
    benchmark: "recall-latency",
    pages,
    queries: QUERIES.length,
    rounds: ROUNDS,
    machine: {
      node: process.version,
      cpus: cpus().length,
      model: cpus()[0]?.model ?? "",
      loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    },
    results,
  };
  const text = `${JSON.stringify(report, null, 2)}\n`;
  process.stdout.write(text);
  if (!args.includes("--no-write"))
    writeFileSync(join(import.meta.dirname, "..", "benchmarks", "recall-latency.json"), text);
} finally {
  await service.close();
  if (!given) rmSync(root, { recursive: true, force: true });
}
