/**
 * The full index as a user waits for it and as it sits on disk: the bundled
 * `llm-wiki reindex` on a vault with no index yet (a fresh clone), timed
 * from spawn to exit, so whatever runs after the rebuild's own report
 * (durability, retiring a generation) is counted; and the bytes the index
 * holds, split by file, against the bytes of the pages it indexes.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Bytes of every regular file below `dir` (links not followed). */
function bytesBelow(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isDirectory()) total += bytesBelow(path);
    else if (st.isFile()) total += st.size;
  }
  return total;
}

/** The index's bytes on disk by part, and the pages' bytes they index. */
export interface IndexDiskBytes {
  pagesMb: number;
  indexMb: number;
  /** indexMb / pagesMb. */
  ratio: number;
  /** `documents/` of the live generation: one Markdown file per page (older formats only). */
  mirrorMb: number;
  /** `index.sqlite`. */
  sqliteMb: number;
  /** `index.sqlite-wal` and `-shm`. */
  walMb: number;
  /** Manifest, its log, counts, state, pointer, other generations. */
  otherMb: number;
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** Measures the index of the vault at `root` (a `.llm-wiki` vault) as it is now. */
export function indexDiskBytes(root: string): IndexDiskBytes {
  const vault = join(root, ".llm-wiki");
  const qmd = join(vault, "meta", "qmd");
  const live = readFileSync(join(qmd, "LIVE"), "utf8").trim();
  const gen = join(qmd, live);
  const size = (path: string) => {
    try {
      return lstatSync(path).size;
    } catch {
      return 0;
    }
  };
  const pages = bytesBelow(join(vault, "wiki"));
  const index = bytesBelow(qmd);
  const mirror = bytesBelow(join(gen, "documents"));
  const sqlite = size(join(gen, "index.sqlite"));
  const wal = size(join(gen, "index.sqlite-wal")) + size(join(gen, "index.sqlite-shm"));
  return {
    pagesMb: mb(pages),
    indexMb: mb(index),
    ratio: Math.round((index / pages) * 100) / 100,
    mirrorMb: mb(mirror),
    sqliteMb: mb(sqlite),
    walMb: mb(wal),
    otherMb: mb(index - mirror - sqlite - wal),
  };
}

/** What `measureCliReindex` saw. */
export interface CliReindexRun {
  /** Spawn to exit. */
  ms: number;
  /** The duration the command itself reported for the rebuild. */
  reportedMs: number;
  disk: IndexDiskBytes;
}

/** What a clone of the vault's repository lacks: the derived files its `.gitignore` leaves out. */
const DERIVED = ["qmd", "cache", "registry.json", "backlinks.json"];

/**
 * Removes the vault's derived files (a fresh clone has none: no index, no
 * registry) and runs the bundled CLI's `reindex` on it, spawn to exit; then
 * measures the index on disk.
 */
export function measureCliReindex(root: string, cliBin: string): CliReindexRun {
  for (const name of DERIVED)
    rmSync(join(root, ".llm-wiki", "meta", name), { recursive: true, force: true });
  const started = performance.now();
  const r = spawnSync(process.execPath, [cliBin, "reindex", "--json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`llm-wiki reindex failed: ${r.stderr.slice(-2000)}`);
  const out = JSON.parse(r.stdout) as { reports?: Array<{ action?: string; durationMs?: number }> };
  const report = out.reports?.[0];
  if (report?.action !== "rebuild")
    throw new Error(`expected a rebuild: ${r.stdout.slice(0, 500)}`);
  return { ms, reportedMs: report.durationMs ?? 0, disk: indexDiskBytes(root) };
}
