/**
 * `secret_in_page`: a page that holds a secret (an API key, a token, a
 * private key). Pages written through the tools are redacted before they
 * reach the disk, so such a page was written by hand or by another program;
 * it stays as written (it is authoritative) and its secret is kept out of
 * the index mirror and recall, but the file itself still carries it, and a
 * vault is usually committed. So it is an error: `lint` fails until a person
 * removes it. A finding names the page, the line and the kind, never the value.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findSecrets } from "../safety/redact.ts";
import type { SliceClock, Sliced } from "../sliced-work.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import type { LintFinding } from "./types.ts";

/**
 * One finding per kind of secret and line, on every accepted page. The
 * slowest check (every page is read and scanned), so it yields between
 * pages when `clock` says its slice is over.
 */
export function* secretFindings(
  vault: VaultPaths,
  registry: Registry,
  clock: SliceClock,
): Sliced<LintFinding[]> {
  const out: LintFinding[] = [];
  for (const meta of registry.pages.values()) {
    if (clock.due()) yield;
    let text: string;
    try {
      text = readFileSync(join(vault.dir, meta.path), "utf8");
    } catch {
      continue; // Gone since the registry was read: the next lint sees what replaced it.
    }
    const seen = new Set<string>();
    for (const { kind, line } of findSecrets(text)) {
      const key = `${line}\0${kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        check: "secret",
        code: "secret_in_page",
        severity: "error",
        message: `${meta.path}:${line}: a secret (${kind}) is written in this page; replace it with [REDACTED:${kind}] and rotate it`,
        path: meta.path,
        line,
      });
    }
  }
  return out;
}
