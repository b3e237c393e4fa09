/**
 * The live index of a benchmark's work vault, opened read-only with QMD's
 * own SQLite driver: for scripts that drive the lexical search directly
 * (the ablation, the pool check) on an index `runBeir` built.
 */
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { QmdSqlQueries } from "../../extensions/llm-wiki/lib/index/qmd-lexical.ts";

/** A read-only connection the lexical search can run on. */
export interface BenchIndexDb extends QmdSqlQueries {
  close(): void;
}
type DatabaseConstructor = new (path: string, options: { readonly: boolean }) => BenchIndexDb;
const sqlite = createRequire(import.meta.resolve("@tobilu/qmd"))(
  "better-sqlite3",
) as DatabaseConstructor;

/** Opens the index under `workDir`'s vault; throws when none was built. */
export function openBenchIndex(workDir: string): BenchIndexDb {
  const dir = join(workDir, ".llm-wiki", "meta", "qmd");
  const gen = readdirSync(dir).find((n) => n.startsWith("gen-"));
  if (!gen) throw new Error(`no index under ${dir}`);
  return new sqlite(join(dir, gen, "index.sqlite"), { readonly: true });
}
