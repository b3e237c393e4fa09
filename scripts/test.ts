/**
 * The project's test command: typecheck, lint, then every Vitest test.
 * Ends with the plain line `N passed, N failed` that CI reads (typecheck and
 * lint count as one check each) and exits non-zero on any failure.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const reportPath = join(root, ".vitest-report.json");

function run(label: string, command: string, args: string[]): boolean {
  process.stderr.write(`\n== ${label}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  return result.status === 0;
}

let passed = 0;
let failed = 0;
const tally = (ok: boolean) => {
  if (ok) passed += 1;
  else failed += 1;
};

const onlyTests = process.argv.includes("--tests-only");
if (!onlyTests) {
  tally(run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]));
  tally(run("lint", bin("biome"), ["check", "."]));
}

rmSync(reportPath, { force: true });
const extra = process.argv.slice(2).filter((a) => a !== "--tests-only");
const vitestOk = run("vitest", bin("vitest"), [
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${reportPath}`,
  // Where the time went (.cache/suite-timing.json; `pnpm benchmark:suite`).
  "--reporter=./test/helpers/suite-timing-reporter.ts",
  ...extra,
]);

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTests: number;
  numPendingTests?: number;
  numTodoTests?: number;
  success: boolean;
}
if (existsSync(reportPath)) {
  const report = JSON.parse(readFileSync(reportPath, "utf8")) as VitestJson;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A suite that failed to load has no failed test but is a failure all the same.
  if (!vitestOk && report.numFailedTests === 0) failed += 1;
} else {
  failed += 1;
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
