/**
 * Digest files under `.llm-wiki/outputs/` (where `@zosmaai/pi-llm-wiki` keeps
 * its generated reports): `digest-YYYY-MM-DD.md`, and `digest-YYYY-MM-DD-N.md`
 * for the N-th digest of one day. A digest file is never overwritten, ours or
 * not: a second digest the same day takes the next free suffix, created
 * exclusively so two processes cannot take the same name.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import type { LintCounts } from "../lint/types.ts";
import { readFrontmatter } from "../vault/frontmatter.ts";
import { createFileExclusive, isReallyInside, makeDirs, vaultArea } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** `outputs/` of a vault (inside `.llm-wiki/`). */
export function outputsDir(vault: VaultPaths): string {
  return join(vault.dir, "outputs");
}

const DIGEST_NAME = /^digest-(\d{4}-\d{2}-\d{2})(?:-(\d{1,4}))?\.md$/;
/** A previous digest larger than this is not one of ours: not read. */
const MAX_DIGEST_BYTES = 1024 * 1024;
/** Most digests of one day before giving up (a day has not that many). */
const MAX_SAME_DAY = 1000;

/** A digest file found in `outputs/`. */
interface DigestName {
  name: string;
  day: string;
  n: number;
}

function digestNames(vault: VaultPaths): DigestName[] {
  let names: string[];
  try {
    names = readdirSync(outputsDir(vault));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const m = DIGEST_NAME.exec(name);
    return m?.[1] ? [{ name, day: m[1], n: m[2] ? Number(m[2]) : 1 }] : [];
  });
}

/** The lint counts a previous digest recorded, with its vault-relative path. */
export interface PreviousDigest {
  path: string;
  lint: LintCounts;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * The newest digest file (by day, then suffix) whose front matter holds lint
 * counts; undefined when there is none. A file that is not a digest we can
 * read (hand-written, malformed, too large) is passed over.
 */
export function previousDigest(vault: VaultPaths): PreviousDigest | undefined {
  const ordered = digestNames(vault).sort((a, b) =>
    a.day !== b.day ? (a.day < b.day ? 1 : -1) : b.n - a.n,
  );
  for (const d of ordered) {
    const abs = join(outputsDir(vault), d.name);
    try {
      const stat = statSync(abs);
      if (!stat.isFile() || stat.size > MAX_DIGEST_BYTES) continue;
      const data = readFrontmatter(readFileSync(abs, "utf8")).data as Record<string, unknown>;
      const lint = data?.lint as Record<string, unknown> | undefined;
      const error = count(lint?.error);
      const warning = count(lint?.warning);
      const info = count(lint?.info);
      if (error === undefined || warning === undefined || info === undefined) continue;
      return { path: `outputs/${d.name}`, lint: { error, warning, info } };
    } catch {
      // Unreadable or not front matter we wrote: an older digest may still be.
    }
  }
  return undefined;
}

/**
 * Writes `text` as the digest of `day`: `digest-<day>.md`, or the first free
 * `digest-<day>-N.md` (N ≥ 2) when that exists. Returns the vault-relative path.
 */
export function writeDigestFile(vault: VaultPaths, day: string, text: string): string {
  const dir = outputsDir(vault);
  makeDirs(dir, vaultArea(vault));
  // A hostile vault's `outputs` may be a link to anywhere: the digest stays inside the vault.
  if (!isReallyInside(vault.dir, dir)) {
    throw new WikiError(
      diagnostic(
        "digest_outside_vault",
        "error",
        "outputs/ leads outside the vault; nothing written",
        {
          path: "outputs",
        },
      ),
    );
  }
  for (let n = 1; n <= MAX_SAME_DAY; n += 1) {
    const name = n === 1 ? `digest-${day}.md` : `digest-${day}-${n}.md`;
    if (createFileExclusive(join(dir, name), text, vaultArea(vault))) return `outputs/${name}`;
  }
  throw new Error(`outputs/ already holds ${MAX_SAME_DAY} digests of ${day}`);
}
