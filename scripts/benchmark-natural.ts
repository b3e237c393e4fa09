/**
 * `pnpm benchmark:natural`: the natural-question benchmark alone
 * (scripts/bench/natural-questions.ts). Prints the figures and the train
 * split's misses (`--heldout` lists the held-out ones too: read them only
 * to report, never to tune); fails below the committed figures
 * (benchmarks/natural-questions.json), which `--update` rewrites.
 * `--sets a,b` runs only those question sets, `--no-prompts` no prompts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type NaturalFloors,
  naturalGateFailures,
  naturalSets,
  naturalTargetMisses,
  renderNaturalReport,
  runNaturalQuestions,
} from "./bench/natural-questions.ts";

const root = join(import.meta.dirname, "..");
const argv = process.argv.slice(2);
const dirAt = argv.indexOf("--dir");
const dir = dirAt >= 0 ? (argv[dirAt + 1] ?? "") : join(root, "test", "fixtures", "natural");
const reportPath = join(root, "benchmarks", "natural-questions.json");
const at = argv.indexOf("--sets");
const only = at >= 0 ? new Set((argv[at + 1] ?? "").split(",")) : undefined;
const { sets, prompts } = naturalSets(dir);
const report = await runNaturalQuestions(
  sets.filter((s) => !only || only.has(s.name)),
  argv.includes("--no-prompts") ? [] : prompts,
);
const lines = renderNaturalReport(report);
const showHeld = argv.includes("--heldout");
for (const o of report.outcomes) {
  if (o.split === "heldout" && !showHeld) continue;
  const none = o.expected.length === 0;
  const first = none ? o.strong === 0 : o.expected.includes(o.explicit[0] ?? "");
  const auto = none ? o.injected.length === 0 : o.injected.some((id) => o.expected.includes(id));
  if (first && auto) continue;
  lines.push(
    `  ${first ? "  " : "1✗"} ${auto ? "  " : "A✗"} [${o.split}] ${o.vault}:${o.id} "${o.text}" want ${o.expected.join("|") || "(nothing)"} got ${o.explicit.slice(0, 3).join(", ") || "(nothing)"} auto ${o.injected.join(", ") || "-"}`,
  );
}
for (const n of report.noisy) {
  if (n.split === "heldout" && !showHeld) continue;
  lines.push(`  noisy [${n.split}] ${n.id}: ${n.pages.join(", ")}`);
}
const misses = naturalTargetMisses(report);
lines.push(
  misses.length === 0
    ? "issue 38's targets met"
    : `issue 38's targets not met:\n  ${misses.join("\n  ")}`,
);
const whole = !only && !argv.includes("--no-prompts") && dirAt < 0;
if (argv.includes("--update") && whole) {
  const { outcomes: _o, noisy: _n, ...figures } = report;
  writeFileSync(reportPath, `${JSON.stringify(figures, null, 2)}\n`);
  lines.push(`wrote ${reportPath}`);
} else if (whole) {
  const floors = JSON.parse(readFileSync(reportPath, "utf8")) as NaturalFloors;
  const failures = naturalGateFailures(report, floors);
  lines.push(failures.length === 0 ? "gates met" : `GATES MISSED:\n  ${failures.join("\n  ")}`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}
process.stdout.write(`${lines.join("\n")}\n`);
