/** Whether `@zosmaai/pi-llm-wiki` keeps a vault too (views and team files defer to it). */
import { readFileSync } from "node:fs";
import type { VaultPaths } from "./paths.ts";

/**
 * True when `@zosmaai/pi-llm-wiki` keeps this vault too: its registry is in
 * `meta/registry.json` (earlier llm-wiki versions' cache there starts
 * `{"version":1,"files":` and does not count).
 */
export function olderSystemKeepsVault(vault: VaultPaths): boolean {
  try {
    const head = readFileSync(vault.legacyRegistry, "utf8").slice(0, 32);
    return head.trim() !== "" && !head.startsWith('{"version":1,"files":');
  } catch {
    return false;
  }
}
