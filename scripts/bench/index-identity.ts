/**
 * Two builds' first index of the same vault, held to the same contents:
 * each bundled CLI runs `llm-wiki reindex` on its own fresh copy of VAULT
 * (no index, no registry), then every table of the two SQLite indexes
 * (QMD's, FTS5's shadow tables, SQLite's; timestamps and generation folder
 * names masked, test/helpers/index-tables.ts), the two manifests and the
 * two registry caches (file times masked: each copy has its own) are
 * compared. Prints what differs, or that nothing does; exits 1 on a
 * difference.
 *
 *   node scripts/bench/index-identity.ts VAULT CLI_A CLI_B
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { indexTables } from "../../test/helpers/index-tables.ts";

const [vaultArg, aArg, bArg] = process.argv.slice(2);
if (!vaultArg || !aArg || !bArg) {
  process.stderr.write("usage: index-identity.ts VAULT CLI_A CLI_B\n");
  process.exit(2);
}
const [vault, cliA, cliB] = [vaultArg, aArg, bArg].map((p) => resolve(p)) as [
  string,
  string,
  string,
];

/** What a clone lacks: the derived files its `.gitignore` leaves out (as index-disk.ts). */
const DERIVED = ["qmd", "cache", "registry.json", "backlinks.json"];

/** A fresh copy of the vault indexed by `cli`; returns the copy's folder. */
function build(cli: string): string {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-identity-"));
  cpSync(vault, dir, { recursive: true });
  for (const name of DERIVED)
    rmSync(join(dir, ".llm-wiki", "meta", name), { recursive: true, force: true });
  const r = spawnSync(process.execPath, [cli, "reindex", "--json"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`llm-wiki reindex failed: ${r.stderr.slice(-2000)}`);
  return dir;
}

/** The live generation's folder of the vault copy `dir`. */
function liveGeneration(dir: string): string {
  const qmd = join(dir, ".llm-wiki", "meta", "qmd");
  return join(qmd, readFileSync(join(qmd, "LIVE"), "utf8").trim());
}

/** The registry cache's files (and the backlinks beside it) by path, their bytes as text. */
function registryCache(dir: string): Record<string, string> {
  const meta = join(dir, ".llm-wiki", "meta");
  const files = (readdirSync(join(meta, "cache"), { recursive: true }) as string[])
    .map((name) => join("cache", name))
    .filter((name) => statSync(join(meta, name)).isFile());
  return Object.fromEntries(
    [...files, "backlinks.json"]
      .sort()
      .map((name) => [name, readFileSync(join(meta, name), "utf8")]),
  );
}

/**
 * `text` with its file times (epoch milliseconds: `mtimeMs`, the shards'
 * and folders' stamps) masked: each copy of the vault has its own, and the
 * cache files that hold them have sizes of their own too.
 */
function withoutTimes(text: string): string {
  // A stamp is `size:mtime`, and a shard's size follows its pages' times.
  return text.replace(/\b1[0-9]{12}(?:\.[0-9]+)?\b/g, "<ms>").replace(/\b[0-9]+:<ms>/g, "<stamp>");
}

const dirs = [build(cliA), build(cliB)] as const;
try {
  const [a, b] = dirs.map((dir) => ({
    tables: Object.fromEntries(
      Object.entries(indexTables(join(liveGeneration(dir), "index.sqlite"))).map(([name, rows]) => [
        name,
        rows.map((row) => row.split(dir).join("<vault>")),
      ]),
    ),
    manifest: readFileSync(join(liveGeneration(dir), "manifest.json"), "utf8"),
    cache: Object.fromEntries(
      Object.entries(registryCache(dir)).map(([name, text]) => [name, withoutTimes(text)]),
    ),
  })) as [
    { tables: Record<string, string[]>; manifest: string; cache: Record<string, string> },
    { tables: Record<string, string[]>; manifest: string; cache: Record<string, string> },
  ];
  const differences: string[] = [];
  for (const name of new Set([...Object.keys(a.tables), ...Object.keys(b.tables)])) {
    const [ra, rb] = [a.tables[name] ?? [], b.tables[name] ?? []];
    const at = ra.findIndex((row, i) => row !== rb[i]);
    if (at !== -1 || ra.length !== rb.length)
      differences.push(
        `table ${name}: ${ra.length} vs ${rb.length} rows, first difference at ${at}`,
      );
  }
  if (a.manifest !== b.manifest) differences.push("manifest.json");
  for (const name of new Set([...Object.keys(a.cache), ...Object.keys(b.cache)]))
    if (a.cache[name] !== b.cache[name]) {
      const [ta, tb] = [a.cache[name] ?? "", b.cache[name] ?? ""];
      let at = 0;
      while (at < ta.length && ta[at] === tb[at]) at += 1;
      differences.push(
        `registry cache ${name} at ${at}: ${JSON.stringify(ta.slice(Math.max(0, at - 40), at + 40))} vs ${JSON.stringify(tb.slice(Math.max(0, at - 40), at + 40))}`,
      );
    }
  const rows = Object.values(a.tables).reduce((n, t) => n + t.length, 0);
  process.stdout.write(
    `${JSON.stringify({ tables: Object.keys(a.tables).length, rows, differences })}\n`,
  );
  process.exitCode = differences.length === 0 ? 0 : 1;
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
