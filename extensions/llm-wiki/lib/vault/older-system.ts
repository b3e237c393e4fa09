/** Whether `@zosmaai/pi-llm-wiki` keeps a vault too (views and team files defer to it). */
import { closeSync, openSync, readSync } from "node:fs";
import type { VaultPaths } from "./paths.ts";

/**
 * True when `@zosmaai/pi-llm-wiki` keeps this vault too: its registry is in
 * `meta/registry.json` (earlier llm-wiki versions' cache there starts
 * `{"version":1,"files":` and does not count).
 */
export function olderSystemKeepsVault(vault: VaultPaths): boolean {
  // Its first bytes say whose it is: asked on every event appended, so the rest is not read.
  let fd: number | undefined;
  try {
    fd = openSync(vault.legacyRegistry, "r");
    const bytes = Buffer.alloc(32);
    const head = bytes.subarray(0, readSync(fd, bytes, 0, 32, 0)).toString("utf8");
    return head.trim() !== "" && !head.startsWith('{"version":1,"files":');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
