/**
 * What a hook session's priming delivered, kept for that session's first
 * prompt. Pi primes and recalls in one process and leaves the primed pages
 * out of the first turn's automatic recall; a hook is a fresh process per
 * event, so `session-start` leaves the pages here and the session's first
 * `user-prompt` takes them (and the file) away. Derived state under
 * `meta/cache/hook-primed/`, one small file per session named by a hash of
 * the session id: nothing of the id, the prompt or the pages' text is
 * written, and a file a repository ships can at most hide pages from one
 * prompt's recall.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import {
  isReallyInside,
  makeDirs,
  vaultArea,
  writeFileAtomic,
} from "../extensions/llm-wiki/lib/vault/fs-safe.ts";
import type { VaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";

/** A session whose first prompt never came leaves its file this long. */
const KEEP_MS = 24 * 60 * 60 * 1000;
/** Most pages remembered (priming delivers at most a handful), and most bytes read back. */
const MAX_PAGES = 50;
const MAX_BYTES = 64 * 1024;
/** Most stale files removed by one session start: the folder stays small without a scan of thousands. */
const MAX_SWEPT = 100;
/** `vault:id` as recall names a page (`\s` covers newlines; ids hold no control characters). */
const PAGE_KEY = /^(project|personal):[^\s/.][^\s/]*(?:\/[^\s/.][^\s/]*)+$/u;
const MAX_KEY_CHARS = 400;

function folder(paths: VaultPaths): string {
  return join(paths.meta, "cache", "hook-primed");
}

function fileOf(paths: VaultPaths, sessionId: string): string {
  const name = createHash("sha256").update(`llm-wiki hook session\0${sessionId}`).digest("hex");
  return join(folder(paths), `${name.slice(0, 32)}.json`);
}

/**
 * The folder, made if missing, when it lies really inside the vault: a
 * symbolic link on the way (a repository's `meta/cache` leading elsewhere)
 * is refused before anything is made through it.
 */
function usableFolder(paths: VaultPaths): string | undefined {
  const dir = folder(paths);
  try {
    makeDirs(dir, vaultArea(paths));
  } catch {
    return undefined;
  }
  return isReallyInside(paths.dir, dir) ? dir : undefined;
}

/** Removes files of sessions that never sent a prompt, at most `MAX_SWEPT` a call. */
function sweep(dir: string, now: number): void {
  let swept = 0;
  for (const name of readdirSync(dir)) {
    if (swept >= MAX_SWEPT) return;
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (now - stat.mtimeMs > KEEP_MS || !stat.isFile()) {
        rmSync(path, { force: true, recursive: false });
        swept += 1;
      }
    } catch {
      // Gone meanwhile, or a folder: nothing to keep clean.
    }
  }
}

/** Remembers the pages (`vault:id`) the session's priming delivered. */
export function rememberPrimed(
  paths: VaultPaths,
  sessionId: string,
  pages: readonly string[],
  now = Date.now(),
): void {
  const dir = usableFolder(paths);
  if (!dir) return;
  sweep(dir, now);
  const kept = pages
    .filter((p) => p.length <= MAX_KEY_CHARS && PAGE_KEY.test(p))
    .slice(0, MAX_PAGES);
  if (kept.length === 0) return;
  writeFileAtomic(
    fileOf(paths, sessionId),
    `${JSON.stringify({ version: 1, pages: kept })}\n`,
    vaultArea(paths),
  );
}

/**
 * The pages the session's priming delivered, once: the file is removed, so
 * only the session's first prompt leaves them out (as Pi's first turn does).
 * Nothing remembered, or a file that is not ours: undefined.
 */
export function takePrimed(paths: VaultPaths, sessionId: string): ReadonlySet<string> | undefined {
  // Most prompts are not a session's first: with no file waiting, no hash
  // is made (loading Node's crypto costs a hook more than the rest of this).
  try {
    if (readdirSync(folder(paths)).length === 0) return undefined;
  } catch {
    return undefined;
  }
  const path = fileOf(paths, sessionId);
  let text: string;
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > MAX_BYTES || !isReallyInside(paths.dir, path))
      return undefined;
    text = readFileSync(path, "utf8");
    unlinkSync(path);
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const pages = (value as { pages?: unknown } | null)?.pages;
  if (!Array.isArray(pages)) return undefined;
  const kept = pages
    .filter(
      (p): p is string => typeof p === "string" && p.length <= MAX_KEY_CHARS && PAGE_KEY.test(p),
    )
    .slice(0, MAX_PAGES);
  return kept.length > 0 ? new Set(kept) : undefined;
}
