/**
 * Real temporary vaults for tests: a root folder under the OS temp folder
 * holding `.llm-wiki/config.json` and pages written from an id → text map.
 * Every folder made here is removed by `removeTempDirs()` (call it in `afterEach`).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import {
  type VaultKind,
  type VaultPaths,
  vaultPaths,
} from "../../extensions/llm-wiki/lib/vault/paths.ts";

const made: string[] = [];

/** The bundled example vault (`examples/acme-notes`). */
export const EXAMPLE_VAULT = join(import.meta.dirname, "..", "..", "examples", "acme-notes");

/**
 * A copy of the example vault at `dest`, without its `meta/` (no index,
 * no registry cache): a vault as a person checks it out.
 */
export function copyExampleVault(dest: string): string {
  cpSync(EXAMPLE_VAULT, dest, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE_VAULT, src).split(sep).includes("meta"),
  });
  return dest;
}

/** A fresh empty folder (symlinks resolved, so paths compare equal to what discovery returns). */
export function makeTempDir(prefix = "llm-wiki-test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes every folder made by this helper since the last call. */
export function removeTempDirs(): void {
  // Retried: a child that just exited may have left a file being written a moment ago.
  for (const dir of made.splice(0))
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

export interface TempVaultOptions {
  /** Page id (`concepts/rag`) → file content (text or raw bytes). */
  pages?: Record<string, string | Uint8Array>;
  /** Object written as JSON, a string written verbatim, or null for no config.json. */
  config?: Record<string, unknown> | string | null;
  /** Root folder to use instead of a fresh temp folder (must exist). */
  root?: string;
  kind?: VaultKind;
}

export interface TempVault {
  /** The folder that holds `.llm-wiki/`. */
  root: string;
  paths: VaultPaths;
  /** Absolute path of the file for page `id`. */
  pageFile(id: string): string;
  /** Writes (or overwrites) the page `id`. */
  writePage(id: string, content: string | Uint8Array): string;
  readPage(id: string): string;
}

/** Makes a vault with a config and the given pages; removed by `removeTempDirs()`. */
export function makeTempVault(options: TempVaultOptions = {}): TempVault {
  const root = options.root ?? makeTempDir();
  const paths = vaultPaths(root, options.kind ?? "project");
  mkdirSync(paths.wiki, { recursive: true });
  const config = options.config === undefined ? { name: "test vault" } : options.config;
  if (config !== null) {
    writeFileSync(
      paths.config,
      typeof config === "string" ? config : `${JSON.stringify(config, null, 2)}\n`,
    );
  }
  const pageFile = (id: string) => join(paths.wiki, `${id}.md`);
  const writePage = (id: string, content: string | Uint8Array) => {
    const file = pageFile(id);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    return file;
  };
  for (const [id, content] of Object.entries(options.pages ?? {})) writePage(id, content);
  return { root, paths, pageFile, writePage, readPage: (id) => readFileSync(pageFile(id), "utf8") };
}

/** A page's text from frontmatter fields (YAML written as given) and a body. */
export function pageText(fields: Record<string, string>, body = ""): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${value}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}

/** Every file under `dir`, vault-relative path → bytes, for byte-identity checks. */
export function snapshotFiles(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const names = readdirSync(dir, { recursive: true, withFileTypes: true });
  for (const entry of names) {
    if (!entry.isFile()) continue;
    const abs = join(entry.parentPath, entry.name);
    out.set(relative(dir, abs).split(sep).join("/"), readFileSync(abs));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The vault's event log (`meta/events.jsonl`), one object per line; empty when there is none. */
export function readEvents(paths: VaultPaths): Array<Record<string, unknown>> {
  if (!existsSync(paths.events)) return [];
  return readFileSync(paths.events, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
