/**
 * Every query's ranked list of a BEIR collection, as recall's lexical
 * retrieval answers it (lib/bench/beir-run.ts, depth 100): one JSON line per
 * query with each hit's page, score, confidence and excerpt. Two lists files
 * compared say whether a change kept every answer; exits 1 when one differs.
 * Usage:
 *   beir-lists.ts <BEIR folder> <out.jsonl>
 *   beir-lists.ts --compare <before.jsonl> <after.jsonl>
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runBeir } from "../../extensions/llm-wiki/lib/bench/beir-run.ts";
import { DEFAULT_SETTINGS } from "../../extensions/llm-wiki/lib/settings.ts";

/** Query id → its line, from a lists file. */
function readLists(path: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    out.set(String((JSON.parse(line) as { query: unknown }).query), line);
  }
  return out;
}

const [first, second, third] = process.argv.slice(2);
if (first === "--compare" && second && third) {
  const before = readLists(second);
  const after = readLists(third);
  const differ = [...before.keys()].filter((id) => after.get(id) !== before.get(id));
  const missing = [...after.keys()].filter((id) => !before.has(id));
  process.stdout.write(
    `${before.size - differ.length}/${before.size} queries identical` +
      (differ.length > 0 ? `; differ: ${differ.slice(0, 20).join(", ")}` : "") +
      (missing.length > 0 ? `; only in ${third}: ${missing.length}` : "") +
      "\n",
  );
  process.exit(differ.length > 0 || missing.length > 0 ? 1 : 0);
}
if (!first || !second || first.startsWith("--")) {
  process.stderr.write(
    "usage: beir-lists.ts <BEIR folder> <out.jsonl> | beir-lists.ts --compare <a.jsonl> <b.jsonl>\n",
  );
  process.exit(2);
}
const lines: string[] = [];
const workDir = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-beir-lists-")));
try {
  await runBeir({
    collection: resolve(first),
    workDir,
    mode: "lexical",
    settings: DEFAULT_SETTINGS,
    onQueryAnswered: (query, outcome) => {
      lines.push(JSON.stringify({ query, hits: outcome.hits }));
    },
  });
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
writeFileSync(second, `${lines.join("\n")}\n`);
process.stdout.write(`${lines.length} queries' lists written to ${second}\n`);
