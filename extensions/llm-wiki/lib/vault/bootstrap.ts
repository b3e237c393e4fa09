/**
 * Creating a vault: idempotent, never overwriting. A second call on an
 * existing vault creates only what is missing and reports what was there.
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { newVaultConfig } from "./config.ts";
import { appendEvent } from "./events.ts";
import { createFileExclusive, makeDirs } from "./fs-safe.ts";
import { PAGE_FOLDERS, type VaultPaths, vaultPaths } from "./paths.ts";
import { type RedactionCounts, redactText } from "./redaction.ts";
import { ensureTeamFiles } from "./team-files.ts";
import {
  pageTemplate,
  SCHEMA_FILE,
  TEMPLATE_TYPES,
  TEMPLATES_DIR,
  wikiSchema,
} from "./vault-documents.ts";

export { VAULT_GITATTRIBUTES, VAULT_GITIGNORE } from "./team-files.ts";

export interface BootstrapOptions {
  root: string;
  name?: string;
  topic?: string;
  mode?: string;
}

export interface BootstrapResult {
  vault: VaultPaths;
  /** True when the vault did not exist before this call. */
  created: boolean;
  /** Vault-relative paths this call created. */
  createdPaths: string[];
}

/**
 * Creates the vault at `root` (or completes a partial one). A place that
 * cannot hold a vault (under `/proc`, through a file, read-only) is a
 * `vault_path_unusable` WikiError, raised at the first folder that fails.
 */
export function bootstrapVault(options: BootstrapOptions): BootstrapResult {
  try {
    return createVault(options);
  } catch (error) {
    if (error instanceof WikiError || !isFsError(error)) throw error;
    throw new WikiError(
      diagnostic(
        "vault_path_unusable",
        "error",
        `cannot create a vault at ${options.root}: ${errorMessage(error)}`,
        {
          path: options.root,
          repair: "llm-wiki init --vault <a folder you can write to>",
        },
      ),
    );
  }
}

function isFsError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code);
}

function createVault(options: BootstrapOptions): BootstrapResult {
  const vault = vaultPaths(options.root, "project");
  const existed = existsSync(vault.config);
  const createdPaths: string[] = [];
  const ensureDir = (abs: string, rel: string) => {
    if (!existsSync(abs)) {
      makeDirs(abs);
      createdPaths.push(rel);
    }
  };
  ensureDir(vault.dir, ".llm-wiki/");
  for (const folder of PAGE_FOLDERS) ensureDir(join(vault.wiki, folder), `wiki/${folder}/`);
  ensureDir(join(vault.raw, "sources"), "raw/sources/");
  ensureDir(vault.meta, "meta/");
  // The config is a written file like any page: a secret pasted into the
  // name or topic is redacted before it is stored.
  const redacted: RedactionCounts = {};
  const config = newVaultConfig(
    redactText(options.name ?? basename(options.root), redacted),
    options.topic === undefined ? undefined : redactText(options.topic, redacted),
    options.mode ?? "project",
  );
  if (createFileExclusive(vault.config, `${JSON.stringify(config, null, 2)}\n`)) {
    createdPaths.push("config.json");
  }
  // What lets teammates merge with a plain `git pull` (docs/team.md).
  createdPaths.push(...ensureTeamFiles(vault).created);
  // The manual and templates are the user's once written: an existing copy
  // (ours, edited, or one made for @zosmaai/pi-llm-wiki) is never replaced.
  if (createFileExclusive(join(vault.dir, SCHEMA_FILE), wikiSchema())) {
    createdPaths.push(SCHEMA_FILE);
  }
  for (const type of TEMPLATE_TYPES) {
    const rel = `${TEMPLATES_DIR}/${type}.md`;
    if (createFileExclusive(join(vault.dir, rel), pageTemplate(type))) createdPaths.push(rel);
  }
  if (!existed) {
    appendEvent(vault, { kind: "vault_initialized", name: config.name, mode: config.mode });
  }
  return { vault, created: !existed, createdPaths };
}
