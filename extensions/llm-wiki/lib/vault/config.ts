/**
 * The vault's `config.json`: name, topic, mode, vault_id, knowledge_format.
 * Unknown keys are kept; invalid values are dropped with a diagnostic.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import type { VaultPaths } from "./paths.ts";
import { decisionVault } from "./resolutions.ts";

export interface VaultConfig {
  name?: string;
  topic?: string;
  mode?: string;
  vault_id?: string;
  knowledge_format?: string;
  [key: string]: unknown;
}

const STRING_KEYS = ["name", "topic", "mode", "vault_id", "knowledge_format"] as const;

/** Reads and validates the vault config; never throws. */
export function readVaultConfig(paths: VaultPaths): {
  config: VaultConfig;
  diagnostics: Diagnostic[];
} {
  const diagnostics: Diagnostic[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(paths.config, "utf8"));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    diagnostics.push(
      diagnostic(
        missing ? "config_missing" : "config_invalid",
        "warning",
        missing
          ? ".llm-wiki/config.json is missing; defaults apply"
          : `.llm-wiki/config.json is not valid JSON (${errorMessage(error)}); defaults apply`,
        { path: ".llm-wiki/config.json" },
      ),
    );
    return { config: {}, diagnostics };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    diagnostics.push(
      diagnostic("config_invalid", "warning", ".llm-wiki/config.json is not an object", {
        path: ".llm-wiki/config.json",
      }),
    );
    return { config: {}, diagnostics };
  }
  const config: VaultConfig = { ...(raw as Record<string, unknown>) };
  for (const key of STRING_KEYS) {
    const value = config[key];
    if (value !== undefined && typeof value !== "string") {
      delete config[key];
      diagnostics.push(
        diagnostic("config_invalid_value", "warning", `config.json: "${key}" must be a string`, {
          path: ".llm-wiki/config.json",
        }),
      );
    }
  }
  return { config, diagnostics };
}

/**
 * A fresh config for `init`. The format is spelled `okf-0.2`, as
 * `@zosmaai/pi-llm-wiki` 0.12.2 spells it: that version refuses any other
 * value (`config_invalid_knowledge_format`, blocking), so a vault we create
 * stays usable from it. Earlier versions of ours wrote `okf`, still read.
 */
export function newVaultConfig(name: string, topic: string | undefined, mode: string): VaultConfig {
  const config: VaultConfig = { name, mode, vault_id: randomUUID(), knowledge_format: "okf-0.2" };
  if (topic) config.topic = topic;
  return config;
}

/**
 * The vault part of its resolutions' ids (`<kind>:<vault_id>`, see
 * resolutions.ts): which resolution records this vault honours.
 */
export function decisionVaultOf(paths: VaultPaths): string {
  return decisionVault(paths.kind, readVaultConfig(paths).config.vault_id);
}
