/**
 * The first index as a user waits for it, two builds compared: each run
 * copies a vault that has no index (a fresh clone, e.g. one written by
 * synthetic-vault.ts) and times the bundled `llm-wiki reindex` of build A,
 * then of build B, spawn to exit, alternating which goes first, so a busy
 * spell of a shared machine weighs on both alike. Each run's load average
 * is printed beside it; the copy is removed after each run.
 *
 *   node scripts/bench/cli-reindex-ab.ts VAULT CLI_A CLI_B [RUNS]
 *
 * CLI_A and CLI_B are bundled entries (`dist/cli/llm-wiki.js` of two
 * checkouts, or a copy of `dist/` kept inside the checkout so its
 * node_modules still resolve). Prints one JSON line per run and the medians.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { measureCliReindex } from "./index-disk.ts";

const [vaultArg, aArg, bArg, runsArg = "3"] = process.argv.slice(2);
if (!vaultArg || !aArg || !bArg) {
  process.stderr.write("usage: cli-reindex-ab.ts VAULT CLI_A CLI_B [RUNS]\n");
  process.exit(2);
}
// The CLI runs in the copy's folder: every path is made absolute first.
const [vault, cliA, cliB] = [vaultArg, aArg, bArg].map((p) => resolve(p)) as [
  string,
  string,
  string,
];

/** One timed reindex of a fresh copy of `vault` by `cli`. */
function once(cli: string): { ms: number; reportedMs: number; load: number[] } {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-cli-ab-"));
  try {
    cpSync(vault, dir, { recursive: true });
    const load = loadavg().map((n) => Math.round(n * 100) / 100);
    const run = measureCliReindex(dir, cli);
    return { ms: Math.round(run.ms), reportedMs: run.reportedMs, load };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const times: Record<"A" | "B", number[]> = { A: [], B: [] };
for (let i = 0; i < Number(runsArg); i += 1) {
  const order: Array<["A" | "B", string]> =
    i % 2 === 0
      ? [
          ["A", cliA],
          ["B", cliB],
        ]
      : [
          ["B", cliB],
          ["A", cliA],
        ];
  for (const [name, cli] of order) {
    const r = once(cli);
    times[name].push(r.ms);
    process.stdout.write(`${JSON.stringify({ run: i, build: name, ...r })}\n`);
  }
}
process.stdout.write(
  `${JSON.stringify({ medianMsA: median(times.A), medianMsB: median(times.B) })}\n`,
);
