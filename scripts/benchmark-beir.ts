/**
 * `pnpm benchmark:beir [--collections a,b] [--no-write]`: every public
 * collection found under the eval roots (scripts/bench/beir-collections.ts)
 * through our lexical retrieval and plain SQLite FTS5 BM25 in one run, the
 * difference paired per query; writes `benchmarks/beir-<name>.json` for
 * each. An absent collection is skipped with a line saying how to get it.
 * `pnpm benchmark:retrieval` prints the same table (and writes the reports
 * with `--update`).
 */
import { runCollections } from "./bench/beir-collections.ts";

const at = process.argv.indexOf("--collections");
const listed = at >= 0 ? process.argv[at + 1] : undefined;
if (at >= 0 && (!listed || listed.startsWith("--"))) {
  process.stderr.write("--collections takes a comma-separated list, e.g. cranfield,locomo\n");
  process.exit(2);
}
const run = await runCollections({
  ...(listed ? { wanted: listed.split(",").filter((n) => n !== "") } : {}),
  write: !process.argv.includes("--no-write"),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${run.lines.join("\n")}\n`);
