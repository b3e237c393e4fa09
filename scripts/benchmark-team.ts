/**
 * A team at scale on one local bare repository (scripts/bench/team-scale.ts):
 * writers in their own clones writing through the MCP server, the CLI and
 * a real Pi session (Pi's scripted faux model), recalling between commits,
 * pulls (merge or `--rebase`, at random, nothing stashed) and pushes in a
 * random interleaving. Reports git's pull time and the index's catch-up
 * time per pull (the writer's host answering its first recall after the
 * pull), and checks that no pull was refused (the run stops) or left a
 * conflicted or changed tracked file, no event or page was lost and every
 * clone's recall answers after the last pull. The CLI and the MCP server run
 * from a bundle built first (`.cache/bench-bundle`), as the published
 * package runs them. Prints JSON; `--out FILE`
 * writes it there too. Exits 1 when a check fails. Usage:
 * benchmark-team.ts [--writers 20] [--writes 50] [--seed N] [--hosts pi,mcp,cli]
 *                   [--verify-sample 50] [--out FILE]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { formattedJson } from "./bench/report-json.ts";
import { type PullRecord, runTeamScale, type TeamHost } from "./bench/team-scale.ts";
import { buildBins } from "./build.ts";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const number = (name: string, fallback: number): number => Number(option(name) ?? fallback);
const writers = number("--writers", 20);
const writes = number("--writes", 50);
const seed = number("--seed", Math.floor(Math.random() * 2 ** 31));
const hosts = (option("--hosts") ?? "pi,mcp,cli").split(",") as TeamHost[];
const verifySample = number("--verify-sample", 50);
const out = option("--out");
const repo = join(import.meta.dirname, "..");

function stats(values: number[]): { n: number; p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: sorted.length, p50: r(at(0.5)), p95: r(at(0.95)), max: r(sorted.at(-1) ?? 0) };
}

// The bins as a person runs them (under the repository, so dependencies resolve).
const bundle = join(repo, ".cache", "bench-bundle", "dist");
await buildBins(bundle);
const loadAtStart = loadavg();
const root = mkdtempSync(join(tmpdir(), "llm-wiki-team-bench-"));
// Pi's extension discovers vaults from this process's environment: a home holding none.
const piHome = join(root, "pi-home");
mkdirSync(piHome);
process.env.HOME = piHome;
process.env.WIKI_HOME = piHome;
process.env.XDG_CACHE_HOME = join(piHome, ".cache");
const started = performance.now();
try {
  console.error(
    `benchmark:team seed ${seed}, ${writers} writers × ${writes} writes, hosts ${hosts}`,
  );
  const report = await runTeamScale({
    root,
    writers,
    writesPerWriter: writes,
    seed,
    hosts,
    cli: join(bundle, "cli", "llm-wiki.js"),
    mcpServer: join(bundle, "mcp", "index.js"),
    verifySample,
  });
  const catchUp = (host?: TeamHost) =>
    stats(
      report.pulls
        .filter((p): p is PullRecord & { catchUpMs: number } => p.catchUpMs !== undefined)
        .filter((p) => host === undefined || p.host === host)
        .map((p) => p.catchUpMs),
    );
  const result = {
    seed,
    writers,
    writesPerWriter: writes,
    hosts,
    writes: report.writes,
    pulls: report.pulls.length,
    pullsByKind: {
      merge: report.pulls.filter((p) => p.how === "merge").length,
      rebase: report.pulls.filter((p) => p.how === "rebase").length,
    },
    pullsWithUncommittedEvents: report.pulls.filter((p) => p.uncommittedEvents > 0).length,
    mergeMs: stats(report.pulls.map((p) => p.mergeMs)),
    catchUpMs: {
      all: catchUp(),
      ...Object.fromEntries([...new Set(hosts)].map((h) => [h, catchUp(h)])),
    },
    firstRecallMissed: report.pulls.filter((p) => p.found === false).length,
    conflicts: report.conflicts,
    dirtyAfterPull: report.pulls.flatMap((p) => p.dirty.map((f) => `${p.writer}: ${f}`)),
    lostEvents: report.lostEvents,
    lostPages: report.lostPages,
    unanswered: report.unanswered,
    repeatedLines: report.repeatedLines,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    machine: {
      cpus: cpus().length,
      loadAtStart: loadAtStart.map((l) => Math.round(l * 100) / 100),
    },
  };
  const text = formattedJson(result);
  process.stdout.write(text);
  if (out) writeFileSync(out, text);
  const failed =
    result.conflicts.length +
    result.dirtyAfterPull.length +
    result.lostEvents.length +
    result.lostPages.length +
    result.unanswered.length +
    result.firstRecallMissed;
  process.exitCode = failed > 0 ? 1 : 0;
} finally {
  rmSync(root, { recursive: true, force: true });
}
