/**
 * How long the generated views take to follow one write on a big vault,
 * against a full `rebuild-meta`: a synthetic OKF vault (10k pages by
 * default, an event log of 100k events), one full rebuild, then single
 * writes (a new page; an event) each followed by the refresh the service
 * runs after a write, timed; last, a full rebuild must find every view
 * already as generated (byte-identical). Prints JSON, and with `--out`
 * writes it there with the machine's state (`pnpm benchmark:views` writes
 * benchmarks/views.json). Usage:
 * benchmark-views.ts [--pages 10000] [--events 100000] [--out FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { writeSyntheticVault } from "./bench/synthetic-vault.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const pages = option("--pages", 10_000);
const events = option("--events", 100_000);
const outAt = args.indexOf("--out");
const out = outAt === -1 ? undefined : args[outAt + 1];
const loadAtStart = loadavg();
const loads = (l: number[]) => l.map((x) => Math.round(x * 100) / 100);

const root = mkdtempSync(join(tmpdir(), "llm-wiki-views-bench-"));
try {
  writeSyntheticVault(root, pages);
  const lines: string[] = [];
  for (let i = 0; i < events; i += 1) {
    const ts = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    lines.push(JSON.stringify({ ts, kind: "page_created", page: `concepts/page-${i}` }));
  }
  writeFileSync(join(root, ".llm-wiki", "meta", "events.jsonl"), `${lines.join("\n")}\n`);

  let refreshes = 0;
  const service = createWikiService({
    cwd: root,
    views: { debounceMs: 60_000, onRefresh: () => (refreshes += 1) },
  });
  // CPU time, not wall time: on a busy machine the wall clock measures the neighbours.
  const time = async (work: () => Promise<unknown>): Promise<number> => {
    const t = process.cpuUsage();
    await work();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
  };
  const fullFirst = await time(() => service.rebuildMeta());
  const fullAgain = await time(() => service.rebuildMeta());

  const followPage: number[] = [];
  const followEvent: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    service.ensurePage({ type: "concept", title: `Follow ${i}`, description: `written ${i}` });
    followPage.push(await time(() => service.flushViews()));
    service.logEvent({ kind: "note", detail: { i } });
    followEvent.push(await time(() => service.flushViews()));
  }
  const check = await service.rebuildMeta();
  const views = check.vaults[0];
  const followed = (views?.written ?? []).filter((p) => p !== "meta/lint-report.md");
  await service.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const report = {
    benchmark: "views",
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: cpus().length,
      model: cpus()[0]?.model ?? "unknown",
      loadAverageAtStart: loads(loadAtStart),
      loadAverageAtEnd: loads(loadavg()),
    },
    pages,
    events,
    fullRebuildCpuMs: Math.round(fullFirst),
    fullRebuildAgainCpuMs: Math.round(fullAgain),
    followOnePageMedianCpuMs: Math.round(median(followPage) ?? 0),
    followOneEventMedianCpuMs: Math.round(median(followEvent) ?? 0),
    followPageCpuMs: followPage.map(Math.round),
    followEventCpuMs: followEvent.map(Math.round),
    refreshes,
    // Views a full rebuild still had to rewrite after the refreshes: none when byte-identical.
    rewrittenByFullRebuild: followed,
  };
  const text = `${JSON.stringify(report, null, 2)}\n`;
  process.stdout.write(text);
  if (out) writeFileSync(out, text);
  if (followed.length > 0) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
